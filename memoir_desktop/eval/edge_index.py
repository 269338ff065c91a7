"""An evaluation adapter: :class:`VectorIndex`'s interface on top of qdrant-edge.

Not used by the app. It exists so that ``bench_vectors`` and the contract test in
``tests/core/test_edge_index.py`` can compare qdrant-edge (``pip install qdrant-edge-py``,
module ``qdrant_edge``) with the project's index (qdrant-client local mode plus a numpy
mirror) behind the same methods. qdrant-edge is beta: its API and on-disk format may change.

One ``EdgeShard`` directory per collection under ``path``. Shards are opened lazily and
kept open until :meth:`close`; like qdrant-client's local mode, a shard directory can be
open only once at a time (its WAL is locked), so close an index before reopening the path.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from memoir_desktop.core.storage.vectors import point_id

try:
    from qdrant_edge import (
        CountRequest,
        Distance,
        EdgeConfig,
        EdgeShard,
        EdgeVectorParams,
        Point,
        Query,
        QueryRequest,
        ScrollRequest,
        UpdateOperation,
    )
except ImportError as exc:  # an optional evaluation dependency, not an app requirement
    raise ImportError("qdrant-edge is not installed: pip install qdrant-edge-py") from exc

# A batch crosses into Rust in one call; larger batches only cost memory for the lists.
UPSERT_BATCH = 1024
_SAFE = re.compile(r"[^A-Za-z0-9_-]")


def _dirname(name: str) -> str:
    safe = _SAFE.sub("_", name)
    if safe != name or not safe:  # keep names that differ only in unsafe characters apart
        safe += "-" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return safe


class EdgeVectorIndex:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._shards: dict[str, EdgeShard] = {}
        self._closed = False

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for shard in self._shards.values():
                shard.close()
            self._shards.clear()

    def _dir(self, name: str) -> Path:
        return self.path / _dirname(name)

    def _shard(self, name: str) -> EdgeShard | None:
        shard = self._shards.get(name)
        if shard is None and self.exists(name):
            shard = self._shards[name] = EdgeShard.load(str(self._dir(name)))
        return shard

    def _require(self, name: str) -> EdgeShard:
        shard = self._shard(name)
        if shard is None:
            raise ValueError(f"Collection {name} not found")  # what qdrant-client raises
        return shard

    # -- collections ------------------------------------------------------------------

    def exists(self, name: str) -> bool:
        with self._lock:
            return name in self._shards or (self._dir(name) / "edge_config.json").exists()

    def recreate(self, name: str, dim: int) -> None:
        with self._lock:
            self.drop(name)
            config = EdgeConfig(vectors=EdgeVectorParams(size=dim, distance=Distance.Cosine))
            self._shards[name] = EdgeShard.create(str(self._dir(name)), config)

    def ensure(self, name: str, dim: int) -> None:
        with self._lock:
            if not self.exists(name):
                self.recreate(name, dim)

    def drop(self, name: str) -> None:
        with self._lock:
            shard = self._shards.pop(name, None)
            if shard is not None:
                shard.close()  # releases the WAL lock before the files go
            shutil.rmtree(self._dir(name), ignore_errors=True)

    def optimize(self, name: str) -> bool:
        """Build the HNSW index (and merge segments); blocks until done."""
        with self._lock:
            return self._require(name).optimize()

    def count(self, name: str) -> int:
        with self._lock:
            shard = self._shard(name)
            return 0 if shard is None else shard.count(CountRequest(exact=True))

    def ids(self, name: str) -> set[str]:
        with self._lock:
            shard = self._shard(name)
            out: set[str] = set()
            offset = None
            while shard is not None:
                points, offset = shard.scroll(
                    ScrollRequest(offset=offset, limit=1024, with_payload=True, with_vector=False)
                )
                out.update(str(p.payload["item"]) for p in points)
                if offset is None:
                    break
            return out

    # -- points -----------------------------------------------------------------------

    def upsert(self, name: str, items: Iterable[tuple[str | int, np.ndarray]]) -> None:
        with self._lock:
            shard = self._require(name)
            batch: list[Point] = []
            for item_id, vec in items:
                batch.append(Point(point_id(item_id), np.asarray(vec, dtype=np.float32).tolist(),
                                   {"item": item_id}))
                if len(batch) >= UPSERT_BATCH:
                    shard.update(UpdateOperation.upsert_points(batch))
                    batch = []
            if batch:
                shard.update(UpdateOperation.upsert_points(batch))
            shard.flush()  # the WAL has it already; flush so a reopen needs no WAL replay

    def delete(self, name: str, item_ids: Iterable[str | int]) -> None:
        pids = [point_id(i) for i in item_ids]
        with self._lock:
            shard = self._shard(name)
            if shard is None or not pids:
                return
            shard.update(UpdateOperation.delete_points(pids))
            shard.flush()

    def search(self, name: str, vector: np.ndarray, limit: int) -> list[tuple[str | int, float]]:
        with self._lock:
            shard = self._shard(name)
            if shard is None:
                return []
            hits = shard.query(QueryRequest(
                query=Query.Nearest(np.asarray(vector, dtype=np.float32).tolist()),
                limit=limit, with_payload=True,
            ))
            return [(h.payload["item"], h.score) for h in hits]
