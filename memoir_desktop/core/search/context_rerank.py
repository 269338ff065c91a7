"""The companion's context, looked at once more: by a downloaded cross-encoder, or by the user's LLM.

Settings → Search chooses: "builtin" (the learned second stage only, every machine), "cross_encoder"
(model_catalog.RERANKER, once downloaded) or "llm" (one call to the connected model, off by
default: it costs tokens on every question). Only the chat's context goes through it; search keeps
its 30 ms budget.

The cross-encoder knows meaning, not time: alone it would put back an out-of-date memory the
learned stage had ranked down ("요즘 어디 살아?" with three moves). So its ranking is fused with the
learned stage's (fusion.fuse, one constant for every source) rather than replacing it. An LLM sees
the dates and the question together, so its order is taken as it comes (nothing it leaves out is
dropped). Whatever fails — a missing or corrupt model, an unreachable LLM — the context keeps the
learned order, and `status` says why.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from memoir_desktop.core.search.fusion import fuse
from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.core.search_models.cross_encoder import CrossEncoder, CrossEncoderUnavailable

log = logging.getLogger(__name__)

MODES = ("builtin", "cross_encoder", "llm")


class ContextReranker:
    def __init__(self, mode: str = "builtin", llm: Callable[[], object] | None = None):
        self.mode = mode if mode in MODES else "builtin"
        self.llm = llm or (lambda: None)  # a getter: the journal makes a new client when settings change
        self._encoder: CrossEncoder | None = None
        self._problem = ""
        self._lock = threading.Lock()
        self.last_ms = 0.0

    def configure(self, mode: str, llm: Callable[[], object] | None = None) -> None:
        with self._lock:
            self.mode = mode if mode in MODES else "builtin"
            self.llm = llm or (lambda: None)
            # Dropped on every change, not only when another mode is chosen: the model may have been
            # removed or replaced on disk (warm() loads it again, off the answer's time).
            self._encoder = None
            self._problem = ""

    @property
    def active(self) -> bool:
        if self.mode == "llm":
            return bool(getattr(self.llm(), "configured", False))
        return self.mode == "cross_encoder"

    def status(self) -> dict:
        return {"mode": self.mode, "loaded": self._encoder is not None, "problem": self._problem,
                "last_ms": round(self.last_ms, 1)}

    def warm(self) -> None:
        """Load the reading model now (a quarter of a second, 150 MB), not in the first answer's time."""
        if self.mode == "cross_encoder":
            self._load()

    def __call__(self, question: str, candidates: list[dict]) -> list[dict]:
        if len(candidates) < 2 or not self.active:
            return candidates
        start = time.perf_counter()
        try:
            if self.mode == "cross_encoder":
                return self._cross_encode(question, candidates)
            return self._ask_llm(question, candidates)
        finally:
            self.last_ms = (time.perf_counter() - start) * 1000

    def _cross_encode(self, question: str, candidates: list[dict]) -> list[dict]:
        encoder = self._load()
        if encoder is None:
            return candidates
        try:
            scores = encoder.score(question, [c["memory"] for c in candidates])
        except Exception as exc:  # onnxruntime's own errors: a broken model must not break the chat
            self._problem = f"the reranker failed: {exc.__class__.__name__}"
            log.warning("cross-encoder failed: %s", exc.__class__.__name__)
            return candidates
        by_id = {c["id"]: c for c in candidates}
        learned = [(c["id"], float(len(candidates) - i)) for i, c in enumerate(candidates)]
        model = sorted(((c["id"], float(s)) for c, s in zip(candidates, scores)), key=lambda t: -t[1])
        out = []
        for mid, _score, signals in fuse({"learned": learned, "cross_encoder": model}):
            d = by_id[mid]
            d.setdefault("explain", {})["cross_encoder"] = signals["cross_encoder"]
            out.append(d)
        return out

    def _load(self) -> CrossEncoder | None:
        with self._lock:
            if self._encoder is not None or self._problem:
                return self._encoder
            where = model_catalog.installed(model_catalog.RERANKER)
            if where is None:
                self._problem = "the reranker model is not downloaded"
                return None
            try:
                self._encoder = CrossEncoder(where)
            except CrossEncoderUnavailable as exc:
                self._problem = str(exc)
                log.warning("cross-encoder unavailable")
            return self._encoder

    def _ask_llm(self, question: str, candidates: list[dict]) -> list[dict]:
        # Here: llm_rerank brings the openai SDK (0.75 s), which a search without an LLM never needs.
        from memoir_desktop.core.search.llm_rerank import llm_rerank

        shown = [{"id": c["id"], "text": c["memory"], "created_at": c.get("created_at")} for c in candidates]
        by_id = {c["id"]: c for c in candidates}
        return [by_id[d["id"]] for d in llm_rerank(self.llm(), question, shown)]
