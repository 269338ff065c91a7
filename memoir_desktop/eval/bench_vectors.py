"""Benchmark memoir's vector index against qdrant-client local mode and qdrant-edge.

    python -m memoir_desktop.eval.bench_vectors [--sizes 10000 50000] [--queries 300] [--json OUT]

For each size N: N synthetic 384-dim unit vectors (2000 random unit base vectors plus gaussian
noise of sd 0.05 per dimension, renormalised; fixed seed) and ``--queries`` queries drawn the
same way, loaded in batches of 500 into

* ``memoir VectorIndex``: the app's index; search is served by its in-memory numpy mirror;
* ``qdrant-client local``: the same data through ``QdrantClient(path=...)`` alone (its own
  directory), search by ``query_points``, no mirror;
* ``qdrant-edge exact``: :class:`~memoir_desktop.eval.edge_index.EdgeVectorIndex` as loaded
  (no HNSW yet, so every search scans);
* ``qdrant-edge HNSW``: the same shard after ``optimize()``.

Columns: ``load s`` (all upserts), ``optimize s``, search p50/p95 in ms (top 30, one query at
a time), ``recall@10`` of the top 10 against exact numpy, ``reopen s`` (close, open a new
instance on the same path, time until the first search answers). Progress goes to stderr;
the table and the load average go to stdout. Everything lives in temporary directories.
Runs several minutes at the default sizes (qdrant-client local loads 50k points in ~2 min).

``python -m`` imports :mod:`memoir_desktop` first, which sets ``OPENBLAS_NUM_THREADS=1``
before numpy loads, so the numpy paths here run like they do in the app.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from importlib.metadata import version
from pathlib import Path

import numpy as np
from qdrant_client import QdrantClient, models

from memoir_desktop.core.storage.vectors import VectorIndex, point_id
from memoir_desktop.eval.edge_index import EdgeVectorIndex

DIM = 384
BASES = 2000
NOISE = 0.05
BATCH = 500
TOP = 30
RECALL_K = 10
NAME = "bench"
_T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - _T0:7.1f}s] {msg}", file=sys.stderr, flush=True)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def make_data(n: int, queries: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    bases = _unit(rng.normal(size=(BASES, DIM)))

    def draw(k: int) -> np.ndarray:
        v = bases[rng.integers(BASES, size=k)] + rng.normal(scale=NOISE, size=(k, DIM))
        return _unit(v).astype(np.float32)

    return draw(n), draw(queries)


def exact_top(data: np.ndarray, queries: np.ndarray, ids: list[str]) -> list[set[str]]:
    scores = queries @ data.T
    top = np.argpartition(-scores, RECALL_K - 1, axis=1)[:, :RECALL_K]
    return [{ids[j] for j in row} for row in top]


def measure(search, queries: np.ndarray, truth: list[set[str]]) -> dict:
    """Latency and recall of ``search(q) -> [item ids, best first]``, one query at a time."""
    times, hits = [], 0
    for q, want in zip(queries, truth):
        t = time.perf_counter()
        got = search(q)
        times.append(time.perf_counter() - t)
        hits += len(want & set(got[:RECALL_K]))
    ms = np.array(times) * 1000
    return {"p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
            "recall": hits / (RECALL_K * len(queries))}


def _batches(ids: list[str], data: np.ndarray):
    for s in range(0, len(ids), BATCH):
        yield ids[s:s + BATCH], data[s:s + BATCH]


def _index_search(idx):
    return lambda q: [i for i, _ in idx.search(NAME, q, TOP)]


def _reopen(open_fn, make_search, first_query: np.ndarray):
    """Open a new instance and run one search; returns (instance, seconds until it answered).

    The first search counts because that is when the app's index builds its mirror.
    """
    t = time.perf_counter()
    inst = open_fn()
    make_search(inst)(first_query)
    return inst, time.perf_counter() - t


def _bench_index(engine: str, open_fn, ids, data, queries, truth, info=lambda idx: ""):
    """Load, search and reopen an index with VectorIndex's interface; returns (row, reopened index)."""
    log(f"{engine}: loading")
    idx = open_fn()
    idx.recreate(NAME, DIM)
    t = time.perf_counter()
    for bid, bvec in _batches(ids, data):
        idx.upsert(NAME, zip(bid, bvec))
    load = time.perf_counter() - t
    log(f"{engine}: loaded in {load:.1f}s{info(idx)}; searching")
    row = {"engine": engine, "load_s": load, "optimize_s": None, **measure(_index_search(idx), queries, truth)}
    idx.close()
    log(f"{engine}: reopening")
    idx, row["reopen_s"] = _reopen(open_fn, _index_search, queries[0])
    return row, idx


def bench_memoir(root: Path, ids, data, queries, truth) -> list[dict]:
    row, idx = _bench_index("memoir VectorIndex", lambda: VectorIndex(root / "memoir"), ids, data, queries, truth)
    idx.close()
    return [row]


def _client_search(client: QdrantClient):
    return lambda q: [p.payload["item"] for p in
                      client.query_points(NAME, query=q.tolist(), limit=TOP, with_payload=True).points]


def bench_client(root: Path, ids, data, queries, truth) -> list[dict]:
    log("qdrant-client local: loading")
    path = str(root / "client")
    client = QdrantClient(path=path)
    client.create_collection(NAME, vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE))
    t = time.perf_counter()
    for bid, bvec in _batches(ids, data):
        points = [models.PointStruct(id=point_id(i), vector=v.tolist(), payload={"item": i})
                  for i, v in zip(bid, bvec)]
        client.upsert(NAME, points=points, wait=True)
    load = time.perf_counter() - t
    log(f"qdrant-client local: loaded in {load:.1f}s; searching")
    row = {"engine": "qdrant-client local", "load_s": load, "optimize_s": None,
           **measure(_client_search(client), queries, truth)}
    client.close()
    log("qdrant-client local: reopening")
    client, row["reopen_s"] = _reopen(lambda: QdrantClient(path=path), _client_search, queries[0])
    client.close()
    return [row]


def _edge_info(idx: EdgeVectorIndex) -> str:
    info = idx._shard(NAME).info()
    return f" ({info.points_count} points, {info.segments_count} segments, {info.indexed_vectors_count} indexed)"


def bench_edge(root: Path, ids, data, queries, truth) -> list[dict]:
    exact, idx = _bench_index("qdrant-edge exact", lambda: EdgeVectorIndex(root / "edge"), ids, data, queries,
                              truth, _edge_info)
    log("qdrant-edge: optimize (HNSW build)")
    t = time.perf_counter()
    idx.optimize(NAME)
    opt = time.perf_counter() - t
    log(f"qdrant-edge: optimized in {opt:.1f}s{_edge_info(idx)}; searching")
    hnsw = {"engine": "qdrant-edge HNSW", "load_s": None, "optimize_s": opt,
            **measure(_index_search(idx), queries, truth)}
    idx.close()
    log("qdrant-edge: reopening after optimize")
    idx, hnsw["reopen_s"] = _reopen(lambda: EdgeVectorIndex(root / "edge"), _index_search, queries[0])
    idx.close()
    return [exact, hnsw]


def _fmt(x, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def table(rows: list[dict]) -> str:
    out = ["| engine | size | load s | optimize s | search p50 ms | search p95 ms | recall@10 | reopen s |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['engine']} | {r['size']} | {_fmt(r['load_s'], '.1f')} | {_fmt(r['optimize_s'], '.1f')}"
                   f" | {r['p50_ms']:.2f} | {r['p95_ms']:.2f} | {r['recall']:.3f} | {r['reopen_s']:.2f} |")
    return "\n".join(out)


def loadavg() -> str:
    return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000, 50000])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args(argv)

    start_load = loadavg()
    print(f"cpus {os.cpu_count()}, numpy {np.__version__}, qdrant-client {version('qdrant-client')}, "
          f"qdrant-edge-py {version('qdrant-edge-py')}; {start_load} at start")
    rows: list[dict] = []
    for n in args.sizes:
        log(f"size {n}: generating data")
        data, queries = make_data(n, args.queries, args.seed)
        ids = [str(uuid.UUID(int=i + 1)) for i in range(n)]  # memory ids are UUID strings
        truth = exact_top(data, queries, ids)
        with tempfile.TemporaryDirectory(prefix="bench_vectors_") as tmp:
            for bench in (bench_memoir, bench_client, bench_edge):
                for row in bench(Path(tmp), ids, data, queries, truth):
                    rows.append({"size": n, **row})
                    log(f"  {row['engine']}: p50 {row['p50_ms']:.2f} ms, recall {row['recall']:.3f}, "
                        f"reopen {row['reopen_s']:.2f}s")
    print(table(rows))
    end_load = loadavg()
    print(f"{end_load} at end")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "start": start_load, "end": end_load,
                                         "queries": args.queries, "seed": args.seed}, indent=2))


if __name__ == "__main__":
    main()
