"""A downloaded cross-encoder: reads the question and a memory together and says how well they fit.

The first stage compares a question's vector with each memory's, made apart; a cross-encoder
attends across both texts at once, so "이 뽑은 거" can meet "사랑니 발치" even with no shared word.
It is too slow to read every memory, so it reorders the first stage's top 30 for the companion's
context only (search keeps its 30 ms budget).

A model folder holds `model.onnx` (any BERT / XLM-R sequence classifier exported to ONNX: one logit,
or two where the last is "relevant") and `tokenizer.json` (the `tokenizers` format those models
publish). onnxruntime runs it on the CPU with two threads: 30 short pairs took 93 ms p50 / 106 p95
with signed int8 weights on a 2-core AVX-512 VNNI Xeon, 190 / 208 with the unsigned AVX2 build
(eval/bench_rerank.py; model_catalog picks the build for the processor).
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import numpy as np

from memoir_desktop.core.search_models.onnx_model import open_model

log = logging.getLogger(__name__)

# Memories are a sentence or two; a question a few words. Longer pairs are cut at the memory's end
# (truncation takes from the longer side first), which costs little and bounds the worst case.
MAX_TOKENS = 160
THREADS = min(2, os.cpu_count() or 1)


class CrossEncoderUnavailable(RuntimeError):
    """The model cannot be used; the message says why, in words for a user."""


class CrossEncoder:
    def __init__(self, folder: Path, *, threads: int = THREADS, max_tokens: int = MAX_TOKENS):
        self.tokenizer, self.session, self.inputs = open_model(
            folder, what="the reranker model", error=CrossEncoderUnavailable, max_tokens=max_tokens, threads=threads)
        self._lock = threading.Lock()  # one run at a time: a session's threads are shared

    def score(self, question: str, texts: list[str]) -> np.ndarray:
        """Relevance of each text to the question (higher is better; comparable within one call)."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        encoded = self.tokenizer.encode_batch([(question, t) for t in texts])
        feed = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64)}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.array([e.type_ids for e in encoded], dtype=np.int64)
        with self._lock:
            (logits,) = self.session.run(None, feed)[:1]
        logits = np.asarray(logits, dtype=np.float32).reshape(len(texts), -1)
        # Two labels (not relevant, relevant): their difference orders like the softmax does.
        return logits[:, 0] if logits.shape[1] == 1 else logits[:, -1] - logits[:, 0]
