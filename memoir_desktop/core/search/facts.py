"""Search over the memories (facts): dense + lexical, fused, with time pulling in its span.

Dense (embedded Qdrant) and lexical (BM25 over Korean morphemes / English words) rankings are
fused (fusion.py), so Korean search keeps working when the only embedding model is English-only.
A time expression in the query ("작년 이맘때", "last month") pulls in memories recorded in, or
about, that span and boosts them (a query naming one day, "6월 3일에", "on 16 June", puts that day's
memories first: day_first); a weekday or a recurring time ("금요일에 뭐 하지?") pulls in the habits that
fall on it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlmodel import Session, col, or_, select

from memoir_desktop.core import temporal
from memoir_desktop.core.script import language_of
from memoir_desktop.core.search import neighbours, present, rivals
from memoir_desktop.core.search.first_stage import rankings
from memoir_desktop.core.search.floor import Floor, has_content
from memoir_desktop.core.search.fusion import fuse, rank_score
from memoir_desktop.core.search.meaning_first import meaning_first
from memoir_desktop.core.search.query import Query
from memoir_desktop.core.search.rerank import POOL, Weights, rerank, weights_for
from memoir_desktop.core.search.state_order import order_states
from memoir_desktop.core.storage.models import Memory
from memoir_desktop.core.storage.store import MemoryStore, memory_dict

log = logging.getLogger(__name__)

# A memory in the query's time span has its content score multiplied: strong enough that
# "지난달에 뭐 했지" lists last month first, gentle enough that "요즘 커피 뭐 마셔?" still
# finds the coffee memory recorded before the last 30 days ahead of unrelated recent ones.
TIME_FACTOR = 2.0


class FactSearch:
    def __init__(self, engine, store: MemoryStore):
        self.engine = engine
        self.store = store

    def search(self, user_id: str, q: Query, *, limit: int = 10, filters: dict | None = None,
               floor: Floor | None | bool = True, second_stage: Weights | None | bool = True,
               listing: bool = False) -> list[dict]:
        """`listing`: results the user reads (the search field), where an unrelated query lists
        nothing and a hit sharing no word with the query must stand out to be shown (search/floor.py).
        Anywhere else (the API, the companion's context) the results are ranked, never cut: a floor
        judging from similarities alone cost true memories (a question in another language shares
        no word with the journal). `floor`: True for the model's floor where it applies (listing),
        a Floor, or None for none (evaluation compares both); `second_stage`: True for the model's
        learned reranking of the top 30 (search/rerank.py), given Weights, or None for the first
        stage alone (evaluation)."""
        if not has_content(q.terms, q.span, q.recurrence):
            return []  # nothing to match on ("!!!", "ㅋㅋㅋ")
        depth = max(limit * 3, 30)
        bm = self.store.bm25(user_id)
        dense = lambda vec, depth: self.store.vectors.search_with_stats(  # noqa: E731
            self.store.searched_collection(user_id), vec, depth)
        ranked = rankings(q, bm, dense, self.store.embedder, depth=depth, listing=listing, floor=floor)
        vec = q.vector()
        by_meaning = [str(i) for i, _ in ranked.get("dense", [])]
        hits = {str(i): [s, sig] for i, s, sig in fuse(ranked)}
        bounds = q.span_bounds
        if bounds and q.span:
            for mid in self._in_span(user_id, *bounds, depth * 3):
                h = hits.setdefault(mid, [0.0, {}])
                h[1]["time"] = {"span": [q.span[0].isoformat(), q.span[1].isoformat()]}
        for mid, rule in self._recurring(user_id, q):
            h = hits.setdefault(mid, [0.0, {}])
            h[1].setdefault("time", {})["recurs"] = rule
        # Rank before reading rows: only the best candidates are fetched from SQLite, more
        # only when filters or stale index entries drop some (fetching every candidate cost
        # 3-4 ms of a 10k-memory search).
        order = []
        for mid, (score, signals) in hits.items():
            if "time" in signals:
                if not score:
                    score = rank_score(depth)  # found by its time alone: as if ranked just past the depth
                score *= TIME_FACTOR
            order.append((score, mid, signals))
        order.sort(key=lambda t: -t[0])  # stable: ties keep the fused order
        named: list[str] = []

        def collection() -> str:  # looked up once (a query of its own), and only when needed
            if not named:
                named.append(self.store.searched_collection(user_id))
            return named[0]

        if q.one_day and vec is not None:
            order = day_first(order, lambda ids: self.store.vectors.vectors(collection(), ids), vec)
        if second_stage is True:
            second_stage = weights_for(self.store.embedder.name, language_of(q.text))
        out: list[dict] = []
        pool = max(limit, POOL) if second_stage else limit
        batch = max(limit * 2, 10)
        # No fewer batches than this can fill the pool, so their rows come in one query (two
        # round trips of 20 rows cost ~0.8 ms more than one of 40); later batches as before.
        first = -(-pool // batch) * batch
        rows = self.store.get_many(mid for _, mid, _ in order[:first])
        for at in range(0, len(order), batch):
            part = order[at:at + batch]
            if at >= first:
                rows = self.store.get_many(mid for _, mid, _ in part)
            for score, mid, signals in part:
                m = rows.get(mid)
                if m is None or m.user_id != user_id or m.state != "active" or not _passes(m, filters):
                    continue
                out.append(memory_dict(m, score=round(score, 6), explain=signals))
            if len(out) >= pool:
                break
        lexical = {d["id"]: d for d in out if "lexical" in d["explain"]}
        for d_id, matched in bm.explain_many(q.terms, lexical).items():
            lexical[d_id]["explain"]["lexical"]["matched"] = matched
        if second_stage and not second_stage.for_versions and present.mode_of(q) is not None:
            second_stage = None  # the version stages below read the first stage's order (rerank.py)
        if second_stage and len(out) > 1:
            vecs = self.store.vectors.vectors(collection(), [d["id"] for d in out])
            out = rerank(q, out, vecs, vec, second_stage)
            if q.one_day:  # the learned weights may put a closer line of another day first; the day stays first
                out.sort(key=lambda d: not in_the_span(d["explain"]))
        ranked = [d["id"] for d in out]
        vectors_of = lambda ids: self.store.vectors.vectors(collection(), ids)  # noqa: E731
        out = order_states(self.engine, bm, user_id, q, out, lambda m: _passes(m, filters), vectors_of)
        out = rivals.reorder(q.text, q.asks_now, q.asks_about_the_past, out, bm)
        out = present.choose(q, ranked, out, vectors_of, self.store.embedder.name)
        out = meaning_first(q, out, by_meaning)
        if not listing:  # the field lists what matches; an answer's context takes the entry's other lines too
            out = neighbours.bring(out, lambda seeds: self._from_entries(user_id, order, out, seeds, filters), limit)
        return out[:limit]

    def _from_entries(self, user_id: str, order: list, found: list[dict], seeds: set,
                      filters: dict | None) -> list[dict]:
        """Of the first stage's next POOL candidates past what the search kept, those from one of the
        `seeds`' entries (neighbours.source), best first, at most neighbours.PER an entry. Their entry
        and time are asked first and only the rows that can move are read: reading all thirty cost
        4 ms a search on 10k encrypted memories."""
        seen = {d["id"] for d in found}
        ids = [mid for _, mid, _ in order if mid not in seen][:POOL]
        if not ids:
            return []
        entries = [v for k, v in seeds if k == "entry"]
        times = [datetime.fromisoformat(v) for k, v in seeds if k == "at"]
        same = []
        if entries:
            same.append(col(Memory.source_entry_id).in_(entries))
        if times:
            same.append(col(Memory.source_entry_id).is_(None) & col(Memory.created_at).in_(times))
        with Session(self.engine) as s:
            placed = s.exec(select(Memory.id, Memory.source_entry_id, Memory.created_at).where(
                col(Memory.id).in_(ids), col(Memory.user_id) == user_id, col(Memory.state) == "active",
                or_(*same))).all()
        source = {mid: neighbours.key(e, t.isoformat()) for mid, e, t in placed}
        picked = neighbours.take(ids, source.get, seeds)  # best first, as many an entry as can move
        rows = self.store.get_many(picked)
        signals = {mid: sig for _, mid, sig in order if mid in rows}
        return [memory_dict(rows[mid], score=0.0, explain=dict(signals[mid])) for mid in picked
                if mid in rows and _passes(rows[mid], filters)]

    def _in_span(self, user_id: str, lo: datetime, hi: datetime, limit: int) -> list[str]:
        """Memories recorded in the span, or about it. Two indexed queries: one OR across
        both conditions made SQLite scan every memory (21 ms at 50k; 2 ms this way)."""
        active = (col(Memory.user_id) == user_id, col(Memory.state) == "active")
        with Session(self.engine) as s:
            recorded = s.exec(select(Memory.id, Memory.created_at).where(
                *active, col(Memory.created_at).between(lo, hi))
                .order_by(col(Memory.created_at).desc()).limit(limit)).all()
            about = s.exec(select(Memory.id, Memory.created_at).where(
                *active, col(Memory.about_end) >= lo, col(Memory.about_start) <= hi)
                .order_by(col(Memory.created_at).desc()).limit(limit)).all()
        merged = dict(recorded)
        merged.update(about)
        return [mid for mid, _ in sorted(merged.items(), key=lambda kv: kv[1], reverse=True)[:limit]]

    def _recurring(self, user_id: str, q: Query) -> list[tuple[str, str]]:
        """Habits that fall in the query's time: "금요일에 뭐 하지?" finds "매주 금요일에 요가를 해".
        Only for spans of up to a week (a habit falls in every month) or a recurring query."""
        days = []
        if q.span and (q.span[1] - q.span[0]).days < 7:
            days = [q.span[0] + timedelta(days=i) for i in range((q.span[1] - q.span[0]).days + 1)]
        if not days and q.recurrence is None:
            return []
        with Session(self.engine) as s:
            rows = s.exec(select(Memory.id, Memory.recurrence).where(
                col(Memory.user_id) == user_id, col(Memory.state) == "active",
                col(Memory.recurrence).is_not(None))).all()
        wanted = temporal.recurring.weekdays(q.recurrence) if q.recurrence else None
        out = []
        for mid, rule in rows:
            if rule is None:
                continue
            if days and any(temporal.recurring.falls_on(rule, d) for d in days):
                out.append((mid, rule))
            elif q.recurrence and not days:
                have = temporal.recurring.weekdays(rule)
                if wanted is None or have is None or wanted & have:
                    out.append((mid, rule))
        return out


def in_the_span(signals: dict) -> bool:
    """Found in, or about, the query's span (not only a habit falling in it)."""
    return "span" in signals.get("time", {})


def day_first(order: list, vectors_of, vec) -> list:
    """For a question about one day it names ("What did Maria share on 16 June, 2023?"), that day's
    memories first, among themselves by the fused order and by closeness in meaning (fused by rank,
    as fusion.py does): what was written that day answers it even when no word is shared ("Maria
    joined a gym" for "exciting news"), where doubling its score (TIME_FACTOR) left a line found by
    its day alone below thirty others. Measured on LoCoMo dev (plain items): all@10 60.8 -> 61.4."""
    inside = [t for t in order if in_the_span(t[2])]
    if not inside:
        return order
    sims = {mid: float(v @ vec) for mid, v in vectors_of([mid for _, mid, _ in inside]).items()}
    by_meaning = {mid: r for r, mid in enumerate(sorted(sims, key=lambda m: -sims[m]))}
    top = order[0][0]
    first = sorted(((top + rank_score(r) + rank_score(by_meaning.get(mid, len(inside))), mid, signals)
                    for r, (_, mid, signals) in enumerate(inside)), key=lambda t: -t[0])
    moved = {mid for _, mid, _ in inside}
    return first + [t for t in order if t[1] not in moved]


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
