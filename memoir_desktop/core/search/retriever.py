"""The read path's front: one Query per request, handed to every source, then the cold path.

Sources: facts (memories), episodes (past journal messages) and the graph's relations. The cold
path asks the sources the router chose, one after the other on the caller's thread (each takes a
few milliseconds once the query is embedded, so a pool of its own inside the reads pool only
added threads); a source that fails is skipped, never fatal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, select

from memoir_desktop.core.search.context_rerank import ContextReranker
from memoir_desktop.core.search.episodes import EpisodeIndex, entry_dict
from memoir_desktop.core.search.facts import FactSearch
from memoir_desktop.core.search.query import Query
from memoir_desktop.core.search.rerank import POOL
from memoir_desktop.core.search.router import Route
from memoir_desktop.core.storage.models import Entry
from memoir_desktop.core.storage.store import MemoryStore, text_hash

log = logging.getLogger(__name__)

GraphSearch = Callable[[str, Query, int], list[dict]]


@dataclass
class ColdPath:
    memories: list[dict] = field(default_factory=list)
    episodes: list[dict] = field(default_factory=list)
    relations: list[dict] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # source -> why
    ms: dict[str, float] = field(default_factory=dict)


class Retriever:
    def __init__(self, engine, store: MemoryStore, episodes: EpisodeIndex, graph_search: GraphSearch | None = None):
        self.engine = engine
        self.store = store
        self.episodes = episodes
        self.facts = FactSearch(engine, store)
        self.graph_search = graph_search
        self.context_rerank = ContextReranker()  # the companion's context only (Settings → Search)
        # Every search starts from a Query made here: what other processes wrote is followed first.
        self.before_search: Callable[[], object] = lambda: None

    def read_query(self, text: str, now: datetime | None = None) -> Query:
        self.before_search()
        return Query.of(text, now, self.store.embedder)

    def search(self, user_id: str, query: str | Query, *, limit: int = 10, filters: dict | None = None,
               now: datetime | None = None, listing: bool = False) -> list[dict]:
        q = query if isinstance(query, Query) else self.read_query(query, now)
        return self.facts.search(user_id, q, limit=limit, filters=filters, listing=listing)

    def cold_path(self, user_id: str, query: str | Query, r: Route, *, limit: int, now: datetime) -> ColdPath:
        out = ColdPath()
        if not r.retrieve:
            return out
        q = query if isinstance(query, Query) else self.read_query(query, now)
        if q.vector() is None:
            out.skipped["dense"] = q.vector_error or "no vector"
        sources: dict[str, Callable[[], list[dict]]] = {"facts": lambda: self._facts(user_id, q, limit)}
        if "episodic" in r.sources:
            sources["episodic"] = lambda: self._episodes(user_id, q, limit)
        if "graph" in r.sources and self.graph_search is not None:
            sources["graph"] = lambda: self.graph_search(user_id, q, limit)  # type: ignore[misc]
        for name, fn in sources.items():
            start = time.perf_counter()
            try:
                result = fn()
            except Exception as exc:  # a failing source is skipped
                log.warning("retrieval source %s failed: %s", name, exc.__class__.__name__)
                out.skipped[name] = f"{exc.__class__.__name__}: {exc}"
                continue
            out.ms[name] = (time.perf_counter() - start) * 1000
            setattr(out, {"facts": "memories", "episodic": "episodes", "graph": "relations"}[name], result)
        # An episode that only repeats a retrieved fact adds tokens, not knowledge.
        known = {text_hash(m["memory"]) for m in out.memories}
        out.episodes = [e for e in out.episodes if text_hash(e["memory"]) not in known]
        return out

    def _facts(self, user_id: str, q: Query, limit: int) -> list[dict]:
        if not self.context_rerank.active:
            return self.facts.search(user_id, q, limit=limit)
        return self.context_rerank(q.text, self.facts.search(user_id, q, limit=max(limit, POOL)))[:limit]

    def _episodes(self, user_id: str, q: Query, limit: int) -> list[dict]:
        hits = self.episodes.search(user_id, q, limit)
        ids = [i for i, _, _ in hits]
        with Session(self.engine) as s:
            rows = {e.id: e for e in s.exec(select(Entry).where(col(Entry.id).in_(ids)))}
        # Episodes go into answer contexts, where the gate leaves private ones out (and counts them).
        return [entry_dict(rows[i], score=round(sc, 6), explain=sig) for i, sc, sig in hits
                if i in rows and rows[i].user_id == user_id and rows[i].deleted_at is None
                and rows[i].kind != "letter"]  # memoir's letters are not what the user said
