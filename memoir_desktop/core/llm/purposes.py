"""Why memoir talks to an LLM: every request names a registered purpose.

A purpose says, in a diarist's words (Korean and English), what a request carries and when it is
made. The privacy disclosure (core/disclosure.py) is generated from this registry, so a feature
that starts calling the LLM appears on the Privacy page the moment it registers its purpose; a
request under a name nobody registered is refused (`purpose`), in tests and in the app alike.

`when` reads the settings a purpose depends on (None: whenever an LLM is connected); the
disclosure leaves out what the settings have switched off.

`max_tokens` caps each reply at what the stage needs, with room to spare. Without a cap a small
local model that rambles writes for minutes (one reply took 313 s), and a one-request-at-a-time
server holds every other stage behind it. A reply that reaches the cap is read as cut off: a
structured one keeps its complete items and extraction reads the rest again in halves
(pipeline/extraction.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memoir_desktop.core.llm.servers import is_nearby


class UnregisteredPurpose(LookupError):
    """A request to the LLM under a name that is not registered: refused before it is built."""


@dataclass(frozen=True)
class Purpose:
    name: str
    en: str  # what it carries and when, one line, for the disclosure
    ko: str
    features: tuple[str, ...] = ()  # where the user meets it (for the developers' table)
    when: Callable[[Any], bool] | None = None  # settings -> on; None: always with an LLM
    app: bool = True  # False: a developer tool (evaluation), never part of the app's disclosure
    journal: bool = True  # False: carries no journal text at all (the connection test)
    max_tokens: int = 1024  # the longest reply this purpose needs (see above)

    def text(self, lang: str) -> str:
        return self.ko if lang == "ko" else self.en

    def active(self, settings) -> bool:
        return self.when is None or settings is None or bool(self.when(settings))


PURPOSES: dict[str, Purpose] = {}


def register(p: Purpose) -> Purpose:
    if p.name in PURPOSES and PURPOSES[p.name].en != p.en:
        raise ValueError(f"purpose {p.name!r} is registered twice with different words")
    PURPOSES[p.name] = p
    return p


def purpose(name: str) -> Purpose:
    try:
        return PURPOSES[name]
    except KeyError:
        raise UnregisteredPurpose(f"no registered purpose {name!r}: register it in core/llm/purposes.py") from None


def app_purposes() -> list[Purpose]:
    return [p for p in PURPOSES.values() if p.app]


register(Purpose(
    "extraction",
    "Each entry you write (not private ones), after you save it, with the few entries before it and the running "
    "summary, to find the facts worth remembering. Entries you edit or move are read again.",
    "저장한 기록(비공개 제외)과 그 앞의 몇 편, 지금까지의 요약을 보내 기억할 만한 사실을 찾아요. 고치거나 날짜를 옮긴 기록은 "
    "다시 읽어요.",
    ("memorising an entry", "reading an edited or moved entry again", "building memories of an import",
     "procedural memories (add API)"), max_tokens=1536))
register(Purpose(
    "prefill",
    "With an AI model on this computer or your own network: once memoir has read what you wrote, the beginning of "
    "the next entry's reading (the summary and the few entries before it, not private ones), so the model has read "
    "it before you write again and your next entry is remembered sooner.",
    "이 컴퓨터나 내 네트워크의 AI 모델이면: 쓴 기록을 다 읽은 뒤 다음 기록을 읽을 때의 앞부분(요약과 그 앞의 몇 편, 비공개 제외)을 "
    "미리 보내요. 다음에 쓸 때는 모델이 이미 읽어 두어서 더 빨리 기억해요.",
    ("memorising an entry (a model server nearby)",), when=lambda st: is_nearby(st.llm_base_url), max_tokens=1))
register(Purpose(
    "update",
    "The facts found and the memories most like them, so the AI can decide to add, update or forget a memory.",
    "찾은 사실과 가장 비슷한 기억들을 보내 새로 기억할지, 고칠지, 잊을지 정하게 해요.",
    ("memorising an entry",), max_tokens=1536))
register(Purpose(
    "graph",
    "With the memory graph on: the words of each entry you write and the names already known, to find the people, "
    "places and relations in it.",
    "기억 그래프가 켜져 있으면: 쓴 기록의 문장과 이미 아는 이름을 보내 사람·장소·관계를 찾아요.",
    ("memorising an entry (graph memory on)",), when=lambda st: st.graph_enabled, max_tokens=1536))
register(Purpose(
    "summary",
    "Every few entries, the latest entries (not private ones) and the previous summary, to keep the summary "
    "current.",
    "몇 편마다 최근 기록(비공개 제외)과 이전 요약을 보내 요약을 새로 써요.",
    ("the running summary",), max_tokens=1024))
register(Purpose(
    "answer",
    "When you chat or ask the companion about an entry: your message, recent entries, the summary and the "
    "memories found for it, to write the answer.",
    "대화하거나 기록에 대해 물어볼 때: 그 메시지, 최근 기록, 요약, 찾은 기억을 보내 답을 써요.",
    ("chat", "asking the companion about an entry", "memoir-cli chat"), max_tokens=1024))
register(Purpose(
    "letter",
    "At the end of a week or month with entries: that period's entries (not private ones), what changed in your "
    "memories and the plans ahead, to write the letter.",
    "기록이 있던 주나 달이 끝나면: 그 기간의 기록(비공개 제외), 달라진 기억, 앞으로의 계획을 보내 편지를 써요.",
    ("weekly and monthly letters", "writing a letter again"), max_tokens=1280))
register(Purpose(
    "followup",
    "A plan you wrote whose day has passed, to ask you gently how it went.",
    "날짜가 지난 계획 하나를 보내, 어떻게 됐는지 다정하게 묻는 질문을 만들어요.",
    ("follow-up questions",), max_tokens=256))
register(Purpose(
    "rerank",
    "With \"the connected AI picks the memories\" chosen in Search settings: your question and the memories found "
    "for it, to put the most helpful first.",
    "검색 설정에서 '연결된 AI가 기억을 고르기'를 고르면: 질문과 찾은 기억을 보내 도움이 되는 것을 앞에 두게 해요.",
    ("answering, with the LLM reranker chosen",), when=lambda st: st.search_reranker == "llm", max_tokens=512))
register(Purpose(
    "consolidation",
    "When you tidy your memories: groups of memories that say nearly the same thing, to merge each into one.",
    "기억을 정리할 때: 거의 같은 말을 하는 기억 묶음을 보내 하나로 합쳐요.",
    ("tidying memories",), max_tokens=768))
register(Purpose(
    "probe",
    "When connecting, and now and then after: test messages with no journal text (one word; a made-up memory to "
    "sort), to learn how the AI answers best.",
    "연결할 때와 가끔 그 뒤에: 일기 내용이 없는 시험 메시지(한 단어, 지어낸 기억 하나)를 보내 AI가 어떻게 답하는지 알아봐요.",
    ("connecting", "Test connection"), journal=False, max_tokens=200))
