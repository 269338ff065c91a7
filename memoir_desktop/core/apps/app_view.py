"""What another app (an MCP client) may see of the journal, decided here in core so no server
decides privacy itself: never a private entry, never a memory only private entries support (the
gate's own PrivacyLens), never a memory of a kind the user switched off on the profile page.

Both are read afresh at each question: an entry made private, or a category switched off in the
open app a second ago, counts for the server running beside it.
"""

from __future__ import annotations

from pathlib import Path

from memoir_desktop.core import config
from memoir_desktop.core.llm.gate import PrivacyLens
from memoir_desktop.core.pipeline import categories


def switched_off(home: Path) -> frozenset[str]:
    """The categories switched off now, read from the settings file (the app saves them there at once)."""
    return categories.blocked(config.load_settings(home, apply_env=False))


def switched_off_kind(home: Path, text: str) -> bool:
    """Whether a memory an app wants to add is of a kind the user asked memoir not to remember (the
    write path leaves such facts out of the journal's own memories too)."""
    return categories.categorize(text) in switched_off(home)


def visible_memories(engine, home: Path, memories: list[dict]) -> list[dict]:
    """The memory dicts that may leave, in their order (active ones only: a forgotten memory is forgotten)."""
    memories = [m for m in memories if m.get("state", "active") == "active"]
    hidden = PrivacyLens(engine).private_memories(m["id"] for m in memories)
    off = switched_off(home)
    return [m for m in memories if m["id"] not in hidden and categories.category_of(m) not in off]


def visible_entries(engine, entries: list[dict]) -> list[dict]:
    """The entry dicts that may leave: not private now. A companion's reply to a private entry
    stays out too, as it may repeat the entry's words."""
    lens = PrivacyLens(engine)
    hidden = lens.private_entries([e["id"] for e in entries] + [e["reply_to"] for e in entries if e.get("reply_to")])
    return [e for e in entries if e["id"] not in hidden and e.get("reply_to") not in hidden]
