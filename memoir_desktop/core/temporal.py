"""Relative time expressions -> absolute dates (placeholder until the temporal module lands)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime


@dataclass(frozen=True)
class TimeSpan:
    text: str
    start: date
    end: date


def resolve(text: str, now: datetime) -> list[TimeSpan]:
    return []


def normalize(text: str, now: datetime) -> str:
    return text
