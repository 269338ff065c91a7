"""Does a question ask how things are now? ("요즘 어디 살아?", "Where do I work?", "아직도 담배 피워?")

Such a question wants the newest of several memories about one thing (a move, a job, a habit that
changed). Markers of the present decide when present; otherwise a question with no past tense in
it asks about the present state ("어디 살아?", "What do I drink?"), one with a past tense does not
("어디 살았었지?", "Where did I live?").
"""

from __future__ import annotations

import re

from memoir_desktop.core.lexical.tokens import morphemes
from memoir_desktop.core.script import has_hangul

_KO_NOW = re.compile(r"요즘|요새|지금|아직|현재|이제는|이제|근래|최근에는")
_EN_NOW = re.compile(r"\b(?:now|these\s+days|nowadays|still|currently|current|lately|at\s+the\s+moment|anymore"
                     r"|present|today)\b", re.I)
# Korean past tense (었/았/였/했 + endings), "used to" forms, and words that point back in time.
_KO_PAST = re.compile(r"[었았였했됐갔왔봤샀났줬썼]|던|예전|옛날|전에|전엔|이전|(?:^|\s)전\s|작년|재작년|지난|그때|당시|처음")
_EN_PAST = re.compile(r"\b(?:did|was|were|had|used\s+to|ago|last|before|previous(?:ly)?|earlier|first|once|"
                      r"when\s+did|\w+ed)\b", re.I)
_KO_QUESTION = re.compile(r"\?|(?:니|냐|지|까|야|어|아|나|래|데|죠|요|가)\s*[?.!~]*\s*$")
_EN_QUESTION = re.compile(r"\?\s*$|^\s*(?:what|where|who|how|which|do|does|am|is|are|have|has)\b", re.I)


def asks_about_now(text: str) -> bool:
    t = (text or "").strip()
    if not t:
        return False
    if has_hangul(t):
        if _KO_NOW.search(t):
            return True
        return bool(_KO_QUESTION.search(t)) and not _KO_PAST.search(t) and not _korean_past(t)
    if _EN_NOW.search(t):
        return True
    return bool(_EN_QUESTION.search(t)) and not _EN_PAST.search(t)


_KO_FIRST = re.compile(r"처음|첫\s?|맨\s?먼저")
_EN_FIRST = re.compile(r"\b(?:first|originally|at\s+the\s+start)\b", re.I)
_KO_BEFORE = re.compile(r"전에|전엔|전까지|이전|예전|옛날|(?:^|\s)전\s")
_EN_BEFORE = re.compile(r"\b(?:before|previous(?:ly)?|used\s+to|prior|former|ex-?)\b", re.I)


def asks_about_before(text: str) -> str | None:
    """A question about an earlier version of something: "first" (처음 살던 곳, my first car) or
    "before" (아이폰 쓰기 전엔, before Denver, 예전에, 전 여친); None otherwise."""
    t = (text or "").strip()
    if _KO_FIRST.search(t) or _EN_FIRST.search(t):
        return "first"
    if _KO_BEFORE.search(t) or _EN_BEFORE.search(t):
        return "before"
    return None


def past_ending(form: str, tag: str) -> bool:
    """Kiwi's past-tense pre-final ending (걸렸어: 걸리 + 었)."""
    return tag == "EP" and form in ("었", "았", "였", "었었", "았었")


def _korean_past(text: str) -> bool:
    """Past as Kiwi reads it, where a list of syllables misses forms: a past-tense ending (걸렸어:
    걸리 + 었), or what one has done ("잡은 적 있지?": a past adnominal before 적)."""
    found = morphemes(text)
    for (form, tag), after in zip(found, [*found[1:], ("", "")]):
        if past_ending(form, tag):
            return True
        if tag == "ETM" and form in ("은", "ᆫ", "ㄴ") and after == ("적", "NNB"):
            return True
    return False
