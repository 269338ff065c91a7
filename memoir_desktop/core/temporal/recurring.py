"""Time that recurs ("매주 금요일", "주말마다", "매일 아침", "격주로", "every Friday", "on weekdays").

A habit is not a date: "매주 금요일에 요가를 해" must not become "금요일 (2026-03-13)". Such
expressions are found here, kept as a small RRULE (RFC 5545) subset on the memory, and blocked
from the relative-date scanner (relative.py), so no single day is attached to them.

Rules written: FREQ=DAILY | WEEKLY | MONTHLY | YEARLY, with INTERVAL=n (격주, every other week),
BYDAY=MO,TU,.. (weekdays) and BYMONTHDAY=n (매달 15일).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

DAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_KO_DAYS = "월화수목금토일"
_EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAYS_ALL = frozenset(range(5))
WEEKEND = frozenset({5, 6})


@dataclass(frozen=True)
class Recurrence:
    text: str  # the expression as written
    start: int  # character offsets in the text
    end: int
    rule: str  # "FREQ=WEEKLY;BYDAY=FR"


def _rule(freq: str, *, days=(), interval: int = 1, monthday: int | None = None) -> str:
    parts = [f"FREQ={freq}"]
    if interval > 1:
        parts.append(f"INTERVAL={interval}")
    if days:
        parts.append("BYDAY=" + ",".join(DAY_CODES[d] for d in sorted(set(days))))
    if monthday:
        parts.append(f"BYMONTHDAY={monthday}")
    return ";".join(parts)


def _ko_days(s: str) -> list[int]:
    return [_KO_DAYS.index(c) for c in s if c in _KO_DAYS]


_KO_WD_LIST = rf"(?P<days>[{_KO_DAYS}](?:\s*[,·/]?\s*[{_KO_DAYS}])*)(?:요일|욜)"
_KO_BIWEEKLY = r"격주(?:로)?|(?:2|두)\s*주\s*(?:마다|에\s*한\s*번)"
_EN_WD = "|".join(_EN_DAYS)
_EN_WD_PLURAL = "|".join(d + "s" for d in _EN_DAYS)


def _ko_weekly(m: re.Match) -> str:
    g = m.groupdict()
    days = _ko_days(g.get("days") or "")
    return _rule("WEEKLY", days=days, interval=2 if g.get("biweekly") else 1)


def _en_weekly(m: re.Match) -> str:
    g = m.groupdict()
    return _rule("WEEKLY", days=_en_days(m.group(0)), interval=2 if g.get("other") else 1)


def _en_days(text: str) -> list[int]:
    low = text.lower()
    return [i for i, d in enumerate(_EN_DAYS) if re.search(rf"\b{d}s?\b", low)]


# (pattern, rule builder). Order matters only for ties: the scanner keeps the longest match.
_PATTERNS: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    # 매주 금요일(마다), 매주 월·수·금요일, 격주 금요일, 격주로, 2주마다, 금요일마다, 월수금마다
    (re.compile(rf"(?:매\s*주|주마다)(?:\s*{_KO_WD_LIST})?(?:\s*마다)?"), _ko_weekly),
    (re.compile(rf"(?P<biweekly>{_KO_BIWEEKLY})(?:\s*{_KO_WD_LIST})?(?:\s*마다)?"), _ko_weekly),
    (re.compile(rf"{_KO_WD_LIST}\s*마다"), _ko_weekly),
    (re.compile(rf"(?P<days>[{_KO_DAYS}]{{2,}})\s*마다"), _ko_weekly),
    (re.compile(r"주말마다|매\s*주말|주말이면\s*(?:항상|늘)|주말엔\s*(?:항상|늘)"), lambda m: _rule("WEEKLY", days=WEEKEND)),
    (re.compile(r"평일마다|매\s*평일|평일(?:에는|엔)\s*(?:항상|늘|매일)|주중(?:에는|엔)\s*(?:항상|늘|매일)"),
     lambda m: _rule("WEEKLY", days=WEEKDAYS_ALL)),
    (re.compile(r"매일(?:같이)?(?:\s*(?:아침|점심|저녁|밤|새벽))?|날마다|하루도\s*빠짐없이|(?:아침|저녁|밤|새벽|점심)마다"
                r"|하루에\s*(?:한|두|세|\d+)\s*(?:번|잔|시간|끼)"), lambda m: _rule("DAILY")),
    (re.compile(r"(?:매달|매월|달마다|한\s*달에\s*(?:한|두|\d+)\s*번)(?:\s*(?P<md>[12]?\d|3[01])\s*일)?"),
     lambda m: _rule("MONTHLY", monthday=int(m["md"]) if m["md"] else None)),
    (re.compile(r"매년|매해|해마다|일\s*년에\s*한\s*번|1\s*년에\s*한\s*번"), lambda m: _rule("YEARLY")),
    (re.compile(r"일주일에\s*(?:한|두|세|네|\d+)\s*번|주\s*(?:[1-7]|한|두|세|네)\s*(?:회|번)"), lambda m: _rule("WEEKLY")),
    # English
    (re.compile(rf"\b(?:every|each)\s+(?P<other>other\s+)?(?:{_EN_WD})(?:\s*(?:,|and|&)\s*(?:{_EN_WD}))*\b"
                rf"|\b(?:on\s+)?(?:{_EN_WD_PLURAL})(?:\s*(?:,|and|&)\s*(?:{_EN_WD_PLURAL}))*\b", re.I), _en_weekly),
    (re.compile(r"\b(?:every\s+weekend|on\s+weekends|weekends)\b", re.I), lambda m: _rule("WEEKLY", days=WEEKEND)),
    (re.compile(r"\b(?:every\s+weekday|on\s+weekdays|weekdays)\b", re.I), lambda m: _rule("WEEKLY", days=WEEKDAYS_ALL)),
    (re.compile(r"\b(?:every\s+(?:single\s+)?(?:day|morning|evening|night|afternoon)|daily|each\s+day"
                r"|(?:once|twice|\d+\s+times)\s+a\s+day)\b", re.I), lambda m: _rule("DAILY")),
    (re.compile(r"\b(?:every\s+other\s+week|every\s+(?:two|2)\s+weeks|biweekly|fortnightly)\b", re.I),
     lambda m: _rule("WEEKLY", interval=2)),
    (re.compile(r"\b(?:every\s+week|weekly|once\s+a\s+week|twice\s+a\s+week|\d+\s+times\s+a\s+week)\b", re.I),
     lambda m: _rule("WEEKLY")),
    (re.compile(r"\b(?:every\s+month|monthly|once\s+a\s+month)\b", re.I), lambda m: _rule("MONTHLY")),
    (re.compile(r"\b(?:every\s+year|yearly|annually|once\s+a\s+year)\b", re.I), lambda m: _rule("YEARLY")),
]


def find(text: str) -> list[Recurrence]:
    """Recurring expressions in `text`, in order, longest first where they overlap."""
    found: list[Recurrence] = []
    for pattern, build in _PATTERNS:
        for m in pattern.finditer(text):
            if m.end() > m.start():
                found.append(Recurrence(m.group(0).strip(), m.start(), m.end(), build(m)))
    found.sort(key=lambda r: (r.start, -(r.end - r.start)))
    out: list[Recurrence] = []
    for r in found:
        if out and r.start < out[-1].end:
            continue
        out.append(r)
    return out


def rule_of(text: str) -> str | None:
    """The recurrence a fact states (the first one), or None."""
    found = find(text)
    return found[0].rule if found else None


def parts(rule: str) -> dict[str, str]:
    return dict(p.split("=", 1) for p in rule.split(";") if "=" in p)


def weekdays(rule: str) -> frozenset[int] | None:
    """The weekdays a rule falls on (0 = Monday); None when it is not tied to weekdays."""
    p = parts(rule)
    if p.get("FREQ") == "DAILY":
        return frozenset(range(7))
    if "BYDAY" in p:
        return frozenset(DAY_CODES.index(c) for c in p["BYDAY"].split(",") if c in DAY_CODES)
    return None


def falls_on(rule: str, day: date) -> bool:
    """Whether the habit can fall on `day` (a weekly habit without a day falls on any day)."""
    p = parts(rule)
    freq = p.get("FREQ")
    if freq == "MONTHLY" and "BYMONTHDAY" in p:
        return day.day == int(p["BYMONTHDAY"])
    days = weekdays(rule)
    return days is None or day.weekday() in days


_KO_FREQ = {"DAILY": "매일", "WEEKLY": "매주", "MONTHLY": "매달", "YEARLY": "매년"}
_EN_FREQ = {"DAILY": "every day", "WEEKLY": "every week", "MONTHLY": "every month", "YEARLY": "every year"}
_EN_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def describe(rule: str, lang: str = "en") -> str:
    """'every Friday', '격주 금요일', '주말마다', 'on weekdays', '매달 15일'."""
    p = parts(rule)
    freq, days = p.get("FREQ", "WEEKLY"), weekdays(rule)
    biweekly = p.get("INTERVAL") == "2"
    if lang == "ko":
        if freq == "WEEKLY" and days == WEEKEND:
            return "격주 주말" if biweekly else "주말마다"
        if freq == "WEEKLY" and days == WEEKDAYS_ALL:
            return "평일마다"
        if freq == "WEEKLY" and days:
            names = "·".join(_KO_DAYS[d] for d in sorted(days)) + "요일"
            return f"격주 {names}" if biweekly else f"매주 {names}"
        if freq == "MONTHLY" and "BYMONTHDAY" in p:
            return f"매달 {p['BYMONTHDAY']}일"
        return "격주로" if biweekly else _KO_FREQ.get(freq, "반복")
    if freq == "WEEKLY" and days == WEEKEND:
        return "every other weekend" if biweekly else "on weekends"
    if freq == "WEEKLY" and days == WEEKDAYS_ALL:
        return "on weekdays"
    if freq == "WEEKLY" and days:
        names = ", ".join(_EN_NAMES[d] for d in sorted(days))
        return f"every other {names}" if biweekly else f"every {names}"
    if freq == "MONTHLY" and "BYMONTHDAY" in p:
        n = int(p["BYMONTHDAY"])
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"every month on the {n}{suffix}"
    return "every other week" if biweekly else _EN_FREQ.get(freq, "repeatedly")
