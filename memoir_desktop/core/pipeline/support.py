"""Where the words of a fact come from: the entry being read, or something else the model was shown.

Mem0 reads facts from the new exchange; the running summary and the last messages are there to make it
understood, not to be read again. A small local model does not keep that apart (seen with Qwen2.5
0.5B on two cores: "매주 금요일 저녁에는 엄마랑 통화한다" gave back two facts of the entries before it,
and "My brother Sam is getting married in June" was stored as "서울 마포구로 이사했다", the update
prompt's own example). A fact whose words are the new entry's is kept, however it is phrased; one
whose words are another message's or the prompt's, and not the entry's, is not the entry's fact.
The words are content words (Kiwi's morphemes, stemmed English), less words of time and numbers:
dates are written into facts by the time rules, not copied from anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.script import has_hangul
from memoir_desktop.core.search.versions import without_time

OWN = 0.5  # at least this share of the fact's words in the new messages: the entry's own fact
COPIED = 0.8  # this share in one other source (and not the entry's): copied from there


def words(text: str) -> set[str]:
    return {t for t in tokenize(without_time(text or "")) if not any(c.isdigit() for c in t)}


def share(own: set[str], found: set[str]) -> float | None:
    """The share of a text's words (`own`) found among `found` (None: no words to judge)."""
    return len(own & found) / len(own) if own else None


def copied(fact: set[str], new: set[str], others: Iterable[set[str]]) -> bool:
    """The fact's words are one of `others`' and not the new messages' (all given as words())."""
    if len(fact) < 2:
        return False
    in_new = share(fact, new)
    if in_new is None or in_new >= OWN:
        return False
    return any((share(fact, other) or 0.0) >= COPIED for other in others)


def the_prompts(fact: set[str], new: set[str], prompt: set[str]) -> bool:
    """Every word of the fact is the prompt's and none the entry's: the prompt's own example given back,
    however short (SmolLM2-135M answered "매주 금요일" for an entry about a talk at work). A short fact
    whose one word is an earlier message's is left to `copied`: the context is there to resolve "거기"."""
    return bool(fact) and not fact & new and fact <= prompt


def grounded(text: str, sources: list[str]) -> bool:
    """The model's wording of a memory says what its sources say (the fact, the memory it updates);
    a wording with no words at all ("...") says nothing."""
    found = share(words(text), set().union(*(words(source) for source in sources)))
    return found is not None and found >= OWN


def foreign(fact: str, new: list[str]) -> bool:
    """Korean in a fact of messages that have none: the facts are written in the diarist's language
    (the prompt says so), and SmolLM2-135M answered "고마다" for an English entry about peanuts."""
    return has_hangul(fact) and not any(has_hangul(text) for text in new)
