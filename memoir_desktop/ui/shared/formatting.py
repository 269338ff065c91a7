"""Dates and times for display, in the UI language's conventions (QLocale default)."""

from __future__ import annotations

from datetime import date, datetime

from PySide6.QtCore import QDate, QDateTime, QLocale, QTime


def parse(value: str | datetime | None) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def short_time(when: datetime | str | None) -> str:
    when = parse(when)
    if when is None:
        return ""
    return QLocale().toString(QTime(when.hour, when.minute), QLocale.FormatType.ShortFormat)


def long_date(day: date) -> str:
    return QLocale().toString(QDate(day.year, day.month, day.day), QLocale.FormatType.LongFormat)


def short_date(when: date | datetime | str | None) -> str:
    if isinstance(when, str):
        when = parse(when)
    if when is None:
        return ""
    return QDate(when.year, when.month, when.day).toString("yyyy-MM-dd")


def date_time(when: datetime | str | None) -> str:
    when = parse(when)
    if when is None:
        return ""
    qdt = QDateTime(QDate(when.year, when.month, when.day), QTime(when.hour, when.minute, when.second))
    return QLocale().toString(qdt, "yyyy-MM-dd ") + short_time(when)
