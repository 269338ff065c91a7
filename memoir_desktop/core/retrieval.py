"""The read path: hybrid search over memories and the companion's context.

Dense (embedded Qdrant) and lexical (BM25 over Korean morphemes / English words) rankings
are fused with reciprocal rank fusion, so Korean search keeps working when the only
embedding model is English-only. A time expression in the query ("작년 이맘때",
"last month") pulls in memories recorded in, or about, that span and boosts them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, or_, select

from memoir_desktop.core import temporal
from memoir_desktop.core.models import Memory
from memoir_desktop.core.store import MemoryStore, memory_dict

log = logging.getLogger(__name__)

RRF_K = 60
# A memory in the query's time span has its content score multiplied: strong enough that
# "지난달에 뭐 했지" lists last month first, gentle enough that "요즘 커피 뭐 마셔?" still
# finds the coffee memory recorded before the last 30 days ahead of unrelated recent ones.
TIME_FACTOR = 2.0


@dataclass
class Hit:
    id: str
    score: float = 0.0
    signals: dict = field(default_factory=dict)


def _overlaps(m: Memory, lo: datetime, hi: datetime) -> bool:
    if lo <= m.created_at <= hi:
        return True
    return bool(m.about_start and m.about_end and m.about_start <= hi and m.about_end >= lo)


class Retriever:
    def __init__(self, engine, store: MemoryStore):
        self.engine = engine
        self.store = store

    def search(self, user_id: str, query: str, *, limit: int = 10, filters: dict | None = None,
               now: datetime | None = None) -> list[dict]:
        now = now or datetime.now()
        depth = max(limit * 3, 30)
        hits: dict[str, Hit] = {}

        def fuse(ranked: list[tuple[str, float]], signal: str) -> None:
            for rank, (mid, score) in enumerate(ranked):
                h = hits.setdefault(str(mid), Hit(str(mid)))
                h.score += 1.0 / (RRF_K + rank + 1)
                h.signals[signal] = {"rank": rank + 1, "score": round(float(score), 4)}

        qvec = None
        try:
            qvec = self.store.embedder.embed_query(query)
            fuse(self.store.vectors.search(self.store.collection(user_id), qvec, depth), "dense")
        except Exception as exc:  # noqa: BLE001 - a failing source is skipped, not fatal
            log.warning("dense search unavailable: %s", exc)
        bm = self.store.bm25(user_id)
        lexical = bm.search(query, depth)
        fuse(lexical, "lexical")
        span = temporal.query_span(query, now)
        if span:
            lo = datetime(span[0].year, span[0].month, span[0].day)
            hi = datetime(span[1].year, span[1].month, span[1].day, 23, 59, 59)
            for mid in self._in_span(user_id, lo, hi, depth * 3):
                h = hits.setdefault(mid, Hit(mid))
                h.signals["time"] = {"span": [span[0].isoformat(), span[1].isoformat()]}
        rows = self.store.get_many(hits)
        out = []
        for h in hits.values():
            m = rows.get(h.id)
            if m is None or m.user_id != user_id or m.state != "active":
                continue
            if "time" in h.signals:
                if not h.score:
                    # Found by its time alone: as if it ranked just past the content depth.
                    h.score = 1.0 / (RRF_K + depth + 1)
                h.score *= TIME_FACTOR
            if not _passes(m, filters):
                continue
            if "lexical" in h.signals:
                h.signals["lexical"]["matched"] = bm.explain(query, h.id) if hasattr(bm, "explain") else []
            out.append(memory_dict(m, score=round(h.score, 6), explain=h.signals))
        out.sort(key=lambda d: -d["score"])
        return out[:limit]

    def _in_span(self, user_id: str, lo: datetime, hi: datetime, limit: int) -> list[str]:
        with Session(self.engine) as s:
            q = select(Memory.id).where(
                Memory.user_id == user_id, Memory.state == "active",
                or_(Memory.created_at.between(lo, hi),
                    (Memory.about_start <= hi) & (Memory.about_end >= lo)),
            ).order_by(Memory.created_at.desc()).limit(limit)
            return list(s.exec(q))


def _passes(m: Memory, filters: dict | None) -> bool:
    if not filters:
        return True
    for key, want in filters.items():
        if key == "memory_type":
            if m.memory_type != want:
                return False
        elif key == "created_after":
            if m.created_at < _as_dt(want):
                return False
        elif key == "created_before":
            if m.created_at > _as_dt(want):
                return False
        elif (m.meta or {}).get(key) != want:
            return False
    return True


def _as_dt(value) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
