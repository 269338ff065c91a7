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

from memoir_desktop.core import model_engine

log = logging.getLogger(__name__)

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
# Memories are a sentence or two; a question a few words. Longer pairs are cut at the memory's end
# (truncation takes from the longer side first), which costs little and bounds the worst case.
MAX_TOKENS = 160
THREADS = min(2, os.cpu_count() or 1)


class CrossEncoderUnavailable(RuntimeError):
    """The model cannot be used; the message says why, in words for a user."""


class CrossEncoder:
    def __init__(self, folder: Path, *, threads: int = THREADS, max_tokens: int = MAX_TOKENS):
        folder = Path(folder)
        for name in (MODEL_FILE, TOKENIZER_FILE):
            if not (folder / name).is_file():
                raise CrossEncoderUnavailable(f"the reranker model is incomplete ({name} is missing)")
        model_engine.activate()  # an engine fetched with the model, where the app came without one
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise CrossEncoderUnavailable(f"the reranker's engine is not installed ({exc.name})") from exc
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.enable_truncation(max_tokens)
        pad = self.tokenizer.padding or {}
        pad_token = pad.get("pad_token") or next(
            (t for t in ("<pad>", "[PAD]") if self.tokenizer.token_to_id(t) is not None), None)
        pad_id = self.tokenizer.token_to_id(pad_token) if pad_token else 0
        self.tokenizer.enable_padding(pad_id=pad_id or 0, pad_token=pad_token or "[PAD]")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Spinning threads fight the UI and the writer for two cores (the embedder found the same).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(str(folder / MODEL_FILE), options,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types for a corrupt or foreign file
            raise CrossEncoderUnavailable(f"the reranker model could not be loaded: {exc}") from exc
        self.inputs = {i.name for i in self.session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self.inputs
        if missing:
            raise CrossEncoderUnavailable(f"the reranker model lacks the inputs {sorted(missing)}")
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
