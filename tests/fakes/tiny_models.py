"""Tiny models the tests build: a random-weight BERT cross-encoder and encoder in the format memoir downloads.

Same files as a published model (`model.onnx`, `tokenizer.json`), same inputs, a few kilobytes of
weights: the loading, scoring and install code meets a real ONNX graph and a real tokenizer.
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


def make_cross_encoder(folder: Path, texts: list[str], *, seed: int = 0, labels: int = 1) -> Path:
    """Write a random BERT sequence classifier (ONNX) and its tokenizer into `folder`."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    folder.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer(texts + ["abcdefghijklmnopqrstuvwxyz0123456789?.,!"])
    tok.save(str(folder / "tokenizer.json"))
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=256,
                        num_labels=labels, initializer_range=0.5)  # scores that differ clearly
    model = BertForSequenceClassification(config).eval()
    ids = torch.ones(2, 8, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(folder / "model.onnx"),
                      input_names=names, output_names=["logits"],
                      dynamic_axes={n: {0: "batch", 1: "tokens"} for n in names}, dynamo=False, opset_version=17)
    return folder


def make_embedder(folder: Path, texts: list[str], *, seed: int = 0) -> Path:
    """Write a random BERT encoder (ONNX, `last_hidden_state` as transformers.js exports publish it)
    and its tokenizer into `folder`."""
    import torch
    from transformers import BertConfig, BertModel

    folder.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer(texts + ["abcdefghijklmnopqrstuvwxyz0123456789?.,!"])
    tok.save(str(folder / "tokenizer.json"))
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=600,
                        initializer_range=0.5)
    model = BertModel(config, add_pooling_layer=False).eval()

    class Hidden(torch.nn.Module):  # the hidden states alone, as the published exports give them
        def __init__(self):
            super().__init__()
            self.bert = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones(2, 8, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(Hidden().eval(), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(folder / "model.onnx"),
                      input_names=names, output_names=["last_hidden_state"],
                      dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names},
                                    "last_hidden_state": {0: "batch", 1: "tokens"}},
                      dynamo=False, opset_version=17)
    return folder


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def publish(www: Path, tiny: Path, *, model_path: str | None = None, wrong_sha: bool = False, model=None) -> None:
    """Lay out a Hub-like site: the files under <repo>/resolve/main/, the listing under api/models/."""
    from memoir_desktop.core import model_catalog

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
