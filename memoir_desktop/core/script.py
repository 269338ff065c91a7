"""Which script a text is written in: Korean (Hangul syllables) or not.

Many parts ask it (the language of a reply, of a question, of a fact; whether Kiwi should read a
sentence); one definition keeps them agreeing on what counts as Korean.
"""

from __future__ import annotations

import re

HANGUL = re.compile(r"[가-힣]")  # the precomposed syllables U+AC00–U+D7A3


def has_hangul(text: str | None) -> bool:
    return bool(text) and HANGUL.search(text) is not None


def language_of(text: str | None) -> str:
    """"ko" for a text with any Hangul syllable, else "en" (the two languages memoir writes in)."""
    return "ko" if has_hangul(text) else "en"
