"""When the daily reminder to write is due (no Qt): at the chosen time, once a day, and not when
the day is already written."""

from __future__ import annotations

from datetime import date, datetime, time


def parse_time(text: str, default: time = time(21, 0)) -> time:
    try:
        hours, minutes = (int(x) for x in text.split(":"))
        return time(hours, minutes)
    except (ValueError, AttributeError):
        return default


def reminder_due(now: datetime, at: str, last_reminded: date | None, wrote_today: bool) -> bool:
    return now.time() >= parse_time(at) and last_reminded != now.date() and not wrote_today
