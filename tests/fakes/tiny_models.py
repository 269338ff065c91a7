"""Tiny models the tests build: a random-weight cross-encoder and encoder in the format memoir downloads.

Same files as a published model (`model.onnx`, `tokenizer.json`), same inputs and outputs, a few
kilobytes of weights: the loading, scoring and install code meets a real ONNX graph and a real
tokenizer. The graphs are written with the `onnx` package (the dev extra), not exported from torch,
so the tests need no torch.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]


def make_tokenizer(texts: list[str]):
    """A WordPiece tokenizer that knows every character of `texts` (alone and as a word piece)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    chars = sorted({ch for t in texts for ch in t if not ch.isspace()})
    vocab = {tok: i for i, tok in enumerate(SPECIAL + chars + [f"##{c}" for c in chars])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=False)  # Hangul stays whole
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    return tok


def _encoder_graph(vocab: int, seed: int, hidden: int = 32):
    """Nodes and weights of a small random encoder: token and segment embeddings, then each token mixed
    with the masked mean of the text (so the first token, [CLS], reads the whole text, and padding
    changes nothing), a dense layer and tanh. Built with the `onnx` package alone: no torch."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    weights = {"tok": rng.normal(0, 0.5, (vocab, hidden)), "seg": rng.normal(0, 0.5, (2, hidden)),
               "dense": rng.normal(0, 1 / hidden ** 0.5, (hidden, hidden)), "axis1": np.array([1]),
               "axis2": np.array([2])}
    inits = [numpy_helper.from_array(v.astype(np.int64 if k.startswith("axis") else np.float32), k)
             for k, v in weights.items()]
    nodes = [
        helper.make_node("Gather", ["tok", "input_ids"], ["tok_e"]),
        helper.make_node("Gather", ["seg", "token_type_ids"], ["seg_e"]),
        helper.make_node("Add", ["tok_e", "seg_e"], ["x"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_f", "axis2"], ["mask"]),  # [batch, tokens, 1]
        helper.make_node("Mul", ["x", "mask"], ["x_kept"]),
        helper.make_node("ReduceSum", ["x_kept", "axis1"], ["x_sum"], keepdims=1),
        helper.make_node("ReduceSum", ["mask", "axis1"], ["count"], keepdims=1),
        helper.make_node("Div", ["x_sum", "count"], ["x_mean"]),
        helper.make_node("Add", ["x", "x_mean"], ["mixed"]),
        helper.make_node("MatMul", ["mixed", "dense"], ["pre"]),
        helper.make_node("Tanh", ["pre"], ["act"]),
        helper.make_node("Mul", ["act", "mask"], ["hidden"]),  # [batch, tokens, hidden], padding zero
    ]
    return nodes, inits, rng


def _save(folder: Path, nodes, inits, output: str, shape: list) -> None:
    import onnx
    from onnx import TensorProto, helper

    names = ["input_ids", "attention_mask", "token_type_ids"]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"]) for n in names],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, shape)], inits)
    # IR 8 / opset 17: what every onnxruntime memoir accepts (>= 1.18) reads.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))


def make_cross_encoder(folder: Path, texts: list[str], *, seed: int = 0, labels: int = 1) -> Path:
    """Write a random sequence classifier (ONNX, `logits` [batch, labels]) and its tokenizer into `folder`."""
    import numpy as np
    from onnx import helper, numpy_helper

    folder.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer(texts + ["abcdefghijklmnopqrstuvwxyz0123456789?.,!"])
    tok.save(str(folder / "tokenizer.json"))
    nodes, inits, rng = _encoder_graph(tok.get_vocab_size(), seed)
    inits.append(numpy_helper.from_array(rng.normal(0, 1.0, (32, labels)).astype(np.float32), "head"))
    nodes += [helper.make_node("ReduceSum", ["hidden", "axis1"], ["h_sum"], keepdims=0),
              helper.make_node("ReduceSum", ["mask", "axis1"], ["h_count"], keepdims=0),
              helper.make_node("Div", ["h_sum", "h_count"], ["pooled"]),
              helper.make_node("MatMul", ["pooled", "head"], ["logits"])]
    _save(folder, nodes, inits, "logits", ["batch", labels])
    return folder


def make_embedder(folder: Path, texts: list[str], *, seed: int = 0) -> Path:
    """Write a random encoder (ONNX, `last_hidden_state` as transformers.js exports publish it) and its
    tokenizer into `folder`."""
    from onnx import helper

    folder.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer(texts + ["abcdefghijklmnopqrstuvwxyz0123456789?.,!"])
    tok.save(str(folder / "tokenizer.json"))
    nodes, inits, _ = _encoder_graph(tok.get_vocab_size(), seed)
    nodes.append(helper.make_node("Identity", ["hidden"], ["last_hidden_state"]))
    _save(folder, nodes, inits, "last_hidden_state", ["batch", "tokens", 32])
    return folder


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def publish(www: Path, tiny: Path, *, model_path: str | None = None, wrong_sha: bool = False, model=None) -> None:
    """Lay out a Hub-like site: the files under <repo>/resolve/main/, the listing under api/models/."""
    from memoir_desktop.core.search_models import model_catalog

    m = model or model_catalog.RERANKER
    model_path = model_path or m.files["model.onnx"][0]
    files = {model_path: (tiny / "model.onnx").read_bytes(), "tokenizer.json": (tiny / "tokenizer.json").read_bytes()}
    listing = []
    for path, data in files.items():
        target = www / m.repo / "resolve" / m.revision / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        item = {"type": "file", "path": path, "size": len(data), "oid": git_blob_id(data)}
        if path.endswith(".onnx"):  # large files are LFS on the Hub: their SHA-256 is published
            sha = hashlib.sha256(data).hexdigest()
            item["lfs"] = {"oid": "0" * 64 if wrong_sha else sha, "size": len(data), "pointerSize": 134}
        listing.append(item)
    listing.append({"type": "directory", "path": "onnx", "size": 0, "oid": "x"})
    api = www / "api" / "models" / m.repo / "tree" / m.revision
    api.parent.mkdir(parents=True, exist_ok=True)
    api.write_text(json.dumps(listing))
