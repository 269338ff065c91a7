"""Symbols used in labels, with plain fallbacks where the system has no colour-emoji font.

A missing emoji font draws a hollow box, which reads as a bug; a plain symbol does not.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QFontDatabase


@cache
def has_emoji_font() -> bool:
    return any("emoji" in family.lower() for family in QFontDatabase.families())


def brain() -> str:
    return "🧠" if has_emoji_font() else "◆"


def hold() -> str:
    """Marks a change held for the user's confirmation."""
    return "⏸" if has_emoji_font() else "‖"


def lock() -> str:
    """Marks a private entry (beside the word, so the mark reads without the glyph too)."""
    return "🔒" if has_emoji_font() else ""


OP_SYMBOLS = {"ADD": "＋", "UPDATE": "↻", "DELETE": "✕", "NOOP": "·", "RESTORE": "↺", "CONSOLIDATE": "⇉"}
