"""What the user hands the core, checked: text and times, and the errors fit to show them."""

from __future__ import annotations

import re
from datetime import date, datetime

from memoir_desktop.core.storage.models import now

MAX_ENTRY_CHARS = 200_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class InvalidInput(ValueError):
    """Input refused with a message fit to show the user; nothing was stored."""


class NotFound(KeyError):
    def __init__(self, what, kind: str = "memory"):
        super().__init__(what)
        self.kind = kind

    def __str__(self) -> str:
        return f"no {self.kind} with id {self.args[0]!r}"


def entry_text(text) -> str:
    """An entry as the diarist wrote it: exactly, its indentation and its blank lines at either end too (a
    poem, a letter's last line); only control characters go. Empty or blank: refused."""
    if not isinstance(text, str):
        raise InvalidInput("an entry must be text")
    text = _CONTROL.sub("", text)
    if not text.strip():
        raise InvalidInput("the entry is empty: nothing to save")
    if len(text) > MAX_ENTRY_CHARS:
        raise InvalidInput(
            f"the entry is {len(text):,} characters; the limit is {MAX_ENTRY_CHARS:,}. "
            "Split it into several entries."
        )
    return text


def clean_text(text) -> str:
    """A line of text as a fact or a message to the model: control characters out, trimmed."""
    if not isinstance(text, str):
        raise InvalidInput("an entry must be text")
    text = _CONTROL.sub("", text).strip()
    if not text:
        raise InvalidInput("the entry is empty: nothing to save")
    if len(text) > MAX_ENTRY_CHARS:
        raise InvalidInput(
            f"the entry is {len(text):,} characters; the limit is {MAX_ENTRY_CHARS:,}. "
            "Split it into several entries."
        )
    return text


def clean_reply(text: str) -> str:
    """An answer as it is kept in the journal: control characters out (the LLM's text is not the user's)."""
    return _CONTROL.sub("", text).strip() or "…"


def parse_time(value) -> datetime:
    if value is None:
        return now()
    if isinstance(value, datetime):
        return value.replace(tzinfo=None) if value.tzinfo is None else value.astimezone().replace(tzinfo=None)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, 12)
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value)
    text = str(value).strip()
    try:
        return parse_time(date.fromisoformat(text))  # a day alone: noon, as the app back-dates (composer.py)
    except ValueError:
        pass
    try:
        return parse_time(datetime.fromisoformat(text))
    except ValueError as exc:
        raise InvalidInput(f"not a date or time: {value!r} (use YYYY-MM-DD or YYYY-MM-DDTHH:MM)") from exc
