"""Episodic memory: search over the raw journal messages, not only the extracted facts.

Entries get their own derived vector collection (kind "ent") and a BM25 index in the shared
lexical cache (kind "ent"). Entries are indexed by the write job *before* its LLM step, so a
journal written while the LLM is down is still searchable by meaning.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from memoir_desktop.core.lexical import BM25Index, LexicalIndexes
from memoir_desktop.core.search.first_stage import rankings
from memoir_desktop.core.search.fusion import fuse
from memoir_desktop.core.search.query import Query
from memoir_desktop.core.storage.models import Entry, pk
from memoir_desktop.core.storage.sealed_vectors import AnyVectorIndex
from memoir_desktop.core.storage.store import Collections, clear_pending, pending_items

MAX_EMBED_CHARS = 2000  # long entries: the opening carries the topic; embedding all of it is slow


def entry_dict(e: Entry, **extra) -> dict:
    d = {"id": f"entry:{e.id}", "entry_id": e.id, "memory": e.content, "role": e.role, "kind": "episode",
         "created_at": e.created_at.isoformat(), "updated_at": e.created_at.isoformat(), "about": None,
         "metadata": {"source": e.source}, "user_id": e.user_id}
    d.update(extra)
    return d


class EpisodeIndex:
    def __init__(self, engine, vectors: AnyVectorIndex, collections: Collections, lexical: LexicalIndexes):
        self.engine = engine
        self.vectors = vectors
        self.collections = collections
        self.lexical = lexical
        lexical.register("ent", self._entries_of)

    def index(self, user_id: str, entries: list[Entry]) -> None:
        if not entries:
            return
        self.index_into(self.collections, user_id, entries)
        nxt = self.collections.next
        if nxt is not None:  # the index being built for a new model must not miss it (index_switch.py)
            try:
                self.index_into(nxt, user_id, entries)
            except Exception as exc:
                self.collections.next_failed = f"{exc.__class__.__name__}: {exc}"
        self.lexical.update(user_id, "ent", add=[(str(e.id), e.content) for e in entries])
        clear_pending(self.engine, "ent", [pk(e) for e in entries])

    def index_into(self, cols: Collections, user_id: str, entries: list[Entry]) -> None:
        vecs = cols.embedder.embed_documents([e.content[:MAX_EMBED_CHARS] for e in entries])
        self.vectors.upsert(cols.get(user_id, "ent"), [(pk(e), v) for e, v in zip(entries, vecs)])

    def remove(self, user_id: str, entry_ids: list[int]) -> None:
        """An entry put in the trash (or deleted forever) leaves the episodic and entry search."""
        for cols in self.collections.targets():
            name = cols.existing(user_id, "ent")
            if name is not None:
                self.vectors.delete(name, entry_ids)
        self.lexical.update(user_id, "ent", remove=[str(i) for i in entry_ids])

    def dense(self, user_id: str, vec, limit: int):
        """(hits, similarity stats) over the user's entries."""
        return self.vectors.search_with_stats(self.collections.existing(user_id, "ent") or "", vec, limit)

    def search(self, user_id: str, q: Query, limit: int) -> list[tuple[int, float, dict]]:
        """[(entry id, fused score, signals)] best first: the companion's context ranks, never cuts."""
        ranked = rankings(q, self.bm25(user_id), lambda vec, depth: self.dense(user_id, vec, depth),
                          self.collections.embedder, depth=limit, listing=False, what="episode search")
        return fuse({k: [(int(i), s) for i, s in v] for k, v in ranked.items()})[:limit]  # type: ignore[return-value]

    def bm25(self, user_id: str) -> BM25Index:
        return self.lexical.get(user_id, "ent")

    def entries_by_id(self, ids: list[int]) -> list[Entry]:
        if not ids:
            return []
        with Session(self.engine) as s:
            return list(s.exec(select(Entry).where(col(Entry.id).in_(ids))))

    def _entries_of(self, user_id: str) -> list[tuple[str, str]]:
        with Session(self.engine) as s:
            rows = s.exec(select(Entry.id, Entry.content).where(col(Entry.user_id) == user_id,
                                                                col(Entry.deleted_at).is_(None))).all()
        return [(str(eid), content) for eid, content in rows]

    def reconcile(self, progress=None, force: bool = False) -> dict:
        """Index entries the vector index lacks (e.g. journaled while the app was killed)."""
        report = {"rebuilt": [], "added": 0}
        pending = pending_items(self.engine, "ent")
        with Session(self.engine) as s:
            users = list(s.exec(select(Entry.user_id).distinct()))
        for user_id in users:
            with Session(self.engine) as s:
                rows = list(s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.deleted_at).is_(None))
                                   .order_by(col(Entry.id))))
            if force or not self.collections.is_current(user_id, "ent"):
                self.collections.recreate(user_id, "ent")
                report["rebuilt"].append(user_id)
                missing = rows
            else:
                name = self.collections.get(user_id, "ent")
                have = self.vectors.ids(name)
                missing = [e for e in rows if str(e.id) not in have]
                live = {str(e.id) for e in rows}
                extra = [int(i) for i in have if i not in live]  # trashed or deleted while the app was down
                if extra:
                    self.vectors.delete(name, extra)
            for i in range(0, len(missing), 128):
                self.index_into(self.collections, user_id, missing[i:i + 128])
                self.lexical.update(user_id, "ent", add=[(str(e.id), e.content) for e in missing[i:i + 128]])
                if progress:
                    progress(min(i + 128, len(missing)), len(missing))
            # Edits whose new vector the app may not have stored before it was killed: indexed again.
            owed = set(pending.get(user_id, ())) - {str(e.id) for e in missing}
            again = [e for e in rows if str(e.id) in owed]
            if again:
                self.index(user_id, again)
                report["added"] += len(again)
            report["added"] += len(missing)
        clear_pending(self.engine, "ent", [i for ids in pending.values() for i in ids])
        return report
