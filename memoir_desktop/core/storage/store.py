"""Memories and their history in SQLite, with the derived indexes kept in step.

Every change of a memory is one History row in the same transaction. The vector and
lexical indexes are updated only after the SQLite commit; if the process dies in between,
`reconcile()` at the next open brings the vector index back in line with SQLite.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import unicodedata
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy import delete, literal_column
from sqlmodel import Session, col, select

from memoir_desktop.core.lexical import BM25Index, LexicalIndexes
from memoir_desktop.core.search_models.embedder import Embedder
from memoir_desktop.core.storage.models import History, IndexPending, IndexState, Memory, MemorySource, now
from memoir_desktop.core.storage.sealed_vectors import AnyVectorIndex
from memoir_desktop.core.storage.vectors import collection_name

log = logging.getLogger(__name__)

_SPACE = re.compile(r"\s+")
_PUNCT_END = re.compile(r"[\s.!?。…~]+$")


def text_hash(text: str) -> str:
    """Normalised hash: case, width, spacing and trailing punctuation don't make a new fact."""
    norm = unicodedata.normalize("NFKC", text).casefold()
    norm = _PUNCT_END.sub("", _SPACE.sub(" ", norm).strip())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


def memory_dict(m: Memory, **extra) -> dict:
    d = {
        "id": m.id,
        "memory": m.text,
        "user_id": m.user_id,
        "state": m.state,
        "memory_type": m.memory_type,
        "created_at": m.created_at.isoformat(),
        "updated_at": m.updated_at.isoformat(),
        "about": [m.about_start.date().isoformat(), m.about_end.date().isoformat()]
        if m.about_start and m.about_end else None,
        "recurrence": m.recurrence,
        "category": m.category,
        "source_entry_id": m.source_entry_id,
        "invalid_reason": m.invalid_reason,
        "flag": m.flag,
        "user_edited": m.user_edited,
        "metadata": dict(m.meta or {}),
    }
    d.update(extra)
    return d


@dataclass
class Change:
    """A memory change staged inside a transaction; indexes follow after the commit."""

    upsert: dict[str, str] = field(default_factory=dict)  # memory id -> text to embed
    remove: set[str] = field(default_factory=set)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # precomputed, optional
    vectors_model: str = ""  # the model that computed `vectors` (a switch may land before the apply)


class MemoryStore:
    def __init__(self, engine, vectors: AnyVectorIndex, embedder: Embedder, lexical: LexicalIndexes | None = None):
        self.engine = engine
        self.vectors = vectors
        self.embedder = embedder
        self.lexical = lexical or LexicalIndexes()
        self.lexical.register("mem", lambda user_id: ((m.id, m.text) for m in self.all(user_id)))
        self.collections = Collections(engine, vectors, embedder)

    def set_embedder(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.collections.set_embedder(embedder)

    # -- reads ------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        with Session(self.engine) as s:
            return s.get(Memory, memory_id)

    def get_many(self, ids: Iterable[str]) -> dict[str, Memory]:
        ids = list(ids)
        if not ids:
            return {}
        with Session(self.engine) as s:
            rows = s.exec(select(Memory).where(col(Memory.id).in_(ids))).all()
        return {m.id: m for m in rows}

    def all(self, user_id: str, include_invalid: bool = False) -> list[Memory]:
        with Session(self.engine) as s:
            q = select(Memory).where(col(Memory.user_id) == user_id)
            if not include_invalid:
                q = q.where(col(Memory.state) == "active")
            # rowid keeps insertion order among memories recorded at the same second.
            return list(s.exec(q.order_by(col(Memory.created_at), literal_column("memory.rowid"))))

    def find_active_by_hash(self, user_id: str, h: str) -> Memory | None:
        with Session(self.engine) as s:
            return s.exec(
                select(Memory).where(Memory.user_id == user_id, Memory.hash == h, Memory.state == "active")
            ).first()

    def history(self, memory_id: str) -> list[History]:
        with Session(self.engine) as s:
            return list(s.exec(select(History).where(col(History.memory_id) == memory_id).order_by(col(History.id))))

    # -- writes inside a caller's transaction -----------------------------------------

    @staticmethod
    def stage_add(s: Session, change: Change, *, user_id: str, text: str, actor: str,
                  created_at: datetime | None = None, entry_id: int | None = None,
                  job_id: int | None = None, about: tuple[datetime, datetime] | None = None,
                  memory_type: str = "semantic", meta: dict | None = None,
                  vector: np.ndarray | None = None, recurrence: str | None = None,
                  category: str | None = None, note: str | None = None) -> Memory:
        t = created_at or now()
        m = Memory(
            id=str(uuid.uuid4()), user_id=user_id, text=text, hash=text_hash(text), created_at=t,
            updated_at=t, source_entry_id=entry_id, memory_type=memory_type, meta=meta or {},
            about_start=about[0] if about else None, about_end=about[1] if about else None,
            recurrence=recurrence, category=category,
            user_edited=actor == "user",  # typed by the user: protected like an edit
        )
        s.add(m)
        s.flush()  # no ORM relationship orders the inserts: the memory row must exist first
        s.add(History(memory_id=m.id, event="ADD", new_memory=text, actor=actor, created_at=t,
                      entry_id=entry_id, job_id=job_id, note=note))
        if entry_id is not None:
            MemoryStore.stage_source(s, m.id, entry_id, t)
        change.upsert[m.id] = text
        if vector is not None:
            change.vectors[m.id] = vector
        stage_pending(s, "mem", m.id, user_id)
        return m

    @staticmethod
    def stage_update(s: Session, change: Change, m: Memory, text: str, *, actor: str,
                     entry_id: int | None = None, job_id: int | None = None,
                     about: tuple[datetime, datetime] | None = None, when: datetime | None = None,
                     recurrence: str | None = None, category: str | None = None) -> str:
        old = m.text
        m.text, m.hash = text, text_hash(text)
        m.updated_at = when or now()
        if about:
            m.about_start, m.about_end = about
        if recurrence:
            m.recurrence = recurrence
        if category:
            m.category = category
        if actor == "user":
            m.user_edited = True
        s.add(m)
        s.add(History(memory_id=m.id, event="UPDATE", old_memory=old, new_memory=text, actor=actor,
                      created_at=m.updated_at, entry_id=entry_id, job_id=job_id))
        if entry_id is not None:
            MemoryStore.stage_source(s, m.id, entry_id, m.updated_at)
        if m.state == "active":
            change.upsert[m.id] = text
            stage_pending(s, "mem", m.id, m.user_id)
        return old

    @staticmethod
    def stage_source(s: Session, memory_id: str, entry_id: int, when: datetime | None = None) -> None:
        """Record that an entry supports a memory (it came from it, refined it or restated it)."""
        if s.get(MemorySource, (memory_id, entry_id)) is None:
            s.add(MemorySource(memory_id=memory_id, entry_id=entry_id, created_at=when or now()))

    @staticmethod
    def stage_state(s: Session, change: Change, m: Memory, state: str, *, actor: str,
                    entry_id: int | None = None, job_id: int | None = None, note: str | None = None,
                    when: datetime | None = None, reason: str | None = None) -> None:
        """`reason`: why the system made it invalid ("source deleted"); None for a person's forget."""
        m.state = state
        m.invalid_reason = reason if state == "invalid" else None
        m.updated_at = when or now()
        s.add(m)
        event = "DELETE" if state == "invalid" else "RESTORE"
        s.add(History(memory_id=m.id, event=event, old_memory=m.text,
                      new_memory=None if state == "invalid" else m.text, actor=actor,
                      created_at=m.updated_at, entry_id=entry_id, job_id=job_id, note=note))
        if state == "invalid":
            change.remove.add(m.id)
            change.upsert.pop(m.id, None)
        else:
            change.upsert[m.id] = m.text
        stage_pending(s, "mem", m.id, m.user_id)

    # -- index maintenance ------------------------------------------------------------

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed_documents(texts)

    def apply_index(self, user_id: str, change: Change) -> None:
        """After a commit: bring the vector and lexical indexes in line with the change."""
        if change.vectors and change.vectors_model and change.vectors_model != self.embedder.name:
            change.vectors.clear()  # computed by the model in use before a switch: not comparable
        self._apply_vectors(self.collections, user_id, change.upsert, change.remove, change.vectors)
        nxt = self.collections.next
        if nxt is not None:  # the index being built for a new model must not miss what changed meanwhile
            try:
                self._apply_vectors(nxt, user_id, change.upsert, change.remove, {})
            except Exception as exc:  # the new model failing must not fail the user's change
                log.warning("the new search index missed a change: %s", exc)
                self.collections.next_failed = f"{exc.__class__.__name__}: {exc}"
        self.lexical.update(user_id, "mem", add=change.upsert.items(), remove=change.remove)
        clear_pending(self.engine, "mem", [*change.upsert, *change.remove])

    def _apply_vectors(self, cols: Collections, user_id: str, upsert: dict[str, str], remove: set[str],
                       vectors: dict[str, np.ndarray]) -> None:
        if remove and (name := cols.existing(user_id, "mem")) is not None:
            self.vectors.delete(name, remove)
        if not upsert:
            return
        todo = [mid for mid in upsert if mid not in vectors]
        vecs = dict(vectors)
        if todo:
            vecs.update(zip(todo, cols.embedder.embed_documents([upsert[mid] for mid in todo])))
        self.vectors.upsert(cols.get(user_id, "mem"), [(mid, vecs[mid]) for mid in upsert])
        if cols is self.collections:
            vectors.update(vecs)

    def collection(self, user_id: str) -> str:
        return self.collections.get(user_id, "mem")

    def searched_collection(self, user_id: str) -> str:
        """The collection a search reads: never made by a search (a read makes nothing; "" finds nothing)."""
        return self.collections.existing(user_id, "mem") or ""

    def bm25(self, user_id: str) -> BM25Index:
        return self.lexical.get(user_id, "mem")

    def users(self) -> list[str]:
        with Session(self.engine) as s:
            return list(s.exec(select(Memory.user_id).distinct()))

    def reconcile(self, progress: Callable[[int, int], None] | None = None, force: bool = False) -> dict:
        """Make the vector index match SQLite: rebuild what is missing, stale or foreign.

        Returns {"rebuilt": [user...], "added": n, "removed": n}.
        """
        report = {"rebuilt": [], "added": 0, "removed": 0}
        pending = pending_items(self.engine, "mem")
        for user_id in self.users():
            active = {m.id: m.text for m in self.all(user_id)}
            if force or not self.collections.is_current(user_id, "mem"):
                self._rebuild(user_id, active, progress)
                report["rebuilt"].append(user_id)
                continue
            name = self.collections.get(user_id, "mem")
            indexed = self.vectors.ids(name)
            missing = [mid for mid in active if mid not in indexed]
            extra = [mid for mid in indexed if mid not in active]
            if extra:
                self.vectors.delete(name, extra)
            # In chunks with progress: after a model change a search may have made the new, empty
            # collection first, and then every memory is "missing" (minutes for a large journal).
            for i in range(0, len(missing), 256):
                chunk = missing[i:i + 256]
                vecs = self.embed_texts([active[mid] for mid in chunk])
                self.vectors.upsert(name, zip(chunk, vecs))
                self.lexical.update(user_id, "mem", add=[(mid, active[mid]) for mid in chunk])
                if progress:
                    progress(min(i + 256, len(missing)), len(missing))
            report["added"] += len(missing)
            report["removed"] += len(extra)
            # Changes whose vector the app may not have stored before it was killed: applied again.
            mine = [mid for mid in pending.get(user_id, ()) if mid not in missing]
            if mine:
                self.apply_index(user_id, Change(upsert={mid: active[mid] for mid in mine if mid in active},
                                                 remove={mid for mid in mine if mid not in active}))
                report["added"] += len(mine)
        clear_pending(self.engine, "mem", [mid for ids in pending.values() for mid in ids])
        return report

    def _rebuild(self, user_id: str, active: dict[str, str], progress) -> None:
        name = self.collections.recreate(user_id, "mem")
        ids = list(active)
        total = len(ids)
        done = 0
        if progress:
            progress(0, total)
        for i in range(0, total, 256):
            chunk = ids[i:i + 256]
            vecs = self.embed_texts([active[mid] for mid in chunk])
            self.vectors.upsert(name, zip(chunk, vecs))
            done += len(chunk)
            if progress:
                progress(done, total)
        self.lexical.drop(user_id, "mem")


def stage_pending(s: Session, kind: str, item: str | int, user_id: str) -> None:
    """In the change's transaction: its vector is owed to the index (models.IndexPending)."""
    if s.get(IndexPending, (kind, str(item))) is None:
        s.add(IndexPending(kind=kind, item=str(item), user_id=user_id))


def clear_pending(engine, kind: str, items: Iterable[str | int]) -> None:
    items = [str(i) for i in items]
    if not items:
        return
    with Session(engine) as s:
        for at in range(0, len(items), 500):
            s.execute(delete(IndexPending).where(col(IndexPending.kind) == kind,
                                                 col(IndexPending.item).in_(items[at:at + 500])))
        s.commit()


def pending_items(engine, kind: str) -> dict[str, list[str]]:
    """user -> items whose vector is owed to the index."""
    out: dict[str, list[str]] = {}
    with Session(engine) as s:
        for row in s.exec(select(IndexPending).where(col(IndexPending.kind) == kind)):
            out.setdefault(row.user_id, []).append(row.item)
    return out


class Collections:
    """Per-user collections of the derived vector index, each recorded (IndexState) with the
    model that built it, so an index made by another model is detected and rebuilt.

    A collection is found by its record (user, kind, model), not by a fixed name: while a newly
    chosen model's index is built beside the one in use (index_switch.py), both exist, under
    different names. `next` is that index's Collections while it is built: every change made
    meanwhile goes to it too.
    """

    def __init__(self, engine, vectors: AnyVectorIndex, embedder: Embedder, *, shadow: bool = False):
        self.engine = engine
        self.vectors = vectors
        self.embedder = embedder
        self.shadow = shadow  # the index being built: it never drops another model's collections
        self.next: Collections | None = None
        self.next_failed: str | None = None  # why a change could not be copied into `next`
        self._names: dict[tuple[str, str], str] = {}  # (user, kind) -> collection known to exist
        self._lock = threading.Lock()

    def set_embedder(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._names.clear()

    def forget_names(self) -> None:
        """Look collections up again (another process may have rebuilt one)."""
        self._names.clear()

    def targets(self) -> list[Collections]:
        """Where a change goes: this index, and the one being built for a new model."""
        return [self] if self.next is None else [self, self.next]

    def get(self, user_id: str, kind: str) -> str:
        """The collection, created on first use."""
        name = self._names.get((user_id, kind))
        if name is not None:
            return name
        with self._lock:
            name = self._recorded(user_id, kind) or self._create(user_id, kind)
            self._names[(user_id, kind)] = name
        return name

    def existing(self, user_id: str, kind: str) -> str | None:
        """The collection if it exists, without making one (removals need no empty index)."""
        return self._names.get((user_id, kind)) or self._recorded(user_id, kind)

    def is_current(self, user_id: str, kind: str) -> bool:
        return self._recorded(user_id, kind) is not None

    def recreate(self, user_id: str, kind: str) -> str:
        with self._lock:
            self._names.pop((user_id, kind), None)
            name = self._create(user_id, kind, self._recorded(user_id, kind))
            self._names[(user_id, kind)] = name
            return name

    def drop_other_models(self, keep: set[str]) -> int:
        """Delete every collection built by a model not in `keep` (after a switch); how many."""
        with Session(self.engine) as s:
            names = list(s.exec(select(IndexState.name).where(col(IndexState.model).not_in(keep))))
        self.drop_collections(names)
        self._names.clear()
        return len(names)

    def drop_collections(self, names: list[str]) -> None:
        # The vectors first, each in its own step: an encrypted journal keeps them in this database.
        for name in names:
            self.vectors.drop(name)
        with Session(self.engine) as s:
            for name in names:
                st = s.get(IndexState, name)
                if st is not None:
                    s.delete(st)
            s.commit()

    def _records(self, user_id: str, kind: str) -> list[IndexState]:
        with Session(self.engine) as s:
            return list(s.exec(select(IndexState).where(col(IndexState.user_id) == user_id,
                                                        col(IndexState.kind) == kind)))

    def _recorded(self, user_id: str, kind: str) -> str | None:
        model = self.embedder.name
        for st in self._records(user_id, kind):
            if st.model == model and self.vectors.exists(st.name):
                return st.name
        return None

    def _create(self, user_id: str, kind: str, name: str | None = None) -> str:
        model, dim = self.embedder.name, self.embedder.dim
        records = self._records(user_id, kind)
        if name is None:
            base = collection_name(user_id, kind)
            taken = {st.name for st in records if st.model != model}
            name = base if base not in taken else f"{base}_{hashlib.sha1(model.encode()).hexdigest()[:8]}"
        if not self.shadow:
            # Another model's vectors for the same items are useless to this one; the index being
            # built for the next model (if any) is the exception.
            keep = {self.next.embedder.requested} if self.next is not None else set()
            self.drop_collections([st.name for st in records if st.name != name and st.model != model
                          and st.model not in keep])
        self.vectors.recreate(name, dim)
        with Session(self.engine) as s:
            st = s.get(IndexState, name) or IndexState(name=name, user_id=user_id, kind=kind, model=model, dim=dim)
            st.model, st.dim, st.built_at = model, dim, now()
            s.add(st)
            s.commit()
        return name
