"""Episodic memory: search over the raw journal messages, not only the extracted facts.

Entries get their own derived vector collection (kind "ent") and a lazily built BM25
index. Entries are indexed by the write job *before* its LLM step, so a journal written
while the LLM is down is still searchable by meaning.
"""

from __future__ import annotations

import threading

import numpy as np
from sqlmodel import Session, select

from memoir_desktop.core.lexical import BM25Index
from memoir_desktop.core.models import Entry
from memoir_desktop.core.store import Collections
from memoir_desktop.core.vectors import VectorIndex, collection_name

MAX_EMBED_CHARS = 2000  # long entries: the opening carries the topic; embedding all of it is slow


def entry_dict(e: Entry, **extra) -> dict:
    d = {"id": f"entry:{e.id}", "entry_id": e.id, "memory": e.content, "role": e.role, "kind": "episode",
         "created_at": e.created_at.isoformat(), "updated_at": e.created_at.isoformat(), "about": None,
         "metadata": {"source": e.source}, "user_id": e.user_id}
    d.update(extra)
    return d


class EpisodeIndex:
    def __init__(self, engine, vectors: VectorIndex, collections: Collections):
        self.engine = engine
        self.vectors = vectors
        self.collections = collections
        self._bm25: dict[str, BM25Index] = {}
        self._lock = threading.Lock()

    def index(self, user_id: str, entries: list[Entry]) -> None:
        if not entries:
            return
        name = self.collections.get(user_id, "ent")
        vecs = self.collections.embedder.embed_documents([e.content[:MAX_EMBED_CHARS] for e in entries])
        self.vectors.upsert(name, [(e.id, v) for e, v in zip(entries, vecs)])
        with self._lock:
            bm = self._bm25.get(user_id)
            if bm is not None:
                for e in entries:
                    bm.add(str(e.id), e.content)

    def search(self, user_id: str, query: str, qvec: np.ndarray | None, limit: int) -> list[tuple[int, float, str]]:
        """[(entry id, rrf score, signal names)] best first."""
        from memoir_desktop.core.retrieval import rrf

        ranked: dict[str, list[tuple[int, float]]] = {}
        if qvec is not None:
            name = self.collections.get(user_id, "ent")
            ranked["dense"] = [(int(i), s) for i, s in self.vectors.search(name, qvec, limit)]
        ranked["lexical"] = [(int(i), s) for i, s in self.bm25(user_id).search(query, limit)]
        return rrf(ranked)[:limit]

    def bm25(self, user_id: str) -> BM25Index:
        with self._lock:
            bm = self._bm25.get(user_id)
            if bm is None:
                bm = BM25Index()
                with Session(self.engine) as s:
                    rows = s.exec(select(Entry.id, Entry.content).where(Entry.user_id == user_id)).all()
                bm.add_many((str(eid), content) for eid, content in rows)
                self._bm25[user_id] = bm
            return bm

    def reconcile(self, progress=None, force: bool = False) -> dict:
        """Index entries the vector index lacks (e.g. journaled while the app was killed)."""
        report = {"rebuilt": [], "added": 0}
        with Session(self.engine) as s:
            users = list(s.exec(select(Entry.user_id).distinct()))
        for user_id in users:
            with Session(self.engine) as s:
                rows = list(s.exec(select(Entry).where(Entry.user_id == user_id).order_by(Entry.id)))
            if force or not self.collections.is_current(user_id, "ent"):
                self.collections.recreate(user_id, "ent")
                report["rebuilt"].append(user_id)
                missing = rows
            else:
                have = self.vectors.ids(collection_name(user_id, "ent"))
                missing = [e for e in rows if str(e.id) not in have]
            for i in range(0, len(missing), 128):
                self.index(user_id, missing[i:i + 128])
                if progress:
                    progress(min(i + 128, len(missing)), len(missing))
            report["added"] += len(missing)
        return report
