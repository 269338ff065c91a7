"""Relative time expressions (Korean and English) -> absolute dates.

``resolve`` finds every expression in order of appearance, ``normalize`` annotates them in place
("지난주 (2026-01-05~2026-01-11)에"), ``query_span`` gives the union span the search code filters on.

Conventions where language is vague (all spans inclusive, computed from ``now``'s date):

* Weeks are ISO weeks (Monday-Sunday). A bare weekday ("금요일에", "on Friday") and "이번 금요일" /
  "this Friday" are that day of the current week (a bare one in a sentence about the past that
  would fall after today is the one before, in one about the future before today the one after;
  a bare month likewise moves a year); "다음 금요일" / "next Friday" the day in next week;
  "지난 금요일" / "last Friday" the most recent one strictly before today; "오는 금요일" /
  "this coming Friday" the first one strictly after today. A bare "주말" is this week's weekend.
* 요즘 / 요새 / 최근 / 근래 / recently / lately / these days / nowadays: the 30 days ending today
  (today-29 .. today). Windows like "최근 3일", "지난 2주간", "the past 3 months" likewise end today
  and count today: N days = today-(N-1) .. today, N months = the day after the same date N months ago.
* Month parts: 초/초순/초반/early/beginning = 1-10, 중순/중반/mid/middle = 11-20,
  말/하순/후반/late/end = 21-last day; 말일 = the last day alone; bare 월초/월말 mean this month.
* Year parts: 초/연초/early = Jan-Mar, 중반/mid = Apr-Sep, 말/연말/late/end = Oct-Dec (so the three
  tile the year, like the month parts tile the month); 상반기 Jan-Jun, 하반기 Jul-Dec. Bare 연초/연말
  mean this year.
* A bare month ("3월에", "in March") is that month of this year; "지난 3월" / "last March" the most
  recent March strictly before this month, "오는 3월" / "next March" the first one strictly after.
  With a day ("지난 3월 5일", "last March 5") the comparison is against today instead. The news style
  "지난 5일" is the most recent 5th of a month strictly before today.
* Seasons: spring Mar-May, summer Jun-Aug, fall Sep-Nov, winter Dec-Feb. "<year> 겨울" is the winter
  beginning in December of that year. "지난 여름" / "last summer": the most recent one already ended;
  "다음 여름" / "next summer": the first one not yet begun; "이번 여름" / "this summer": this calendar
  year's, except that in January/February "이번 겨울" / "this winter" is the winter under way.
* 이맘때 / "this time last year": the same date that year +-14 days (Feb 29 -> Feb 28); "작년 오늘" /
  "this day last year" is that single day.
* Counts forward ("3일 후", "in 3 days", "in 2 weeks") are taken from today, so a duration such as
  "finished it in 2 days" is misread; we accept that rather than drop the forward forms.
* 엊그제 = the two days before today; 내일모레 = 모레 (+2); 어젯밤/지난밤/last night = yesterday.
* Absolute forms are resolved too ("2024년 3월", "24년 5월", "March 5, 2024") so a year in front of a
  month is never mistaken for the current year.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from memoir_desktop.core.lexical.tokens import morphemes
from memoir_desktop.core.script import has_hangul
from memoir_desktop.core.temporal import recurring
from memoir_desktop.core.temporal.present import past_ending

Span = tuple[date, date]


@dataclass(frozen=True)
class TimeSpan:
    text: str
    start: date
    end: date


# --------------------------------------------------------------------------- calendar helpers


def _last_day(y: int, m: int) -> int:
    return calendar.monthrange(y, m)[1]


def _shift_month(y: int, m: int, k: int) -> tuple[int, int]:
    i = y * 12 + (m - 1) + k
    return i // 12, i % 12 + 1


def _month(y: int, m: int) -> Span:
    return date(y, m, 1), date(y, m, _last_day(y, m))


def _year(y: int) -> Span:
    return date(y, 1, 1), date(y, 12, 31)


def _week(today: date, k: int) -> Span:
    monday = today - timedelta(days=today.weekday()) + timedelta(weeks=k)
    return monday, monday + timedelta(days=6)


def _same_date(y: int, m: int, d: int) -> date:
    return date(y, m, min(d, _last_day(y, m)))  # Feb 29 -> Feb 28 in a common year


def _prev_weekday(today: date, wd: int) -> date:
    return today - timedelta(days=(today.weekday() - wd) % 7 or 7)


def _next_weekday(today: date, wd: int) -> date:
    return today + timedelta(days=(wd - today.weekday()) % 7 or 7)


def _single(d: date) -> Span:
    return d, d


_MONTH_PARTS = {"초": (1, 10), "초순": (1, 10), "초반": (1, 10), "early": (1, 10), "beginning": (1, 10),
                "start": (1, 10), "중순": (11, 20), "중반": (11, 20), "mid": (11, 20), "middle": (11, 20),
                "말": (21, 31), "하순": (21, 31), "후반": (21, 31), "late": (21, 31), "end": (21, 31),
                "말일": (31, 31), "월초": (1, 10), "월말": (21, 31)}
_YEAR_PARTS = {"초": (1, 3), "초반": (1, 3), "연초": (1, 3), "early": (1, 3), "beginning": (1, 3),
               "start": (1, 3), "중반": (4, 9), "mid": (4, 9), "middle": (4, 9), "말": (10, 12),
               "후반": (10, 12), "연말": (10, 12), "late": (10, 12), "end": (10, 12),
               "상반기": (1, 6), "하반기": (7, 12)}


def _month_part(y: int, m: int, part: str | None) -> Span:
    if not part:
        return _month(y, m)
    lo, hi = _MONTH_PARTS[part.lower()]
    last = _last_day(y, m)
    return date(y, m, min(lo, last)), date(y, m, min(hi, last))


def _year_part(y: int, part: str | None) -> Span:
    if not part:
        return _year(y)
    lo, hi = _YEAR_PARTS[part.lower()]
    return date(y, lo, 1), date(y, hi, _last_day(y, hi))


_SEASONS = {"봄": 3, "spring": 3, "여름": 6, "summer": 6, "가을": 9, "fall": 9, "autumn": 9,
            "겨울": 12, "winter": 12}


def _season(y: int, first_month: int) -> Span:
    ey, em = _shift_month(y, first_month, 2)
    return date(y, first_month, 1), date(ey, em, _last_day(ey, em))


def _season_rel(today: date, first_month: int, rel: str) -> Span:
    if rel in ("지난", "last"):  # the most recent one that has ended
        return next(s for y in range(today.year, today.year - 3, -1)
                    if (s := _season(y, first_month))[1] < today)
    if rel in ("다음", "오는", "next"):  # the first one not yet begun
        return next(s for y in range(today.year, today.year + 2) if (s := _season(y, first_month))[0] > today)
    if first_month == 12 and today.month <= 2:  # "this winter" in January is the one under way
        return _season(today.year - 1, 12)
    return _season(today.year, first_month)


def _window(today: date, n: int, unit: str) -> Span:
    """N units ending today, today included."""
    if n < 1:
        raise ValueError("empty window")
    if unit in ("일", "day"):
        return today - timedelta(days=n - 1), today
    if unit in ("주", "주일", "week"):
        return today - timedelta(days=7 * n - 1), today
    months = n if unit in ("달", "개월", "month") else 12 * n
    y, m = _shift_month(today.year, today.month, -months)
    return _same_date(y, m, today.day) + timedelta(days=1), today


# --------------------------------------------------------------------------- vocabulary


def _alt(words) -> str:
    # Longest first, so an alternation never stops at a prefix ("열" before "열두").
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


def _key(s: str) -> str:
    return re.sub(r"\s+", "", s).lower()


_KO_DAY_WORDS = {"오늘": 0, "어제": -1, "어저께": -1, "어젯밤": -1, "지난밤": -1, "그제": -2, "그저께": -2,
                 "그끄저께": -3, "내일": 1, "모레": 2, "내일모레": 2, "글피": 3}
_KO_DAY_COUNTS = {"하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7, "여드레": 8,
                  "아흐레": 9, "열흘": 10, "보름": 15}
_KO_NATIVE = {"한": 1, "두": 2, "세": 3, "석": 3, "네": 4, "넉": 4, "다섯": 5, "여섯": 6, "일곱": 7,
              "여덟": 8, "아홉": 9, "열": 10, "열한": 11, "열두": 12}
_KO_SINO = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9, "십": 10,
            "십일": 11, "십이": 12}
_KO_REL = {"지지난": -2, "지난": -1, "저번": -1, "이번": 0, "이": 0, "다음": 1, "담": 1, "다다음": 2}
_KO_YEARS = {"올해": 0, "올": 0, "금년": 0, "작년": -1, "지난해": -1, "재작년": -2, "지지난해": -2,
             "내년": 1, "다음해": 1, "내후년": 2}
_KO_WEEKDAYS = "월화수목금토일"
_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "acoupleof": 2}
_EN_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_EN_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
              "october", "november", "december"]
_EN_REL = {"last": -1, "this": 0, "next": 1, "the": 0, "beforelast": -2, "afternext": 2}
_SIGN = {"전": -1, "후": 1, "뒤": 1, "ago": -1, "fromnow": 1, "in": 1}


def _num(s: str) -> int:
    k = _key(s)
    if k.isdigit():
        return int(k)
    for table in (_KO_DAY_COUNTS, _KO_NATIVE, _KO_SINO, _EN_NUM):
        if k in table:
            return table[k]
    raise ValueError(s)


# Korean glues particles and the copula onto the noun; we accept a short run of them after an
# expression but nothing else, so "오늘날", "주말마다", "그제야" stay ordinary words. (야 is left out on
# purpose: "그제야" means "only then".)
_PARTICLES = _alt(["에는", "에도", "에서", "에선", "에만", "에나", "엔", "에", "의", "은", "는", "이", "가",
                   "도", "만", "을", "를", "으로", "로", "부터", "까지", "마저", "조차", "보다", "처럼", "만큼",
                   "쯤", "께", "경", "과", "와", "이랑", "랑", "하고", "따라", "이나", "나", "이다", "다", "이었", "였",
                   "인", "인데", "이고", "이면", "면", "이라", "라", "요", "이에요", "예요", "입니다"])
_KB = r"(?<!\w)"
_KE = rf"(?=(?:{_PARTICLES}){{0,3}}(?!\w))"
_KO_COUNT = rf"\d{{1,3}}|{_alt([*_KO_NATIVE, *_KO_SINO])}"
_KO_WD = rf"[{_KO_WEEKDAYS}](?:요일|욜)"
_KO_YEAR_WORDS = r"올해|금년|재작년|작년|지지난\s*해|지난\s*해|내후년|내년|다음\s*해|올"
_KO_MPART = r"초순|초반|초(?!과)|중순|중반|하순|후반|말일|말"
_EN_N = rf"\d{{1,3}}|a\s+couple\s+of|{_alt(w for w in _EN_NUM if w != 'acoupleof')}"
_EN_WD = "|".join(_EN_WEEKDAYS)
_EN_MON = "|".join(_EN_MONTHS)
_EN_PART = r"(?:(?:the\s+)?(?P<part>beginning|start|middle|end)\s+of\s+|(?P<part2>early|mid|late)[\s-]+)"


def _count_ok(num: str, unit: str) -> bool:
    # Sino-Korean numbers only count with 개월/년/주 ("이 일 전" is "before this work", not 2 days);
    # native counters never take 일 or 년.
    k = _key(num)
    if k in _KO_SINO and k not in _KO_NATIVE:
        return unit in ("개월", "년", "주", "주일")
    if k in _KO_NATIVE:
        return unit in ("개월", "달", "주", "주일", "해")
    return unit != "해"


# --------------------------------------------------------------------------- rules
# Each rule: a compiled pattern and a function (match, today) -> span or None (None = not a time).

Rule = tuple[re.Pattern, Callable[[re.Match, date], Span | None]]


def _ko_day(m: re.Match, t: date) -> Span | None:
    if m["word"]:
        return _single(t + timedelta(days=_KO_DAY_WORDS[m["word"]]))
    if m["few"]:  # 엊그제: 어제와 그제
        return t - timedelta(days=2), t - timedelta(days=1)
    n = _num(m["dw"] or m["num"])
    return _single(t + timedelta(days=n * _SIGN[m["dir"] or m["dir2"]]))


def _weekday_or_weekend(t: date, k: int, wd: int | None, weekend: bool) -> Span:
    monday, sunday = _week(t, k)
    if weekend:
        return sunday - timedelta(days=1), sunday
    if wd is not None:
        return _single(monday + timedelta(days=wd))
    return monday, sunday


def _ko_week(m: re.Match, t: date) -> Span | None:
    if m["rel"]:
        k = _KO_REL[m["rel"]]
    elif m["num"]:
        if not _count_ok(m["num"], "주"):
            return None
        k = _num(m["num"]) * _SIGN[m["dir"]]
    else:
        k = 0  # bare 주말
    wd = _KO_WEEKDAYS.index(m["wd"][0]) if m["wd"] else None
    return _weekday_or_weekend(t, k, wd, bool(m["wkend"] or m["wkend2"] or m["bare"]))


def _ko_weekday(m: re.Match, t: date) -> Span | None:
    return _weekday_rel(t, _KO_WEEKDAYS.index(m["wd"][0]), m["rel"], m)


def _weekday_rel(t: date, wd: int, rel: str | None, m: re.Match | None = None) -> Span:
    """`m`: the match, whose sentence's tense moves a bare weekday of this week that is on the other
    side of today: "Went hiking on Saturday", written on a Friday, is the Saturday before."""
    rel = _key(rel or "")
    if not rel and m is not None and wd != t.weekday():
        said = tense(m)  # read only here: it runs Kiwi on the sentence
        if said == "past" and wd > t.weekday():
            return _single(_prev_weekday(t, wd))
        if said == "future" and wd < t.weekday():
            return _single(_next_weekday(t, wd))
    if rel in ("지난", "저번", "last"):
        return _single(_prev_weekday(t, wd))
    if rel in ("오는", "coming", "thiscoming"):
        return _single(_next_weekday(t, wd))
    return _weekday_or_weekend(t, 1 if rel in ("다음", "next") else 0, wd, False)


def _month_named(t: date, mon: int, day: int | None, rel: str, year: int | None,
                 m: re.Match | None = None) -> Span | None:
    """An explicit month (and maybe day): rel is ''/'this' (this year), 'last' or 'next'. `m`: the
    match, whose sentence's tense decides a bare month's year when the month of this year is on the
    other side of today ("Sam is getting married in June" said in November is next June; "I was in
    Lisbon in December", said in November, last December)."""
    said = tense(m) if year is None and not rel and m is not None else ""  # read only here: Kiwi
    if said:
        this = date(t.year, mon, min(day or 1, _last_day(t.year, mon)))
        if said == "future" and (this < t.replace(day=1) if not day else this < t):
            year = t.year + 1
        elif said == "past" and (this > t if day else (t.year, mon) > (t.year, t.month)):
            year = t.year - 1
    if year is not None:
        y = year
    elif rel in ("last", "next") and day:
        step = -1 if rel == "last" else 1
        for y in range(t.year, t.year + 9 * step, step):  # 9 years always reach a Feb 29
            if day <= _last_day(y, mon) and ((date(y, mon, day) < t) if step < 0 else (date(y, mon, day) > t)):
                return _single(date(y, mon, day))
        return None
    elif rel == "last":
        y = t.year if mon < t.month else t.year - 1
    elif rel == "next":
        y = t.year if mon > t.month else t.year + 1
    else:
        y = t.year
    return _single(date(y, mon, day)) if day else _month(y, mon)


_SENTENCE_END = re.compile(r"[.!?。\n]")
_EN_FUTURE = re.compile(r"\b(?:will|shall|going\s+to|gonna|plan(?:s|ning)?\s+to|next|upcoming|soon)\b|'ll\b"
                        r"|\b(?:is|are|am|'s|'re|'m)\s+(?:\w+\s+)?\w+ing\b", re.I)
_EN_PAST = re.compile(r"\b(?:was|were|did|had|went|came|got|saw|made|took|met|left|ago|last)\b"
                      r"|\b(?:i|we|he|she|they|you)\s+\w+ed\b", re.I)
_KO_FUTURE = re.compile(r"(?:ㄹ|을|일)\s*(?:거|것|예정|계획)|예정|하려고|할\s*거|기로\s*했")


def tense(m: re.Match) -> str:
    """The tense of the sentence a time expression stands in: "past", "future" (a plan, or the present
    of something still to come), or "" (no telling)."""
    text = m.string
    start = max((e.end() for e in _SENTENCE_END.finditer(text, 0, m.start())), default=0)
    end = next((e.start() for e in _SENTENCE_END.finditer(text, m.end())), len(text))
    sentence = text[start:end]
    if has_hangul(sentence):
        if _KO_FUTURE.search(sentence):
            return "future"
        found = morphemes(sentence)
        if not found:
            return ""
        if any(past_ending(form, tag) for form, tag in found):
            return "past"
        return "future" if found[-1][1] in ("EF", "SF") or any(t == "EF" for _, t in found[-3:]) else ""
    if _EN_FUTURE.search(sentence):
        return "future"
    return "past" if _EN_PAST.search(sentence) else ""


def _ko_year_of(m: re.Match, t: date) -> int | None:
    if m["yw"]:
        return t.year + _KO_YEARS[_key(m["yw"])]
    if m["ynum"]:
        return t.year + _num(m["ynum"]) * _SIGN[m["ydir"]]
    if m["yabs"]:
        y = int(m["yabs"])
        return y + 2000 if y < 100 else y  # "24년 5월"
    return None


def _ko_month(m: re.Match, t: date) -> Span | None:
    part = m["part"]
    if m["wpart"]:
        y, mon, part = t.year, t.month, m["wpart"]
    elif m["rel"]:
        y, mon = _shift_month(t.year, t.month, _KO_REL[m["rel"]])
    elif m["num"]:
        if not _count_ok(m["num"], m["unit"]):
            return None
        y, mon = _shift_month(t.year, t.month, _num(m["num"]) * _SIGN[m["dir"]])
    else:
        mon, day = int(m["mon"]), int(m["day"]) if m["day"] else None
        if day and part:
            return None
        rel = {"지난": "last", "오는": "next", "다음": "next"}.get(m["mrel"] or "", "")
        span = _month_named(t, mon, day, rel, _ko_year_of(m, t), m)
        if span is None or day:
            return span
        y = span[0].year
    return _month_part(y, mon, part)


def _ko_year(m: re.Match, t: date) -> Span | None:
    suf = m["suf"]
    if m["bare"]:
        y, suf = t.year, m["bare"]
    else:
        y = _ko_year_of(m, t)
        if y is None or (_key(m["yw"] or "") == "올" and not suf):
            return None  # "올" alone is the verb "will come"
    if suf in _SEASONS:
        return _season(y, _SEASONS[suf])
    if suf == "이맘때":
        center = _same_date(y, t.month, t.day)
        return center - timedelta(days=14), center + timedelta(days=14)
    if suf == "오늘":
        return _single(_same_date(y, t.month, t.day))
    return _year_part(y, suf)


def _ko_season(m: re.Match, t: date) -> Span | None:
    return _season_rel(t, _SEASONS[m["s"]], m["rel"])


def _recent(m: re.Match, t: date) -> Span | None:
    return t - timedelta(days=29), t


def _ko_window(m: re.Match, t: date) -> Span | None:
    if m["dw"]:
        return _window(t, _num(m["dw"]), "일")
    unit = m["unit"]
    if not _count_ok(m["num"], unit):
        return None
    n = _num(m["num"])
    if m["lead"] == "지난" and not m["suf"] and unit == "일":
        # News style "지난 5일": the most recent 5th strictly before today, not a 5-day window.
        y, mon = t.year, t.month
        for _ in range(13):
            if n <= _last_day(y, mon) and date(y, mon, n) < t:
                return _single(date(y, mon, n))
            y, mon = _shift_month(y, mon, -1)
        return None
    return _window(t, n, unit)


def _en_count(m: re.Match) -> int | None:
    """Signed count of "N units ago" / "N units from now" / "in N units", if the match is one."""
    if m["num"]:
        return _num(m["num"]) * _SIGN[_key(m["dir"])]
    return _num(m["n2"]) if m["n2"] else None


def _en_day(m: re.Match, t: date) -> Span | None:
    if (k := _en_count(m)) is not None:
        return _single(t + timedelta(days=k))
    words = {"yesterday": -1, "lastnight": -1, "thedaybeforeyesterday": -2, "tomorrow": 1,
             "thedayaftertomorrow": 2}
    return _single(t + timedelta(days=words.get(_key(m[0]), 0)))


def _en_week(m: re.Match, t: date) -> Span | None:
    if (k := _en_count(m)) is None:
        rel = _key(m["rel"] or m["rel1"] or m["ba"])
        if rel == "the" and not m["end"]:
            return None  # "the week" alone says nothing
        k = _EN_REL[rel]
    wd = (m["wd1"] or m["wd2"] or "").lower()
    return _weekday_or_weekend(t, k, _EN_WEEKDAYS.index(wd) if wd else None, bool(m["end"]))


def _en_weekday(m: re.Match, t: date) -> Span | None:
    return _weekday_rel(t, _EN_WEEKDAYS.index(m["wd"].lower()), m["rel"], m)


def _en_month(m: re.Match, t: date) -> Span | None:
    part = (m["part"] or m["part2"] or "").lower() or None
    if m["name"] or m["dname"]:
        name = m["name"] or m["dname"]
        day = int(m["day"] or m["dday"] or 0) or None
        mod = (m["mod"] or "").lower()
        # A bare month name must look like one (capitalized), and "may" needs a modifier or a
        # capitalized "May" with a day/year: "I may go", "May I", "5 may come" are not dates.
        bare = not (mod or part or day or m["yabs"] or m["yrel"] or m["dyabs"])
        if bare and not name[0].isupper():
            return None
        if name.lower() == "may" and not (mod or part) and (bare or name != "May"):
            return None
        if day and part:
            return None
        year = int(m["yabs"] or m["dyabs"]) if (m["yabs"] or m["dyabs"]) else None
        if m["yrel"]:
            year = t.year + _EN_REL[m["yrel"].lower()]
        mon = _EN_MONTHS.index(name.lower()) + 1
        span = _month_named(t, mon, day, mod if mod in ("last", "next") else "", year, m)
        if span is None or day:
            return span
        return _month_part(span[0].year, mon, part)
    if (k := _en_count(m)) is None:
        rel = _key(m["rel"] or m["ba"])
        if rel == "the" and not part:
            return None
        k = _EN_REL[rel]
    y, mon = _shift_month(t.year, t.month, k)
    return _month_part(y, mon, part)


def _en_year(m: re.Match, t: date) -> Span | None:
    part = (m["part"] or m["part2"] or "").lower() or None
    if (k := _en_count(m)) is not None:
        y = t.year + k
    else:
        rel = _key(m["rel"] or m["ba"])
        if rel == "the" and not part:
            return None
        y = t.year + _EN_REL[rel]
    if m["tt"]:
        if part:
            return None
        center = _same_date(y, t.month, t.day)
        if m["tt"].lower() == "day":
            return _single(center)
        return center - timedelta(days=14), center + timedelta(days=14)
    return _year_part(y, part)


def _en_season(m: re.Match, t: date) -> Span | None:
    first = _SEASONS[(m["s"] or m["s2"]).lower()]
    if m["yrel"]:
        return _season(t.year + _EN_REL[m["yrel"].lower()], first)
    return _season_rel(t, first, m["rel"].lower())


def _en_window(m: re.Match, t: date) -> Span | None:
    return _window(t, _num(m["num"] or "1"), (m["unit"] or m["unit1"]).lower())


def _ko(pattern: str) -> re.Pattern:
    return re.compile(_KB + "(?:" + pattern + ")" + _KE)


def _en(pattern: str) -> re.Pattern:
    return re.compile(r"\b(?:" + pattern + r")\b", re.IGNORECASE)


_DIR_KO = r"(?P<dir>전|후|뒤)"
_DIR_EN = r"(?P<dir>ago|from\s+now)"
_KO_REL_WORDS = r"지지난|지난|저번|이번|다다음|다음|담"

RULES: list[Rule] = [
    (_ko(rf"(?P<word>{_alt(_KO_DAY_WORDS)})|(?P<few>엊그제|엊그저께)|(?P<dw>{_alt(_KO_DAY_COUNTS)})\s*{_DIR_KO}"
         r"|(?P<num>\d{1,3})\s*일\s*(?P<dir2>전|후|뒤)"), _ko_day),
    (_ko(rf"(?:(?P<rel>{_KO_REL_WORDS})\s*주(?P<wkend>말)?|(?P<num>{_KO_COUNT})\s*주(?:일)?\s*{_DIR_KO}"
         rf"|(?P<bare>주말))(?:\s*(?P<wd>{_KO_WD})|\s*(?P<wkend2>주말))?"), _ko_week),
    (_ko(rf"(?:(?P<rel>지난|저번|이번|다음|오는)\s*)?(?P<wd>{_KO_WD})"), _ko_weekday),
    (_ko(rf"(?:(?P<rel>{_KO_REL_WORDS}|이)\s*달|(?P<num>{_KO_COUNT})\s*(?P<unit>개월|달)\s*{_DIR_KO}"
         rf"|(?:(?P<yw>{_KO_YEAR_WORDS})\s*|(?P<yabs>\d{{4}}|\d{{2}})\s*년도?\s*"
         rf"|(?P<ynum>{_KO_COUNT})\s*(?:년|해)\s*(?P<ydir>전|후|뒤)\s*|(?P<mrel>지난|이번|오는|다음)\s*)?"
         rf"(?P<mon>1[0-2]|0?[1-9])\s*월(?:달)?(?:\s*(?P<day>3[01]|[12]\d|0?[1-9])\s*일)?"
         rf"|(?P<wpart>월초|월말))(?:\s*(?P<part>{_KO_MPART}))?"), _ko_month),
    (_ko(rf"(?:(?P<yw>{_KO_YEAR_WORDS})|(?P<yabs>\d{{4}})\s*년도?|(?P<ynum>{_KO_COUNT})\s*(?:년|해)\s*(?P<ydir>전|후|뒤)"
         rf"|(?P<bare>연초|연말|상반기|하반기))(?:\s*(?P<suf>이맘때|오늘|봄|여름|가을|겨울|연초|연말|상반기|하반기"
         rf"|초반|초(?!과)|중반|후반|말))?"), _ko_year),
    (_ko(r"(?P<rel>지난|이번|다음|오는)\s*(?P<s>봄|여름|가을|겨울)"), _ko_season),
    (_ko(r"요즘|요새|최근|근래"), _recent),
    (_ko(rf"(?P<lead>최근|지난)\s*(?:(?P<dw>{_alt(_KO_DAY_COUNTS)})|(?P<num>{_KO_COUNT})\s*"
         rf"(?P<unit>개월|주일|주|달|년|일))(?P<suf>간|\s*동안)?"), _ko_window),
    (_en(rf"the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tonight|tomorrow"
         rf"|last\s+night|this\s+(?:morning|afternoon|evening)|(?P<num>{_EN_N})\s+days?\s+{_DIR_EN}"
         rf"|in\s+(?P<n2>{_EN_N})\s+days?"), _en_day),
    (_en(rf"(?P<wd1>{_EN_WD})\s+(?:of\s+)?(?P<rel1>this|last|next)\s+week"
         rf"|the\s+week\s+(?P<ba>before\s+last|after\s+next)"
         rf"|(?P<rel>this|last|next|the)\s+week(?:(?P<end>end)|(?:(?:'s)?\s+(?P<wd2>{_EN_WD}))?)"
         rf"|(?P<num>{_EN_N})\s+weeks?\s+{_DIR_EN}|in\s+(?P<n2>{_EN_N})\s+weeks?"), _en_week),
    (_en(rf"(?:(?P<rel>last|this\s+coming|this|next|coming)\s+)?(?P<wd>{_EN_WD})"), _en_weekday),
    (_en(rf"{_EN_PART}?(?:the\s+month\s+(?P<ba>before\s+last|after\s+next)|(?P<rel>this|last|next|the)\s+month"
         rf"|(?P<num>{_EN_N})\s+months?\s+{_DIR_EN}|in\s+(?P<n2>{_EN_N})\s+months?"
         rf"|(?:(?P<mod>last|this|next|in)\s+)?(?P<name>{_EN_MON})(?:\s+(?P<day>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?)?"
         rf"(?:,?\s+(?P<yabs>\d{{4}})|\s+(?:of\s+)?(?P<yrel>last|this|next)\s+year)?"
         rf"|(?P<dday>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dname>{_EN_MON})"
         rf"(?:,?\s+(?P<dyabs>\d{{4}}))?)"), _en_month),
    (_en(rf"{_EN_PART}?(?:(?:around\s+)?this\s+(?P<tt>time|day)\s+)?(?:the\s+year\s+(?P<ba>before\s+last|after\s+next)"
         rf"|(?P<rel>this|last|next|the)\s+year|(?P<num>{_EN_N})\s+years?\s+{_DIR_EN}"
         rf"|in\s+(?P<n2>{_EN_N})\s+years?)"), _en_year),
    (_en(r"(?P<rel>this|last|next)\s+(?P<s>spring|summer|fall|autumn|winter)"
         r"|(?P<s2>spring|summer|fall|autumn|winter)\s+(?:of\s+)?(?P<yrel>this|last|next)\s+year"), _en_season),
    (_en(r"recently|lately|these\s+days|nowadays"), _recent),
    (_en(rf"(?:the\s+)?(?:past|last)\s+(?P<num>{_EN_N})\s+(?P<unit>day|week|month|year)s?"
         r"|(?:the\s+)?past\s+(?P<unit1>day|week|month|year)"), _en_window),
]


# --------------------------------------------------------------------------- scanning


def _today(now: datetime | date) -> date:
    return now.date() if isinstance(now, datetime) else now


def _scan(text: str, today: date) -> list[tuple[re.Match, Span]]:
    """Leftmost-longest, non-overlapping matches whose rule accepts them, outside recurring
    expressions ("매주 금요일", "every Friday" name a habit, not a date)."""
    blocked = [(r.start, r.end) for r in recurring.find(text)]
    return [(m, span) for m, span in _scan_all(text, today)
            if not any(m.start() < end and start < m.end() for start, end in blocked)]


def _scan_all(text: str, today: date) -> list[tuple[re.Match, Span]]:
    found: list[tuple[re.Match, Span]] = []
    # Each rule's next match at or after pos (None: no more; missing: not searched yet), so every
    # pattern scans the text about once instead of being retried at every position.
    pending: dict[int, re.Match | None] = {}
    pos = 0
    while pos < len(text):
        for i, (pattern, _) in enumerate(RULES):
            m = pending.get(i, ...)
            if m is ... or (m is not None and m.start() < pos):
                pending[i] = pattern.search(text, pos)
        starts = [m.start() for m in pending.values() if m is not None]
        if not starts:
            break
        at = min(starts)
        best: tuple[re.Match, Span] | None = None
        for i, (_, fn) in enumerate(RULES):
            m = pending[i]
            if m is None or m.start() != at or (best and m.end() <= best[0].end()):
                continue
            try:
                span = fn(m, today)
            except (ValueError, OverflowError):  # an impossible date ("2월 30일") is not a time
                span = None
            if span is not None:
                best = (m, span)
        if best is None:
            pos = at + 1
        else:
            found.append(best)
            pos = best[0].end()
    return found


def resolve(text: str, now: datetime) -> list[TimeSpan]:
    """Every relative time expression in ``text``, in order; the longest wins where they overlap."""
    return [TimeSpan(m.group(0), start, end) for m, (start, end) in _scan(text, _today(now))]


_ANNOTATION = re.compile(r"\s*\(\d{4}-\d{2}-\d{2}(?:\s*~\s*\d{4}-\d{2}-\d{2})?\)")


def _label(start: date, end: date) -> str:
    return start.isoformat() if start == end else f"{start.isoformat()}~{end.isoformat()}"


_VAGUE = {pattern for pattern, rule in RULES if rule is _recent}


def only_vague(text: str, now: datetime) -> bool:
    """Every time the text names is a vague "now" ("요즘", "요새", "recently", "these days"), and it
    names one."""
    found = _scan(text, _today(now))
    return bool(found) and all(m.re in _VAGUE for m, _ in found)


def normalize(text: str, now: datetime) -> str:
    """``text`` with each expression followed by " (YYYY-MM-DD)" or " (YYYY-MM-DD~YYYY-MM-DD)".

    Not "요즘" / "recently": a search reads them as the last 30 days, but written into an entry they
    are no date, and a model given "요즘 (2026-10-29~2026-11-27) 무릎이 아파서" wrote down that the
    knee began to hurt on 2026-10-29."""
    out, last = [], 0
    for m, (start, end) in _scan(text, _today(now)):
        if m.re in _VAGUE:
            continue
        out.append(text[last:m.end()])
        if not _ANNOTATION.match(text, m.end()):  # already annotated: keep normalize idempotent
            out.append(f" ({_label(start, end)})")
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def query_span(text: str, now: datetime) -> tuple[date, date] | None:
    """The union (earliest start, latest end) of the expressions in a search query, or None.

    A relative expression tied to a named day counts from that day, not from today:
    "two weeks before August 11, 2023", "the week before 3 June", "last weekend before April 10",
    "6월 3일 일주일 전", and everything in a question asked "as of 3 June, 2023" /
    "as mentioned on 3 June, 2023" / "6월 3일 기준으로". Read from today, "recently" in
    "what did she start recently, as mentioned on 3 June, 2023?" stretched the span from June to
    today and boosted months of unrelated memories.
    """
    spans = _anchored(text, _today(now)) + _numeric_days(text)
    if not spans:
        return None
    return min(s[0] for s in spans), max(s[1] for s in spans)


def names_one_day(text: str, now: datetime) -> bool:
    """Whether a search query asks about one calendar day it names: "on 16 June, 2023", "October
    13", "6월 3일에", "2026-03-14". A weekday alone is not one: "on Thursday nights", "the Friday
    pizza dough" name a habit as often as last week's day; a day counted from ("the week before 3
    June") is a span of its own."""
    span = query_span(text, now)
    if not span or span[0] != span[1]:
        return False
    return bool(_numeric_days(text)) or any(_names_a_day(m) for m, _ in _scan(text, _today(now)))


# A date in digits, year first ("2026-03-14", "2026.3.14", "2026/03/14"), as diarists type one into a
# search. Only in queries: an entry's text keeps its own digits (normalize writes them in that form).
# Day-first and month-first ("14/3", "3/14") are left alone: which one is meant depends on the writer.
_NUMERIC_DAY = re.compile(r"(?<![\d.])((?:19|20)\d{2})([-./])(1[0-2]|0?[1-9])\2(3[01]|[12]\d|0?[1-9])(?!\.?\d)")


def _numeric_days(text: str) -> list[Span]:
    out: list[Span] = []
    for m in _NUMERIC_DAY.finditer(text):
        try:
            day = date(int(m[1]), int(m[3]), int(m[4]))
        except ValueError:  # "2026-02-30" is no day
            continue
        out.append((day, day))
    return out


_OFFSET_EN = re.compile(
    rf"(?:(?P<n>{_EN_N}|the)\s+(?P<unit>day|week|weekend|month|year)s?\s+)?(?P<dir>before|after|prior\s+to)"
    r"\s+(?:on\s+|the\s+)?$", re.IGNORECASE)
_AS_OF_EN = re.compile(r"\bas\s+(?:of|mentioned\s+on|said\s+on|discussed\s+on)\s+(?:on\s+)?$", re.IGNORECASE)
_AS_OF_KO = re.compile(r"^\s*(?:을|를)?\s*(?:기준으로|기준|당시)")
_KO_GLUE = re.compile(r"^\s*(?:의\s*)?$")
_THE_UNIT = {"before": {"day": "yesterday", "week": "last week", "weekend": "last weekend",
                        "month": "last month", "year": "last year"},
             "after": {"day": "tomorrow", "week": "next week", "weekend": "next weekend",
                       "month": "next month", "year": "next year"}}


def _names_a_day(m: re.Match) -> bool:
    """ "3 June, 2023", "August 11", "6월 3일": a calendar day, not a count from today."""
    g = m.groupdict()
    return bool((g.get("mon") and g.get("day")) or (g.get("name") and g.get("day")) or g.get("dname"))


def _at(expression: str, anchor: date) -> Span | None:
    found = _scan(expression, anchor)
    return found[0][1] if found else None


def _anchored(text: str, today: date) -> list[Span]:
    found = _scan(text, today)
    if not any(_names_a_day(m) for m, _ in found):
        return [span for _, span in found]
    out: list[Span] = []
    consumed: set[int] = set()  # relative matches re-read from a day, by start position
    as_of: date | None = None
    for i, (m, span) in enumerate(found):
        if not _names_a_day(m):
            continue
        before = text[:m.start()]
        if off := _OFFSET_EN.search(before):
            direction = "after" if off["dir"].lower() == "after" else "before"
            anchor = span[1] if direction == "after" else span[0]
            if off["n"]:  # "two weeks before X" reads as "two weeks ago" on X
                n, unit = off["n"].lower(), off["unit"].lower()
                phrase = _THE_UNIT[direction][unit] if n == "the" else (
                    f"{n} {unit}s ago" if direction == "before" else f"in {n} {unit}s")
                if (got := _at(phrase, anchor)) is not None:
                    out.append(got)
                    consumed.add(m.start())
                    continue
            prev = found[i - 1][0] if i else None  # "last weekend before X": that weekend, from X
            if prev is not None and not _names_a_day(prev) and not text[prev.end():off.start()].strip():
                if (got := _at(prev.group(0), anchor)) is not None:
                    out.append(got)
                    consumed.update((prev.start(), m.start()))
                    continue
        nxt = found[i + 1][0] if i + 1 < len(found) else None
        if nxt is not None and _KO_GLUE.match(text[m.end():nxt.start()]) and re.search(r"(전|후|뒤)$", nxt.group(0)):
            if (got := _at(nxt.group(0), span[0])) is not None:  # "6월 3일 일주일 전"
                out.append(got)
                consumed.update((m.start(), nxt.start()))
                continue
        if _AS_OF_EN.search(before) or _AS_OF_KO.match(text[m.end():]):
            as_of = span[1]
    for m, span in found:
        if m.start() in consumed:
            continue
        if as_of is not None and not _names_a_day(m):
            span = _at(m.group(0), as_of) or span
        out.append(span)
    return out
