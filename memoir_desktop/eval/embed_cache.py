"""A disk cache of embeddings for evaluation runs (never used by the app).

An evaluation run embeds the same memories and questions every time (LoCoMo dev: ~2,500 items
per variant, about 55 ms each with e5-small on two cores); a change to ranking changes none of
them. With `MEMOIR_EVAL_EMBED_CACHE=DIR` set (or `cached_embeddings(DIR)` around a run), each
(model, kind, text) is embedded once and read back afterwards, so a ranking experiment costs the
ranking, not the model. Vectors are stored as float32 exactly as the model returned them: a cached
run ranks exactly as an uncached one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from pathlib import Path

import numpy as np

ENV = "MEMOIR_EVAL_EMBED_CACHE"


def _key(model: str, kind: str, text: str) -> str:
    return hashlib.sha1(f"{model}\x00{kind}\x00{text}".encode()).hexdigest()


@contextlib.contextmanager
def cached_embeddings(folder: str | Path | None = None):
    """Wrap `Embedder.embed_documents` / `embed_query` with a cache kept in `folder` (default: the
    environment variable; neither: no cache)."""
    folder = folder or os.environ.get(ENV)
    if not folder:
        yield
        return
    from memoir_desktop.core.search_models.embedder import Embedder

    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    store: dict[str, dict[str, np.ndarray]] = {}
    dirty: set[str] = set()

    def table(model: str) -> dict[str, np.ndarray]:
        if model not in store:
            f = path / (hashlib.sha1(model.encode()).hexdigest()[:16] + ".pkl")
            store[model] = pickle.loads(f.read_bytes()) if f.exists() else {}
        return store[model]

    real_docs, real_query = Embedder.embed_documents, Embedder.embed_query

    def embed_documents(self, texts):
        t = table(self.name)
        keys = [_key(self.name, "doc", x) for x in texts]
        missing = [i for i, k in enumerate(keys) if k not in t]
        if missing:
            fresh = real_docs(self, [texts[i] for i in missing])
            for i, v in zip(missing, fresh, strict=True):
                t[keys[i]] = np.asarray(v, dtype=np.float32)
            dirty.add(self.name)
        if not keys:
            return real_docs(self, [])
        return np.stack([t[k] for k in keys]).astype(np.float32)

    def embed_query(self, text):
        t = table(self.name)
        k = _key(self.name, "query", text)
        if k not in t:
            t[k] = np.asarray(real_query(self, text), dtype=np.float32)
            dirty.add(self.name)
        return t[k].copy()

    Embedder.embed_documents, Embedder.embed_query = embed_documents, embed_query  # type: ignore[method-assign]
    try:
        yield
    finally:
        Embedder.embed_documents, Embedder.embed_query = real_docs, real_query  # type: ignore[method-assign]
        for model in dirty:
            f = path / (hashlib.sha1(model.encode()).hexdigest()[:16] + ".pkl")
            tmp = f.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(store[model], protocol=pickle.HIGHEST_PROTOCOL))
            tmp.replace(f)
