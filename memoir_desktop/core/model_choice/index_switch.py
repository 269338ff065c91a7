"""A newly chosen embedding model's search index, built beside the one in use, then swapped in.

Vectors of two models cannot be compared, so a new model means embedding every memory, entry and
graph node again: minutes with e5-small, hours with a large model on two cores. Search must keep
working meanwhile, so the new index is built into collections of its own (a shadow `Collections`),
a chunk at a time, while every change the journal makes goes to both (store.apply_index,
EpisodeIndex.index). Only when the new index holds everything does the model in use change; then
the old collections go. The target is recorded first (settings.embed_model_next), so a build cut
by a quit or a kill continues at the next start from what it had.

A chunk embeds outside the write lock (the slow part) and stores under it, after checking that no
text changed meanwhile: a change made during the embedding has already been copied into the new
index with its new text, and must not be overwritten by the old one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from sqlmodel import Session, col, select

from memoir_desktop.core.search.episodes import MAX_EMBED_CHARS
from memoir_desktop.core.search_models.embedder import Embedder
from memoir_desktop.core.storage.graph_store import GraphNode, vector_bytes
from memoir_desktop.core.storage.models import Entry, IndexState, Memory, pk
from memoir_desktop.core.storage.sealed_vectors import AnyVectorIndex
from memoir_desktop.core.storage.store import Collections

log = logging.getLogger(__name__)

KINDS = ("mem", "ent", "node")  # memories, journal entries, graph nodes (their names)
CHUNK = 32  # a few seconds with a large model on one thread: a quit waits for at most one chunk


class SwitchFailed(RuntimeError):
    """The new model cannot be used; the model in use stays. The message says why."""


@dataclass
class SwitchProgress:
    model: str
    done: int
    total: int
    finished: bool = False


class IndexSwitch:
    def __init__(self, model: str, engine, vectors: AnyVectorIndex, primary: Collections,
                 write_lock: threading.Lock, metric_sink=None):
        self.model = model
        self.engine = engine
        self.vectors = vectors
        self.primary = primary
        self.write_lock = write_lock
        self.embedder = Embedder(model, metric_sink=metric_sink, strict=True)
        self.target = Collections(engine, vectors, self.embedder, shadow=True)
        # From now on every change reaches the new index too (loading the model on the first one):
        # an edit made before the first chunk must not leave its old text there.
        primary.next, primary.next_failed = self.target, None
        self._todo: list[tuple[str, str, str | int]] | None = None  # (user, kind, item id) still to embed
        self._total = 0
        # A step and `abandon` exclude each other: a Stop clicked mid-chunk waits for the chunk, so no
        # collection is made again after it was dropped.
        self._busy = threading.Lock()
        self.abandoned = False

    # -- the build ---------------------------------------------------------------------------

    def load(self) -> None:
        """Load the new model (SwitchFailed when it cannot be)."""
        try:
            self.embedder.load()
        except Exception as exc:  # not downloaded, damaged, or its engine missing: the message says which
            raise SwitchFailed(str(exc) or exc.__class__.__name__) from exc

    def step(self, limit: int = CHUNK, should_stop: Callable[[], bool] | None = None) -> SwitchProgress | None:
        """Embed up to `limit` more items into the new index. `finished` once it holds everything;
        None when the switch was abandoned."""
        with self._busy:
            return None if self.abandoned else self._step(limit, should_stop)

    def _step(self, limit: int, should_stop: Callable[[], bool] | None) -> SwitchProgress:
        self.load()
        if self.primary.next_failed:
            raise SwitchFailed(self.primary.next_failed)
        if self._todo is None:
            self._todo = self._missing()
        chunk, self._todo = self._todo[:limit], self._todo[limit:]
        for (user_id, kind), ids in _grouped(chunk).items():
            if should_stop and should_stop():
                break
            self._embed(user_id, kind, ids)
        if not self._todo:  # look again: what was added meanwhile, or skipped because it changed
            self._todo = self._missing()
            if not self._todo:
                self._remove_extra()
                return SwitchProgress(self.model, self._total, self._total, finished=True)
        return SwitchProgress(self.model, self._total - len(self._todo), self._total)

    def _embed(self, user_id: str, kind: str, ids: list) -> None:
        texts = self._texts(kind, user_id, ids)
        if not texts:
            return
        vecs = self.embedder.embed_documents(list(texts.values()))
        name = self.target.get(user_id, kind)
        with self.write_lock:
            now = self._texts(kind, user_id, list(texts))
            keep = [(i, v) for (i, t), v in zip(texts.items(), vecs) if now.get(i) == t]
            if keep:
                self.vectors.upsert(name, keep)

    def _texts(self, kind: str, user_id: str, ids: list) -> dict:
        """What each item's vector is made from, now (items gone or changed to private are left out)."""
        with Session(self.engine) as s:
            if kind == "mem":
                rows = s.exec(select(Memory.id, Memory.text).where(
                    col(Memory.id).in_(ids), col(Memory.user_id) == user_id, col(Memory.state) == "active"))
                return dict(rows.all())
            if kind == "ent":
                rows = s.exec(select(Entry.id, Entry.content).where(
                    col(Entry.id).in_(ids), col(Entry.user_id) == user_id, col(Entry.deleted_at).is_(None)))
                return {eid: content[:MAX_EMBED_CHARS] for eid, content in rows}
            rows = s.exec(select(GraphNode.id, GraphNode.name).where(
                col(GraphNode.id).in_(ids), col(GraphNode.user_id) == user_id))
            return dict(rows.all())

    def _all(self) -> dict[tuple[str, str], list]:
        with Session(self.engine) as s:
            mems = s.exec(select(Memory.user_id, Memory.id).where(col(Memory.state) == "active")
                          .order_by(col(Memory.created_at).desc())).all()  # the newest are asked about most
            ents = s.exec(select(Entry.user_id, Entry.id).where(col(Entry.deleted_at).is_(None))
                          .order_by(col(Entry.id).desc())).all()
            nodes = s.exec(select(GraphNode.user_id, GraphNode.id)).all()
        out: dict[tuple[str, str], list] = {}
        for kind, rows in (("mem", mems), ("ent", ents), ("node", nodes)):
            for user_id, item in rows:
                out.setdefault((user_id, kind), []).append(item)
        return out

    def _missing(self) -> list[tuple[str, str, str | int]]:
        everything = self._all()
        self._total = sum(len(v) for v in everything.values())
        todo = []
        for (user_id, kind), items in everything.items():
            have = self.vectors.ids(self.target.get(user_id, kind))
            todo += [(user_id, kind, i) for i in items if str(i) not in have]
        return todo

    def _remove_extra(self) -> None:
        """What left the journal before its copy reached the new index (a crash between the two)."""
        for (user_id, kind), items in self._all().items():
            name = self.target.get(user_id, kind)
            live = {str(i) for i in items}
            extra = [i for i in self.vectors.ids(name) if i not in live]
            if extra:
                self.vectors.delete(name, [int(i) for i in extra] if kind != "mem" else extra)

    # -- the swap ----------------------------------------------------------------------------

    def node_vectors(self) -> dict[int, bytes]:
        """The graph nodes' new vectors, to store on the nodes at the swap (their index is temporary)."""
        out: dict[int, bytes] = {}
        with Session(self.engine) as s:
            users = s.exec(select(GraphNode.user_id).distinct()).all()
        for user_id in users:
            name = self.target.existing(user_id, "node")
            if name is not None:
                found = self.vectors.vectors(name, list(self.vectors.ids(name)))
                out.update({int(i): vector_bytes(v) for i, v in found.items()})
        return out

    def store_node_vectors(self) -> int:
        """Put the nodes' new vectors on them, then drop their temporary index; how many got one."""
        vecs = self.node_vectors()
        n = 0
        with Session(self.engine) as s:
            for node in s.exec(select(GraphNode).where(col(GraphNode.id).in_(list(vecs)))):
                node.embedding, node.embed_model = vecs[pk(node)], self.model
                s.add(node)
                n += 1
            s.commit()
        with Session(self.engine) as s:
            temporary = list(s.exec(select(IndexState.name).where(col(IndexState.kind) == "node")))
        self.target.drop_collections(temporary)
        return n

    def abandon(self) -> None:
        """Stop: the new index's collections go, the model in use stays."""
        with self._busy:
            self.abandoned = True
            if self.primary.next is self.target:
                self.primary.next = None
            with Session(self.engine) as s:
                mine = list(s.exec(select(IndexState.name).where(col(IndexState.model) == self.model)))
            self.target.drop_collections(mine)


def _grouped(chunk: list[tuple[str, str, str | int]]) -> dict[tuple[str, str], list]:
    out: dict[tuple[str, str], list] = {}
    for user_id, kind, item in chunk:
        out.setdefault((user_id, kind), []).append(item)
    return out
