"""Which memory cards to show, in which order (pure Python, testable without Qt).

Text search merges two things: a plain substring match (instant, exact) and the core's
hybrid search ranking (Korean morphemes, meaning), which arrives a moment later. Ranked
hits come first, in rank order; substring-only matches follow, newest first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

STATES = ("active", "forgotten", "all")
SOURCES = ("all", "journal", "manual", "edited")


@dataclass
class MemoryFilter:
    text: str = ""
    state: str = "active"
    source: str = "all"
    since: date | None = None
    until: date | None = None


def _day(value: str | None) -> date | None:
    return datetime.fromisoformat(value).date() if value else None


def in_range(memory: dict, since: date | None, until: date | None) -> bool:
    """Recorded in the range, or about a span that overlaps it."""
    if since is None and until is None:
        return True
    lo, hi = since or date.min, until or date.max
    recorded = _day(memory.get("created_at"))
    if recorded and lo <= recorded <= hi:
        return True
    about = memory.get("about")
    if about:
        start, end = date.fromisoformat(about[0]), date.fromisoformat(about[1])
        return start <= hi and end >= lo
    return False


def keep(memory: dict, f: MemoryFilter) -> bool:
    forgotten = memory.get("state") != "active"
    if f.state == "active" and forgotten or f.state == "forgotten" and not forgotten:
        return False
    if f.source == "journal" and memory.get("source_entry_id") is None:
        return False
    if f.source == "manual" and memory.get("source_entry_id") is not None:
        return False
    if f.source == "edited" and not memory.get("user_edited"):
        return False
    return in_range(memory, f.since, f.until)


def apply_filter(memories: list[dict], f: MemoryFilter, ranked_ids: list[str] | None = None) -> list[dict]:
    kept = [m for m in memories if keep(m, f)]
    newest_first = sorted(kept, key=lambda m: m.get("updated_at") or "", reverse=True)
    needle = f.text.strip().casefold()
    if not needle:
        return newest_first
    by_id = {m["id"]: m for m in kept}
    ranked = [by_id[i] for i in dict.fromkeys(ranked_ids or []) if i in by_id]
    seen = {m["id"] for m in ranked}
    substring = [m for m in newest_first if m["id"] not in seen and needle in (m.get("memory") or "").casefold()]
    return ranked + substring
