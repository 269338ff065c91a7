"""Reflection: what memoir gives back to reflect with. On This Day (on_this_day), follow-ups on
plans whose date has passed (followups), weekly and monthly letters (letters), and the profile of
what memoir knows, by category, with the categories the user asked it not to remember (categories).

Everything here works offline; where an LLM is connected it only phrases (a follow-up's question,
a letter), and the offline text stands when it fails. Pure Python, no Qt.
"""

from __future__ import annotations

import re

from memoir_desktop.core.script import HANGUL

_LATIN = re.compile(r"[A-Za-z]")


def mostly_language(texts) -> str:
    """"ko" when the texts are mostly Korean, else "en" (a letter is written in the user's language)."""
    if isinstance(texts, str):
        texts = [texts]
    ko = en = 0
    for t in texts:
        ko += len(HANGUL.findall(t))
        en += len(_LATIN.findall(t))
    # A Hangul syllable carries about as much as three Latin letters.
    return "ko" if ko * 3 >= en and ko else "en"
