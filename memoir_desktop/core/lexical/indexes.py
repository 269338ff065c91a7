"""One cache of BM25 indexes for everything searched by words: memories and journal entries.

Each (user, kind) index is built on first use from its loader (SQLite is the source) and then kept
in step by the writers' `update` calls; an index nobody built yet is not built by an update, so
writing never pays for an index no search asked for. Thread-safe: builds and updates take the
cache's lock only to find the index; the index guards its own state.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from memoir_desktop.core.lexical.bm25 import BM25Index

Loader = Callable[[str], Iterable[tuple[str, str]]]  # user id -> (doc id, text)


class LexicalIndexes:
    def __init__(self, loaders: dict[str, Loader] | None = None):
        self._loaders: dict[str, Loader] = dict(loaders or {})
        self._indexes: dict[tuple[str, str], BM25Index] = {}
        self._lock = threading.Lock()

    def register(self, kind: str, loader: Loader) -> None:
        self._loaders[kind] = loader

    def get(self, user_id: str, kind: str) -> BM25Index:
        with self._lock:
            index = self._indexes.get((user_id, kind))
            if index is None:
                index = BM25Index()
                index.add_many((str(i), text) for i, text in self._loaders[kind](user_id))
                self._indexes[(user_id, kind)] = index
            return index

    def update(self, user_id: str, kind: str, *, add: Iterable[tuple[str, str]] = (),
               remove: Iterable[str] = ()) -> None:
        with self._lock:
            index = self._indexes.get((user_id, kind))
        if index is None:
            return
        for doc_id in remove:
            index.remove(str(doc_id))
        for doc_id, text in add:
            index.add(str(doc_id), text)

    def users(self, kind: str) -> list[str]:
        """The users whose `kind` index is built (only those need to follow a change)."""
        with self._lock:
            return [u for (u, k) in self._indexes if k == kind]

    def drop_all(self) -> None:
        with self._lock:
            self._indexes.clear()

    def drop(self, user_id: str, kind: str | None = None) -> None:
        """Forget a built index (rebuilt on next use), e.g. after a rebuild or an import."""
        with self._lock:
            for key in [k for k in self._indexes if k[0] == user_id and (kind is None or k[1] == kind)]:
                del self._indexes[key]
