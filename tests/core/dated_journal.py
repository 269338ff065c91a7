"""A journal of dated lines for search tests: each line a memory recorded at 21:00 of its day."""

from __future__ import annotations

from datetime import datetime


def write(mem, rows: list[tuple[str, str]], user_id: str = "me"):
    for day, text in rows:
        mem.add(text, infer=False, user_id=user_id, timestamp=datetime.fromisoformat(day).replace(hour=21))
    return mem


def top(mem, question: str, now: datetime, *, user_id: str = "me", limit: int = 5) -> list[str]:
    """The texts search ranks first for `question` asked at `now`."""
    return [h["memory"] for h in mem.search(question, user_id=user_id, limit=limit, now=now)["results"]]
