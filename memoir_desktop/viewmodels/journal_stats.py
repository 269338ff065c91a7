"""What the Stats page shows of the journal (no Qt): a calendar of the days written, the streak,
entries and words per week, memories added and changed per week, and the themes of each month."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from memoir_desktop.core.reflection.letters import themes

WEEKS = 12  # the weekly charts
CALENDAR_WEEKS = 26  # the writing calendar
THEME_MONTHS = 6


@dataclass
class JournalStats:
    today: date = field(default_factory=date.today)
    days: dict[date, int] = field(default_factory=dict)  # entries per day written
    streak: int = 0  # days in a row up to today (or yesterday, when today is not written yet)
    longest: int = 0
    entries: int = 0
    words: int = 0
    week_starts: list[date] = field(default_factory=list)
    entries_per_week: list[int] = field(default_factory=list)
    words_per_week: list[int] = field(default_factory=list)
    added_per_week: list[int] = field(default_factory=list)
    changed_per_week: list[int] = field(default_factory=list)
    themes_by_month: list[tuple[date, list[str]]] = field(default_factory=list)
    mood_per_week: list[float | None] = field(default_factory=list)  # 1 (bad) … 5 (great); None: no note

    @property
    def has_moods(self) -> bool:
        return any(m is not None for m in self.mood_per_week)

    @property
    def empty(self) -> bool:
        return not self.days


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def streaks(days: set[date], today: date) -> tuple[int, int]:
    """(current, longest) runs of consecutive days written."""
    current = 0
    d = today if today in days else today - timedelta(days=1)
    while d in days:
        current += 1
        d -= timedelta(days=1)
    longest = run = 0
    prev = None
    for d in sorted(days):
        run = run + 1 if prev is not None and d - prev == timedelta(days=1) else 1
        longest = max(longest, run)
        prev = d
    return current, longest


MOOD_SCORES = {"great": 5, "good": 4, "okay": 3, "low": 2, "bad": 1}


def build_journal_stats(entries: list[dict], memories: list[dict], history: list[dict], *, today: date,
                        with_themes: bool = True, moods: list[dict] | None = None) -> JournalStats:
    own = [e for e in entries if e.get("role") == "user" and e.get("kind", "entry") == "entry"]
    st = JournalStats(today=today)
    when = [(datetime.fromisoformat(e["created_at"]).date(), e) for e in own]
    st.days = dict(Counter(d for d, _ in when))
    st.entries = len(own)
    st.words = sum(len(e["content"].split()) for e in own)
    st.streak, st.longest = streaks(set(st.days), today)
    first = _monday(today) - timedelta(weeks=WEEKS - 1)
    st.week_starts = [first + timedelta(weeks=i) for i in range(WEEKS)]
    index = {w: i for i, w in enumerate(st.week_starts)}
    st.entries_per_week = [0] * WEEKS
    st.words_per_week = [0] * WEEKS
    st.added_per_week = [0] * WEEKS
    st.changed_per_week = [0] * WEEKS
    for d, e in when:
        i = index.get(_monday(d))
        if i is not None:
            st.entries_per_week[i] += 1
            st.words_per_week[i] += len(e["content"].split())
    for h in history:
        i = index.get(_monday(datetime.fromisoformat(h["created_at"]).date()))
        if i is None:
            continue
        if h["event"] == "ADD":
            st.added_per_week[i] += 1
        elif h["event"] in ("UPDATE", "DELETE"):
            st.changed_per_week[i] += 1
    scores: list[list[int]] = [[] for _ in range(WEEKS)]
    for m in moods or []:
        i = index.get(_monday(date.fromisoformat(m["day"])))
        if i is not None and m["mood"] in MOOD_SCORES:
            scores[i].append(MOOD_SCORES[m["mood"]])
    st.mood_per_week = [sum(s) / len(s) if s else None for s in scores]
    if with_themes:
        months: dict[date, list[str]] = {}
        start = (today.replace(day=1) - timedelta(days=31 * (THEME_MONTHS - 1))).replace(day=1)
        for d, e in when:
            if d >= start:
                months.setdefault(d.replace(day=1), []).append(e["content"])
        st.themes_by_month = [(m, themes(texts, limit=4)) for m, texts in sorted(months.items())]
    return st


def journal_stats(mem) -> JournalStats:
    """The Stats page's numbers from the journal (a read: run it as a query)."""
    return build_journal_stats(mem.journal.entries(), mem.get_all(include_invalid=True)["results"], mem.reflection.history_rows(),
                               today=date.today(), moods=mem.reflection.moods())
