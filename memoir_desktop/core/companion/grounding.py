"""The companion says only what it knows.

A small local model, given memories that do not answer the question, dresses one up as the answer
(the dog's name given for the cat's) or invents one. Three guards, none of them a list of topics:

- `bearing`: for a question about the diarist's own life, only the memories that share the
  question's own subject reach the prompt. The subject is what the question names that is rare among
  the candidates the search found ("고양이" in "내 고양이 이름이 뭐야?", not "이름", which every
  pet's name memory has); a memory found by meaning alone (no shared word: a paraphrase, another
  language) stays when the search ranked it first and no candidate shares a word.
- With nothing that bears on the question, the answer says so, in the question's language, without
  asking the model to guess (`nothing_yet`).
- `unsupported`: the names a reply states (Kiwi's proper nouns, capitalised English words), and for an
  answer to such a question its nouns and numbers too, must stand in what the model was given (the
  question, the memories, recent messages); a reply that states others is replaced by an honest one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memoir_desktop.core.lexical.tokens import morphemes, tokenize
from memoir_desktop.core.script import has_hangul
from memoir_desktop.core.search import neighbours
from memoir_desktop.core.search.versions import without_time

# A question: a question mark, or a Korean question ending or an English question word opening it.
_QUESTION = re.compile(
    r"\?|？|(?:뭐|뭘|무엇|어디|언제|누구|누가|몇|왜|어떻게|어땠|무슨|어느|얼마)|"
    r"(?:니|냐|나요|까|까요|지|죠|야|래|는지)\s*[.!~…]*\s*$|"
    r"^\s*(?:what|where|when|who|whom|whose|which|how|why|do|does|did|am|is|are|was|were|have|has|can|could)\b",
    re.I)
# About the diarist: first person, or "you remember / did I tell you".
_ABOUT_ME = re.compile(r"(?<![가-힣])(?:나|내|제|저|우리)(?![가-힣])|나는|내가|내\s|제가|저는|우리|"
                       r"\b(?:i|me|my|mine|we|our|us)\b|기억|remember", re.I)
# Words of the question that ask rather than name (they are in every question about anything).
_ASKING = frozenset({"뭐", "무엇", "어디", "언제", "누구", "몇", "왜", "어떻게", "무슨", "어느", "얼마", "기억",
                     "what", "where", "when", "who", "which", "how", "why", "rememb", "tell", "know"})
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)(?<!\n)\b([A-Z][a-zA-Z'-]+)")
_NUMBER = re.compile(r"\d+")
# Capitalised words that name no fact about the diarist (days, months, the app).
_CALENDAR = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                       "february", "march", "april", "may", "june", "july", "august", "september", "october",
                       "november", "december", "memoir", "ai", "i", "i'm", "i've", "i'll", "i'd", "ok", "okay"})

NOTHING_YET = {
    "ko": "아직 그 이야기는 들은 적이 없어요. 일기에 적어 주시면 기억해 둘게요.",
    "en": "You haven't told me about that yet. If you write about it, I'll remember it.",
}
HONEST_REPLY = {
    "ko": "기록해 두었어요. 더 이야기하고 싶은 게 있으면 들려주세요.",
    "en": "I've saved that. Tell me more whenever you like.",
}


def asks_about_me(text: str) -> bool:
    """A question about the diarist's own life ("내 고양이 이름이 뭐야?", "what did I tell you about my
    knee?"), which memories answer, as opposed to a day told or a feeling shared. A Korean question
    often leaves its subject unsaid ("어디 여행 갔었지?"): in the diarist's own journal it is theirs."""
    t = (text or "").strip()
    if not t or not _QUESTION.search(t):
        return False
    return has_hangul(t) or bool(_ABOUT_ME.search(t))


def _words(text: str) -> set[str]:
    return {w for w in tokenize(text) if w not in _ASKING}


_OWNER = frozenset({"나", "저", "우리", "저희"})
_MY = re.compile(r"\b(?:my|our)\s+(?:(?:first|last|old|new|current|previous|favou?rite|younger|older|little|big)\s+)*"
                 r"([a-z][a-z'-]+)", re.I)


def owned(question: str) -> str | None:
    """What the question asks about of the diarist's: the noun after "내 / 제 / 우리" ("내 고양이 이름" ->
    고양이) or "my / our" ("my sister's job" -> sister), as the analyser reads it; None without one."""
    morphs = morphemes(question)
    for i, (form, tag) in enumerate(morphs):
        if tag == "NP" and form in _OWNER:
            for f, t in morphs[i + 1:i + 4]:
                if t in ("NNG", "NNP"):
                    return f
                if t not in ("JKG", "MM", "XPN"):
                    break
    found = _MY.search(question)
    if found:
        words = tokenize(found.group(1))
        return words[0] if words else None
    return None


def bearing(question: str, memories: list[dict], doc_freq: Callable[[set[str]], tuple[int, dict[str, int]]],
            close: Callable[[dict], bool] = lambda _m: True, entries: bool = False) -> list[dict]:
    """The memories that bear on `question`, in their order.

    The question's subject is what it asks about of the diarist's (`owned`: "고양이" in "내 고양이 이름이
    뭐야?", not "이름", which every pet's name memory has): those that name it bear on the question, and
    when the journal never mentions it (`doc_freq`, BM25Index.doc_freq) none does. Without one, it is the
    word of the question, among those the found memories have, that the journal mentions least. With no
    word of the question in any of them, the search's best stands for a paraphrase or a question in
    another language when `close` (as near as what the search field would list). With `entries`, the
    lines written down with one that bears on it come too (_with_their_entries)."""
    kept = _bearing(question, memories, doc_freq, close)
    return _with_their_entries(kept, memories) if entries and kept else kept


def _with_their_entries(kept: list[dict], memories: list[dict]) -> list[dict]:
    """A line of the journal entry that bears on the question bears on it too, at most neighbours.PER
    an entry (search/neighbours.py): for "Who was with me when I sprained my ankle?", "Dana drove me to
    urgent care" comes with "Sprained my ankle on the trail", which alone has the question's words.
    Only lines with an entry: lines the API stored at one moment may be about anything."""
    def entry(m: dict):
        return m.get("source_entry_id")

    ids = {id(m) for m in kept}
    ids |= {id(m) for m in neighbours.take((m for m in memories if id(m) not in ids), entry,
                                           {entry(m) for m in kept} - {None})}
    return [m for m in memories if id(m) in ids]


def _bearing(question: str, memories: list[dict], doc_freq, close: Callable[[dict], bool]) -> list[dict]:
    if not memories:
        return []
    timeless = without_time(question)
    asked = _words(timeless)
    have = [(m, _words(m.get("memory") or m.get("content") or "")) for m in memories]
    found = {w for w in asked if any(w in words for _m, words in have)}
    if not found:  # no word in common at all: another language, or a paraphrase
        return [memories[0]] if close(memories[0]) else []
    _n, df = doc_freq(asked)
    subject_word = owned(timeless)
    if subject_word is not None and subject_word in asked:
        if df.get(subject_word, 0) == 0:
            return []  # the journal never mentions it: nothing answers
        return [m for m, words in have if subject_word in words]
    least = min(df.get(w, 0) for w in found)
    subject = {w for w in found if df.get(w, 0) == least}
    return [m for m, words in have if words & subject]


_MARKUP = re.compile(r"<[^>]*>|\]\([^)]*\)|[*_#`>\[\]!~|]+")


def _names(text: str) -> set[str]:
    """Proper nouns a text states (Korean: Kiwi's NNP; English: capitalised words not opening a
    sentence). Markdown and tags go first: Kiwi reads "**굵게**" as a name."""
    text = _MARKUP.sub(" ", text)
    found = {form for form, tag in morphemes(text) if tag == "NNP"}
    found |= {w.lower() for w in _CAPITALISED.findall(text)} - _CALENDAR
    return found


def _nouns(text: str) -> set[str]:
    """Korean nouns (an English reply's words are not told apart from its verbs here: its names say it)."""
    return {form for form, tag in morphemes(text) if tag in ("NNG", "NNP", "SL")} if has_hangul(text) else set()


def unsupported(reply: str, sources: list[str], *, question: bool) -> set[str]:
    """What `reply` states that none of `sources` has: its names, and for an answer to a
    question about the diarist its nouns too. Empty when the reply keeps to what it was given."""
    given = "\n".join(sources)
    given_lower = given.lower()
    words = set(tokenize(given)) | {form for form, _t in morphemes(given)}
    out = {n for n in _names(reply) if n.lower() not in given_lower and n not in words}
    if question:
        # An answer's nouns and numbers are its claims (a number in advice to a day told is not).
        out |= {n for n in _nouns(reply) | set(_NUMBER.findall(reply)) if n not in words and n.lower() not in given_lower}
    return out
