"""On This Day: what the user wrote, and what memoir remembered, on the same date one month ago and
one, two, … years ago ("1년 전 오늘"). Offline: entries and memories only, no LLM."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlmodel import Session, col, func, select

from memoir_desktop.core.storage.models import Entry, Memory
from memoir_desktop.core.storage.store import memory_dict

MAX_YEARS = 30
SNIPPET_CHARS = 160


def looking_back(day: date, max_years: int = MAX_YEARS) -> list[tuple[int, int, date]]:
    """(months ago, years ago, date): one month back, then each year back (a date that does not
    exist that year — 29 February, 31 April — is left out rather than moved)."""
    out: list[tuple[int, int, date]] = []
    y, m = (day.year, day.month - 1) if day.month > 1 else (day.year - 1, 12)
    try:
        out.append((1, 0, date(y, m, day.day)))
    except ValueError:
        pass
    for years in range(1, max_years + 1):
        try:
            out.append((0, years, date(day.year - years, day.month, day.day)))
        except ValueError:
            continue
    return out


def on_this_day(s: Session, user_id: str, day: date) -> list[dict]:
    """The past dates that have something, nearest first: {date, months_ago, years_ago, entries, memories}."""
    back = looking_back(day)
    wanted = [d.isoformat() for _, _, d in back]
    entries = s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.role) == "user",
                                         col(Entry.kind) == "entry", col(Entry.deleted_at).is_(None),
                                         func.date(Entry.created_at).in_(wanted))
                     .order_by(col(Entry.created_at))).all()
    by_day: dict[date, list[Entry]] = {}
    for e in entries:
        by_day.setdefault(e.created_at.date(), []).append(e)
    out = []
    for months, years, d in back:
        start = datetime(d.year, d.month, d.day)
        end = start + timedelta(days=1)
        # What memoir remembered of that day: facts about it (a span of a week at most), or recorded then.
        mems = s.exec(select(Memory).where(
            col(Memory.user_id) == user_id, col(Memory.state) == "active",
            ((col(Memory.about_start) < end) & (col(Memory.about_end) >= start) & col(Memory.recurrence).is_(None))
            | ((col(Memory.created_at) >= start) & (col(Memory.created_at) < end)))).all()
        mems = [m for m in mems if m.about_start is None or m.about_end is None
                or (m.about_end - m.about_start) <= timedelta(days=7)]
        if not by_day.get(d) and not mems:
            continue
        out.append({"date": d.isoformat(), "months_ago": months, "years_ago": years,
                    "entries": [{"id": e.id, "created_at": e.created_at.isoformat(), "snippet": _snippet(e.content)}
                                for e in by_day.get(d, [])],
                    "memories": [memory_dict(m) for m in mems]})
    return out


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS - 1].rstrip() + "…"
