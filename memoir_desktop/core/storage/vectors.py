"""Embedded Qdrant as a *derived* index, keyed by SQLite ids, always rebuildable.

Shape chosen for qdrant-client's local mode, which checks payload filters in Python point
by point (114 ms at 10k points) but searches unfiltered fast (8 ms): one collection per
user and kind, holding only active items, so the hot search needs no filter at all.
One client per path per process (local mode locks the directory); closed explicitly.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from memoir_desktop.core.storage.mirror import Mirror, MirrorFiles, SimilarityStats, mirror_folder

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

log = logging.getLogger(__name__)


# qdrant-client is imported on first use: its models take about a second to import, and an
# encrypted journal (the default) keeps its vectors in SQLCipher and never needs them.
def _new_client(path: Path) -> QdrantClient:
    from qdrant_client import QdrantClient

    return QdrantClient(path=str(path))


def _models():
    from qdrant_client import models

    return models


_CLIENTS: dict[str, tuple[QdrantClient, int]] = {}
_CLIENTS_LOCK = threading.Lock()
UPSERT_BATCH = 256


def _acquire(path: Path) -> QdrantClient:
    key = str(path.resolve())
    with _CLIENTS_LOCK:
        client, refs = _CLIENTS.get(key, (None, 0))
        if client is None:
            client = _open_client(path)
        _CLIENTS[key] = (client, refs + 1)
        return client


class IndexBusy(RuntimeError):
    """Another program holds a plain journal's vector files (Qdrant's local mode allows one)."""


def _open_client(path: Path) -> QdrantClient:
    try:
        return _new_client(path)
    except RuntimeError as exc:
        # An encrypted journal keeps its vectors in the database, which two programs share; a plain
        # one keeps them in files only one program may hold.
        raise IndexBusy("memoir is open in another program, and a journal that is not encrypted can be "
                        "used by one program at a time: close the other one, or encrypt the journal "
                        "(memoir-cli encrypt), after which both can use it.") from exc
    except Exception as exc:  # a damaged index is rebuilt from SQLite
        log.warning("vector index at %s unreadable (%s); starting a new one", path.name, exc)
        shutil.rmtree(path, ignore_errors=True)
        shutil.rmtree(mirror_folder(path), ignore_errors=True)  # copies of what was just lost
        return _new_client(path)


def _release(path: Path) -> None:
    key = str(path.resolve())
    with _CLIENTS_LOCK:
        client, refs = _CLIENTS.get(key, (None, 0))
        if client is None:
            return
        if refs <= 1:
            del _CLIENTS[key]
            client.close()
        else:
            _CLIENTS[key] = (client, refs - 1)


def collection_name(user_id: str, kind: str) -> str:
    digest = hashlib.sha1(user_id.encode("utf-8")).hexdigest()[:16]
    return f"{kind}_{digest}"


def point_id(item_id: str | int) -> str:
    """Qdrant wants UUIDs or ints; memory ids are UUID strings, entry ids are ints."""
    if isinstance(item_id, int):
        return str(uuid.UUID(int=item_id))
    return str(item_id)


class VectorIndex:
    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self._client = _acquire(path)
        self._lock = threading.RLock()
        self._closed = False
        self._mirror: dict[str, Mirror] = {}
        self._files = MirrorFiles(mirror_folder(path))

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for name in self._files.marked():  # changed since their copies were written
                if name in self._mirror:
                    self._files.save(name, self._mirror[name])
            _release(self.path)

    # -- collections ------------------------------------------------------------------

    def exists(self, name: str) -> bool:
        with self._lock:
            return self._client.collection_exists(name)

    def recreate(self, name: str, dim: int) -> None:
        with self._lock:
            self._files.changing(name)
            self._mirror[name] = Mirror(dim)
            if self._client.collection_exists(name):
                self._client.delete_collection(name)
            models = _models()
            self._client.create_collection(
                name, vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE)
            )

    def ensure(self, name: str, dim: int) -> None:
        with self._lock:
            if not self._client.collection_exists(name):
                self.recreate(name, dim)

    def drop(self, name: str) -> None:
        with self._lock:
            self._mirror.pop(name, None)
            self._files.forget(name)
            if self._client.collection_exists(name):
                self._client.delete_collection(name)

    def count(self, name: str) -> int:
        with self._lock:
            if not self._client.collection_exists(name):
                return 0
            return self._client.count(name, exact=True).count

    def ids(self, name: str) -> set[str]:
        with self._lock:
            if not self._client.collection_exists(name):
                return set()
            out, offset = set(), None
            while True:
                points, offset = self._client.scroll(
                    name, limit=1024, offset=offset, with_payload=["item"], with_vectors=False
                )
                out.update(str((p.payload or {})["item"]) for p in points)
                if offset is None:
                    return out

    def collections(self) -> list[tuple[str, int]]:
        """Every collection and its dimension (moving an index into an encrypted journal)."""
        with self._lock:
            return [(c.name, self._dim(c.name)) for c in self._client.get_collections().collections]

    def all_vectors(self, name: str) -> list[tuple[str | int, np.ndarray]]:
        with self._lock:
            mirror = self._mirror.get(name) or self._load_mirror(name)
            return [(item, mirror.mat[i]) for i, item in enumerate(mirror.ids)]

    # -- points -----------------------------------------------------------------------

    def upsert(self, name: str, items: Iterable[tuple[str | int, np.ndarray]]) -> None:
        models = _models()
        batch = []
        items = list(items)
        with self._lock:
            self._before_change(name)
            for item_id, vec in items:
                batch.append(
                    models.PointStruct(
                        id=point_id(item_id), vector=np.asarray(vec, dtype=np.float32).tolist(),
                        payload={"item": item_id},
                    )
                )
                if len(batch) >= UPSERT_BATCH:
                    self._client.upsert(name, points=batch, wait=True)
                    batch = []
            if batch:
                self._client.upsert(name, points=batch, wait=True)
            mirror = self._mirror.get(name)
            if mirror is not None and items:
                mirror.upsert([i for i, _ in items], np.stack([v for _, v in items]))

    def delete(self, name: str, item_ids: Iterable[str | int]) -> None:
        item_ids = list(item_ids)
        pids = [point_id(i) for i in item_ids]
        if not pids:
            return
        with self._lock:
            self._before_change(name)
            mirror = self._mirror.get(name)
            if mirror is not None:
                mirror.delete(item_ids)
            if self._client.collection_exists(name):
                self._client.delete(name, points_selector=_models().PointIdsList(points=list(pids)), wait=True)

    def search(self, name: str, vector: np.ndarray, limit: int) -> list[tuple[str | int, float]]:
        return self.search_with_stats(name, vector, limit)[0]

    def search_with_stats(self, name: str, vector: np.ndarray, limit: int
                          ) -> tuple[list[tuple[str | int, float]], SimilarityStats]:
        with self._lock:
            mirror = self._mirror.get(name)
            if mirror is None:
                if not name or not self._client.collection_exists(name):  # "": none made yet (Qdrant refuses it)
                    return [], SimilarityStats(0, 0.0, 0.0)
                mirror = self._load_mirror(name)
            return mirror.search_with_stats(vector, limit)

    def vectors(self, name: str, item_ids) -> dict:
        """Stored unit vectors by item id (from the mirror; absent items are left out)."""
        with self._lock:
            mirror = self._mirror.get(name)
            if mirror is None:
                if not name or not self._client.collection_exists(name):
                    return {}
                mirror = self._load_mirror(name)
            return mirror.vectors([str(i) for i in item_ids])

    def _before_change(self, name: str) -> None:
        # Load a trusted copy before the change makes it untrusted, so the mirror stays warm
        # (the writer often changes a collection before the first search after start).
        if name not in self._mirror and self._client.collection_exists(name):
            self._from_copy(name)
        self._files.changing(name)

    def _dim(self, name: str) -> int:
        vectors = self._client.get_collection(name).config.params.vectors
        assert isinstance(vectors, _models().VectorParams), "memoir's collections have one unnamed vector"
        return vectors.size

    def _from_copy(self, name: str) -> Mirror | None:
        # The file first: with a change marker present it answers without touching Qdrant.
        mirror = self._files.load(name)
        # The count check catches a copy that outlived its index (restored or rebuilt elsewhere).
        if mirror is None or mirror.dim != self._dim(name) or len(mirror) != self._client.count(name, exact=True).count:
            return None
        self._mirror[name] = mirror
        return mirror

    def _load_mirror(self, name: str) -> Mirror:
        if (mirror := self._from_copy(name)) is not None:
            return mirror
        mirror = Mirror(self._dim(name))
        offset = None
        while True:
            points, offset = self._client.scroll(name, limit=2048, offset=offset, with_payload=["item"],
                                                 with_vectors=True)
            if points:
                mirror.upsert([(p.payload or {})["item"] for p in points], np.asarray([p.vector for p in points]))
            if offset is None:
                break
        self._mirror[name] = mirror
        self._files.save(name, mirror)
        return mirror


ProgressFn = Callable[[int, int], None]
