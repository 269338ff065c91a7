"""The vector index of an encrypted journal: points in the encrypted database, searched in memory.

Qdrant's local mode writes points (vectors, payload) to plain files, and so does the ``.npz``
mirror copy; a vector is the user's words in another form, so an encrypted journal writes
neither. Its points live in two tables of the SQLCipher database (``vector_collection``,
``vector_point``: collection, item id, float32 unit vector) and each collection is served from
the same in-memory :class:`~memoir_desktop.core.storage.mirror.Mirror` as a plain journal's, loaded from
the database on first use. Nothing but the encrypted database is touched on disk; a crash loses
nothing because every change is one committed transaction.

Same interface as :class:`~memoir_desktop.core.storage.vectors.VectorIndex` (the store, the episode
index and the graph use either without knowing which).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import Engine

from memoir_desktop.core.storage.mirror import Mirror, SimilarityStats, _unit
from memoir_desktop.core.storage.vectors import VectorIndex


def _item_key(item_id: str | int) -> str:
    return json.dumps(item_id)


class SealedVectorIndex:
    def __init__(self, engine: Engine):
        self.engine = engine
        self._lock = threading.RLock()
        self._mirror: dict[str, Mirror] = {}
        self._dims: dict[str, int] | None = None

    def close(self) -> None:
        with self._lock:
            self._mirror.clear()
            self._dims = None

    # -- collections ------------------------------------------------------------------

    def _collections(self) -> dict[str, int]:
        if self._dims is None:
            with self.engine.connect() as con:
                rows = con.execute(text("SELECT name, dim FROM vector_collection")).all()
            self._dims = {str(n): int(d) for n, d in rows}
        return self._dims

    def exists(self, name: str) -> bool:
        with self._lock:
            if name not in self._collections():
                self._dims = None  # another process may have made it since we looked (storage/outside_changes.py)
            return name in self._collections()

    def recreate(self, name: str, dim: int) -> None:
        with self._lock:
            self._collections()  # read before the write transaction, never inside it
        with self._lock, self.engine.begin() as con:
            con.execute(text("DELETE FROM vector_point WHERE collection = :n"), {"n": name})
            con.execute(text("INSERT OR REPLACE INTO vector_collection (name, dim) VALUES (:n, :d)"),
                        {"n": name, "d": dim})
            self._collections()[name] = dim
            self._mirror[name] = Mirror(dim)

    def ensure(self, name: str, dim: int) -> None:
        with self._lock:
            if name not in self._collections():
                self.recreate(name, dim)

    def drop(self, name: str) -> None:
        with self._lock:
            self._collections()
        with self._lock, self.engine.begin() as con:
            con.execute(text("DELETE FROM vector_point WHERE collection = :n"), {"n": name})
            con.execute(text("DELETE FROM vector_collection WHERE name = :n"), {"n": name})
            self._collections().pop(name, None)
            self._mirror.pop(name, None)

    def count(self, name: str) -> int:
        with self._lock:
            if name not in self._collections():
                return 0
            return len(self._load(name))

    def ids(self, name: str) -> set[str]:
        with self._lock:
            if name not in self._collections():
                return set()
            return {str(i) for i in self._load(name).ids}

    # -- points -----------------------------------------------------------------------

    def upsert(self, name: str, items: Iterable[tuple[str | int, np.ndarray]]) -> None:
        items = list(items)
        if not items:
            return
        with self._lock:
            dim = self._collections().get(name)
            if dim is None:
                raise ValueError(f"no vector collection {name!r}")
            mirror = self._load(name)
            vecs = _unit(np.stack([np.asarray(v, dtype=np.float32) for _, v in items]))
            with self.engine.begin() as con:
                con.execute(text("INSERT OR REPLACE INTO vector_point (collection, item, vec) VALUES (:c, :i, :v)"),
                            [{"c": name, "i": _item_key(i), "v": vecs[k].tobytes()} for k, (i, _) in enumerate(items)])
            mirror.upsert([i for i, _ in items], vecs)

    def delete(self, name: str, item_ids: Iterable[str | int]) -> None:
        item_ids = list(item_ids)
        if not item_ids:
            return
        with self._lock:
            if name not in self._collections():
                return
            mirror = self._load(name)
            # An id may arrive as the string of an int (ids() gives strings): delete what the mirror holds.
            held = []
            for x in item_ids:
                if x in mirror.row:
                    held.append(x)
                elif isinstance(x, str) and x.isdigit() and int(x) in mirror.row:
                    held.append(int(x))
            if not held:
                return
            with self.engine.begin() as con:
                con.execute(text("DELETE FROM vector_point WHERE collection = :c AND item = :i"),
                            [{"c": name, "i": _item_key(i)} for i in held])
            mirror.delete(held)

    def search(self, name: str, vector: np.ndarray, limit: int) -> list[tuple[str | int, float]]:
        return self.search_with_stats(name, vector, limit)[0]

    def search_with_stats(self, name: str, vector: np.ndarray, limit: int
                          ) -> tuple[list[tuple[str | int, float]], SimilarityStats]:
        with self._lock:
            if name not in self._collections():
                return [], SimilarityStats(0, 0.0, 0.0)
            return self._load(name).search_with_stats(vector, limit)

    def vectors(self, name: str, item_ids) -> dict:
        with self._lock:
            if name not in self._collections():
                return {}
            return self._load(name).vectors([str(i) for i in item_ids])

    # -- what another process changed (storage/outside_changes.py) ----------------------------

    def refresh(self, name: str, item_keys: Iterable[str]) -> None:
        """Bring the loaded copy of `name` in step with the rows another process wrote or deleted;
        `item_keys` as stored (JSON). A collection not loaded yet is read whole when first used."""
        keys = list(item_keys)
        with self._lock:
            self._dims = None
            mirror = self._mirror.get(name)
            if mirror is None or not keys:
                return
            with self.engine.connect() as con:
                rows = {}
                for i in range(0, len(keys), 500):
                    part = keys[i:i + 500]
                    marks = ", ".join(f":k{n}" for n in range(len(part)))
                    found = con.execute(text(f"SELECT item, vec FROM vector_point WHERE collection = :c "
                                             f"AND item IN ({marks})"),
                                        {"c": name, **{f"k{n}": k for n, k in enumerate(part)}}).all()
                    rows.update(dict(found))
            gone = [json.loads(k) for k in keys if k not in rows]
            held = [i for i in gone if i in mirror.row]
            if held:
                mirror.delete(held)
            if rows:
                ids = [json.loads(k) for k in rows]
                mat = np.frombuffer(b"".join(rows.values()), dtype=np.float32).reshape(len(rows), mirror.mat.shape[1]).copy()
                mirror.upsert(ids, mat)

    def forget(self) -> None:
        """Drop every loaded copy (each is read again from the database when next used)."""
        with self._lock:
            self._mirror.clear()
            self._dims = None

    def _load(self, name: str) -> Mirror:
        mirror = self._mirror.get(name)
        if mirror is not None:
            return mirror
        dim = self._collections()[name]
        with self.engine.connect() as con:
            rows = con.execute(text("SELECT item, vec FROM vector_point WHERE collection = :c"), {"c": name}).all()
        ids = [json.loads(item) for item, _ in rows]
        if rows:
            mat = np.frombuffer(b"".join(vec for _, vec in rows), dtype=np.float32).reshape(len(rows), dim).copy()
        else:
            mat = np.zeros((0, dim), dtype=np.float32)
        mirror = Mirror.from_rows(ids, mat)
        self._mirror[name] = mirror
        return mirror


AnyVectorIndex = VectorIndex | SealedVectorIndex
"""Either index: the store, the episodes and the graph use them alike."""
