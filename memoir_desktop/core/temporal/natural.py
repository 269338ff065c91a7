"""Absolute dates written the way people write them, in Korean or English.

The extractor sees relative times annotated with ISO dates ("어제 (2026-11-30)"); small models copy
the annotation into the fact ("오늘 (2026-12-01)은 …"). A memory should read like a sentence a person
wrote, with the date in words ("2026년 12월 1일은 …"); the span itself is kept in the memory's
time fields, so nothing is lost by rewriting the text.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from memoir_desktop.core.script import language_of
from memoir_desktop.core.temporal.relative import _scan

Span = tuple[date, date]
_ANNOTATION = re.compile(r"\s*\((\d{4})-(\d{2})-(\d{2})(?:\s*~\s*(\d{4})-(\d{2})-(\d{2}))?\)")
_EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
              "October", "November", "December")
_EN_LEAD = re.compile(r"\b(?:on|in|by|since|until|till|before|after|from|during|for|of|the)\s*$", re.I)


def _whole_month(a: date, b: date) -> bool:
    return a.day == 1 and a.year == b.year and a.month == b.month and b.day == calendar.monthrange(b.year, b.month)[1]


def _whole_year(a: date, b: date) -> bool:
    return (a.month, a.day, b.month, b.day) == (1, 1, 12, 31) and a.year == b.year


def phrase(a: date, b: date, lang: str) -> str:
    """'2026년 12월 1일', '2026년 11월 23일~29일', '2026년 11월', 'December 1, 2026', 'November 23–29, 2026'."""
    if lang == "ko":
        if a == b:
            return f"{a.year}년 {a.month}월 {a.day}일"
        if _whole_year(a, b):
            return f"{a.year}년"
        if _whole_month(a, b):
            return f"{a.year}년 {a.month}월"
        if a.year == b.year and a.month == b.month:
            return f"{a.year}년 {a.month}월 {a.day}일~{b.day}일"
        if a.year == b.year:
            return f"{a.year}년 {a.month}월 {a.day}일~{b.month}월 {b.day}일"
        return f"{a.year}년 {a.month}월 {a.day}일~{b.year}년 {b.month}월 {b.day}일"
    if a == b:
        return f"{_EN_MONTHS[a.month - 1]} {a.day}, {a.year}"
    if _whole_year(a, b):
        return str(a.year)
    if _whole_month(a, b):
        return f"{_EN_MONTHS[a.month - 1]} {a.year}"
    if a.year == b.year and a.month == b.month:
        return f"{_EN_MONTHS[a.month - 1]} {a.day}–{b.day}, {a.year}"
    if a.year == b.year:
        return f"{_EN_MONTHS[a.month - 1]} {a.day} – {_EN_MONTHS[b.month - 1]} {b.day}, {a.year}"
    return f"{_EN_MONTHS[a.month - 1]} {a.day}, {a.year} – {_EN_MONTHS[b.month - 1]} {b.day}, {b.year}"


def _english_lead(before: str, a: date, b: date) -> str:
    """'on', 'in' or 'the week of' where the sentence has no preposition before the date yet."""
    if _EN_LEAD.search(before):
        return ""
    if a == b:
        return "on "
    if _whole_month(a, b) or _whole_year(a, b):
        return "in "
    return "between " if (b - a).days != 6 else "in the week of "


def naturalize(text: str, today: date) -> tuple[str, list[Span]]:
    """`text` with each copied "(YYYY-MM-DD)" / "(YYYY-MM-DD~YYYY-MM-DD)" annotation and the relative
    expression before it replaced by the date in words; also returns the annotated spans."""
    lang = language_of(text)
    spans: list[Span] = []
    found = [(m.start(), m.end()) for m, _ in _scan(text, today)]
    out, last = [], 0
    for ann in _ANNOTATION.finditer(text):
        g = [int(x) if x else 0 for x in ann.groups()]
        try:
            a = date(g[0], g[1], g[2])
            b = date(g[3], g[4], g[5]) if g[3] else a
        except ValueError:
            continue
        if b < a:
            a, b = b, a
        spans.append((a, b))
        start = ann.start()
        # The relative expression the annotation belongs to ends right where the annotation starts.
        expr = next((s for s, e in found if e == start and s >= last), None)
        cut = expr if expr is not None else start
        before = text[last:cut]
        words = phrase(a, b, lang)
        if lang == "en" and expr is not None:
            lead = _english_lead(text[:cut], a, b)
            words = lead + (phrase(a, a, lang) if lead == "in the week of " else words)
            if not text[:cut].strip():
                words = words[:1].upper() + words[1:]
        out.append(before)
        out.append(words if expr is not None else f" ({words})")
        last = ann.end()
    if not spans:
        return text, []
    out.append(text[last:])
    return " ".join("".join(out).split()), spans
