"""The in-memory mirror of a vector collection, and its copy on disk.

qdrant-client's local mode scores points in Python-heavy code (73 ms at 50k points here); one
matrix-vector product over a contiguous float32 matrix takes a few ms, so searches are served
from a mirror while Qdrant stays the persistent store. Rebuilding a mirror from Qdrant means
scrolling every point through Python (9.6 s at 50k points, on the first search after start),
so each mirror is also kept as one ``.npz`` file beside the index.

A copy is trusted only while it cannot be stale. Before the first change to a collection after
its copy was written, a marker file is created and synced; the marker is removed only after a
fresh copy has replaced the old one atomically. A crash in between leaves the marker, and the
next start rebuilds that mirror from Qdrant instead.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)


class Mirror:
    """One collection's vectors as a contiguous float32 matrix, rows in insertion order."""

    def __init__(self, dim: int):
        self.ids: list = []
        self.row: dict = {}
        self.mat = np.zeros((0, dim), dtype=np.float32)
        self._n = 0

    @classmethod
    def from_rows(cls, ids: list, mat: np.ndarray) -> Mirror:
        """A mirror over rows already unit-length (as saved by ``MirrorFiles``), not copied."""
        mirror = cls(mat.shape[1])
        mirror.mat, mirror.ids, mirror._n = mat, ids, len(ids)
        mirror.row = {item: i for i, item in enumerate(ids)}
        return mirror

    def upsert(self, item_ids: list, vecs: np.ndarray) -> None:
        vecs = _unit(np.asarray(vecs, dtype=np.float32))
        new = [i for i, item in enumerate(item_ids) if item not in self.row]
        for i, item in enumerate(item_ids):
            r = self.row.get(item)
            if r is not None:
                self.mat[r] = vecs[i]
        if new:
            need = self._n + len(new)
            if need > self.mat.shape[0]:
                grown = np.zeros((max(need, self.mat.shape[0] * 2, 64), self.mat.shape[1]), dtype=np.float32)
                grown[: self._n] = self.mat[: self._n]
                self.mat = grown
            for i in new:
                self.row[item_ids[i]] = self._n
                self.ids.append(item_ids[i])
                self.mat[self._n] = vecs[i]
                self._n += 1

    def delete(self, item_ids) -> None:
        for item in item_ids:
            r = self.row.pop(item, None)
            if r is None:
                continue
            last = self._n - 1
            if r != last:  # swap the last row into the hole
                moved = self.ids[last]
                self.mat[r] = self.mat[last]
                self.ids[r] = moved
                self.row[moved] = r
            self.ids.pop()
            self._n -= 1

    def search(self, vector: np.ndarray, limit: int) -> list[tuple]:
        return self.search_with_stats(vector, limit)[0]

    def vectors(self, item_ids) -> dict:
        """The unit vectors of the items present, by id. Entry and node ids are ints in the index and
        may be asked for as text (the indexes' callers pass every id as text)."""
        out = {}
        for item in item_ids:
            row = self.row.get(item)
            if row is None and isinstance(item, str) and item.isdigit():
                row = self.row.get(int(item))
            if row is not None:
                out[item] = self.mat[row]
        return out

    def search_with_stats(self, vector: np.ndarray, limit: int) -> tuple[list[tuple], SimilarityStats]:
        """The best `limit` hits, and how the query scores against every item (its relevance floor
        compares the best hit with the query's own mean: search/floor.py)."""
        if self._n == 0:
            return [], SimilarityStats(0, 0.0, 0.0)
        scores = self.mat[: self._n] @ _unit(np.asarray(vector, dtype=np.float32))
        k = min(limit, self._n)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top], SimilarityStats(
            self._n, float(scores.mean()), float(scores.std()))

    def __len__(self) -> int:
        return self._n

    @property
    def dim(self) -> int:
        return self.mat.shape[1]


@dataclass(frozen=True)
class SimilarityStats:
    n: int
    mean: float
    std: float

    def z(self, score: float) -> float:
        return (score - self.mean) / self.std if self.std > 0 else 0.0

    def pooled(self, scores: np.ndarray) -> SimilarityStats:
        """These statistics over the items and `scores` together (search/reference.py)."""
        n = self.n + len(scores)
        if not len(scores):
            return self
        mean = (self.n * self.mean + float(scores.sum())) / n
        square = self.n * (self.std ** 2 + self.mean ** 2) + float((scores ** 2).sum())
        return SimilarityStats(n, mean, max(square / n - mean ** 2, 0.0) ** 0.5)


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norm == 0, 1, norm)


def mirror_folder(index_path: Path) -> Path:
    """Beside the Qdrant folder, not in it: Qdrant owns its folder and may rebuild it."""
    return index_path.parent / f"{index_path.name}-mirror"


class MirrorFiles:
    def __init__(self, folder: Path):
        self.folder = folder
        self._marked: set[str] = set()  # collections with a marker written by this process

    def _base(self, name: str) -> Path:
        return self.folder / hashlib.sha1(name.encode("utf-8")).hexdigest()[:20]

    def changing(self, name: str) -> None:
        """Call before changing the collection: its copy is not trusted until saved again."""
        if name in self._marked:
            return
        marker = self._base(name).with_suffix(".changing")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(marker, "wb") as f:
                os.fsync(f.fileno())
        except OSError as exc:
            # No marker (disk full?): then no copy either, or the next start could trust a
            # stale one. If even that fails the change must not go ahead.
            log.warning("mirror change marker not written (%s); dropping the copy", exc.__class__.__name__)
            self._base(name).with_suffix(".npz").unlink(missing_ok=True)
        self._marked.add(name)

    def marked(self) -> set[str]:
        return set(self._marked)

    def load(self, name: str) -> Mirror | None:
        base = self._base(name)
        if base.with_suffix(".changing").exists():
            return None
        try:
            with np.load(base.with_suffix(".npz"), allow_pickle=False) as data:
                mat = np.ascontiguousarray(data["mat"], dtype=np.float32)
                ids = json.loads(str(data["ids"]))
        except FileNotFoundError:
            return None
        except Exception as exc:  # a damaged copy is only a slower start
            log.warning("mirror copy unreadable (%s); rebuilding it from the index", exc.__class__.__name__)
            return None
        if mat.ndim != 2 or len(ids) != mat.shape[0]:
            return None
        return Mirror.from_rows(ids, mat)

    def save(self, name: str, mirror: Mirror) -> None:
        self.changing(name)  # a copy half-written by a crash must not be trusted either
        base = self._base(name)
        tmp = base.with_suffix(".tmp.npz")
        try:
            np.savez(tmp, mat=mirror.mat[: len(mirror)], ids=np.array(json.dumps(mirror.ids)))
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, base.with_suffix(".npz"))
            base.with_suffix(".changing").unlink(missing_ok=True)
            self._marked.discard(name)
        except OSError as exc:  # disk full or read-only: the marker stays, the next start rebuilds
            log.warning("mirror copy not written (%s)", exc.__class__.__name__)
            tmp.unlink(missing_ok=True)

    def forget(self, name: str) -> None:
        self.changing(name)
        self._base(name).with_suffix(".npz").unlink(missing_ok=True)
