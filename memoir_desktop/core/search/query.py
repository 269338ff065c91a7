"""A search query, analysed once for every source: its words, its time, its vector.

One chat turn used to embed its question twice (facts, then the graph) and parse its time span
twice; every source now takes this object. The vector is computed on first use and kept (a
source that needs no vector never pays for it); an embedder that fails leaves it None and says
why, and the sources that need it are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np

from memoir_desktop.core import temporal
from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.lexical.synonyms import expand
from memoir_desktop.core.temporal.present import asks_about_now

# How much a synonym counts against a word of the query: measured on the Korean paraphrase set's
# fit split (eval/ko_retrieval.py --expansion-weight); the note on issue 18 has the table.
EXPANSION_WEIGHT = 0.5


@dataclass
class Query:
    text: str
    now: datetime
    tokens: list[str]  # content tokens (Kiwi morphemes, stemmed English words)
    span: tuple[date, date] | None  # the time the query asks about ("작년 이맘때", "last Friday")
    recurrence: str | None  # a recurring time it asks about ("매주 금요일에 뭐 해?")
    asks_now: bool = False  # about how things are now: the newest memory of a topic first
    one_day: bool = False  # the span is one calendar day the query names ("on 16 June, 2023")
    expansions: list[str] = field(default_factory=list)  # the same in other words (lexical/synonyms.py)
    embedder: object = field(default=None, repr=False)
    vector_error: str | None = None
    _vector: np.ndarray | None = field(default=None, repr=False)
    _embedded: bool = field(default=False, repr=False)

    @classmethod
    def of(cls, text: str, now: datetime | None, embedder) -> Query:
        now = now or datetime.now()
        text = (text or "").strip()
        tokens = tokenize(text) if text else []
        now_q = asks_about_now(text)
        span = temporal.query_span(text, now) if text else None
        if span and now_q and temporal.only_vague(text, now):
            # "요즘 어디 살아?" asks for the state that holds now, which may have been written down a
            # year ago: read as "recorded in the last 30 days" it put last month's unrelated lines
            # first (the blind sets' present questions). "최근 3개월", "지난달" keep their span.
            span = None
        return cls(text, now, tokens, span,
                   temporal.recurring.rule_of(text) if text else None, now_q,
                   bool(span) and temporal.names_one_day(text, now),
                   expand(text, tokens) if text else [], embedder)

    @property
    def terms(self) -> list[str]:
        """What the lexical side searches for: the query's words, then their synonyms."""
        return self.tokens + self.expansions

    @property
    def term_weights(self) -> dict[str, float] | None:
        return dict.fromkeys(self.expansions, EXPANSION_WEIGHT) if self.expansions else None

    def vector(self) -> np.ndarray | None:
        """The query's embedding (computed once), or None when the embedder failed."""
        if not self._embedded:
            self._embedded = True
            try:
                self._vector = self.embedder.embed_query(self.text)  # type: ignore[union-attr]
            except Exception as exc:  # a failing source is skipped, not fatal
                self.vector_error = exc.__class__.__name__
        return self._vector

    @property
    def span_bounds(self) -> tuple[datetime, datetime] | None:
        """The span as datetimes covering whole days."""
        if self.span is None:
            return None
        lo, hi = self.span
        return datetime(lo.year, lo.month, lo.day), datetime(hi.year, hi.month, hi.day, 23, 59, 59)

    @property
    def asks_about_the_past(self) -> bool:
        """A span that ended before today ("작년에", "last spring"), not one reaching today ("요즘")."""
        return self.span is not None and self.span[1] < self.now.date()
