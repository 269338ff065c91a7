"""Entry search latency: `mem.search_field.search_entries` at growing journal sizes.

    python -m memoir_desktop.eval.bench_entries [--sizes 10000 50000] [--queries 200] [--pool 1000]

A temporary journal is filled with synthetic entries (two to four of the search benchmark's Korean
and English facts each, on dates spread over years), written through the journal (no memorize
job) and indexed for search the way the write job indexes them (vectors in the entries collection,
BM25 over Korean morphemes and English words). As in `bench --vectors synthetic`, only a pool of
entries is embedded by the model; the others reuse a pool vector plus noise, which leaves the
search cost (it depends on the number of entries, not their values) unchanged and the load fast.
Timed per query, query analysis and embedding included: the full `search_entries` (words + meaning,
with highlights), and the lexical side alone.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from memoir_desktop.eval.bench import _bench_environment, synthetic_facts, synthetic_queries
from memoir_desktop.eval.stats import percentile


def _entries(n: int, start: int, seed: int = 5) -> list[tuple[str, datetime]]:
    rng = random.Random(seed + start)
    facts = synthetic_facts(n * 3, seed=seed, start=start * 3)
    out, i = [], 0
    base = datetime(2026, 11, 30, 21)
    for k in range(n):
        take = rng.randint(2, 4)
        text = " ".join(f for f, _ in facts[i:i + take])
        i += take
        out.append((text, base - timedelta(days=(start + k) % 1500, minutes=rng.randrange(0, 600))))
        if i + 4 >= len(facts):
            i = 0
    return out


def run(sizes: list[int], queries: int, pool: int) -> list[dict]:
    _bench_environment()
    from sqlmodel import Session

    from memoir_desktop.core import Memoir
    from memoir_desktop.core.storage.models import Entry

    rows = []
    qs = synthetic_queries(queries, seed=21)
    with tempfile.TemporaryDirectory(prefix="memoir-bench-entries-") as tmp, \
            Memoir.open(Path(tmp) / "home", reconcile=False) as mem:
        user, have = "bench", 0
        pool_vecs = None
        rng = np.random.default_rng(3)
        name = mem.store.collections.get(user, "ent")
        for size in sorted(sizes):
            t0 = time.perf_counter()
            while have < size:
                n = min(500, size - have)
                batch = _entries(n, have)
                with Session(mem.engine) as s:
                    rows_ = [Entry(user_id=user, role="user", content=t, created_at=w, source="journal")
                             for t, w in batch]
                    s.add_all(rows_)
                    s.commit()
                    for r in rows_:
                        s.refresh(r)
                        s.expunge(r)
                texts = [r.content[:2000] for r in rows_]
                if have < pool:
                    vecs = np.asarray(mem.models.embedder.embed_documents(texts), dtype=np.float32)
                    pool_vecs = vecs if pool_vecs is None else np.concatenate([pool_vecs, vecs])
                else:
                    vecs = pool_vecs[rng.integers(0, len(pool_vecs), n)]  # type: ignore[index]
                    vecs = vecs + rng.normal(0, 0.02, vecs.shape).astype(np.float32)
                    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                mem.vectors.upsert(name, [(r.id, v) for r, v in zip(rows_, vecs, strict=True)])
                have += n
                print(f"\rloading {have:,}/{size:,} entries ({time.perf_counter() - t0:.0f}s)", end="",
                      file=sys.stderr, flush=True)
            print(file=sys.stderr)
            mem.lexical.drop(user, "ent")
            t = time.perf_counter()
            bm = mem.episodes.bm25(user)  # built on first use; timed apart from the queries
            build_s = time.perf_counter() - t
            for q in qs[:5]:
                mem.search_field.search_entries(q, user_id=user)
            full, lexical = [], []
            for q in qs:
                t = time.perf_counter()
                mem.search_field.search_entries(q, user_id=user, limit=20)
                full.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                bm.search(q, 60)
                lexical.append((time.perf_counter() - t) * 1000)
            rows.append({"entries": have, "p50": percentile(full, 50), "p95": percentile(full, 95),
                         "lexical_p50": percentile(lexical, 50), "lexical_p95": percentile(lexical, 95),
                         "bm25_build_s": build_s, "loadavg": os.getloadavg()[0] if hasattr(os, "getloadavg") else None})
            print(f"{have:,} entries: p50 {rows[-1]['p50']:.1f} ms, p95 {rows[-1]['p95']:.1f} ms", file=sys.stderr)
    return rows


def render(rows: list[dict]) -> str:
    lines = ["# Entry search latency (ms, query analysis and embedding included)", "",
             "| entries | search_entries p50 | p95 | lexical alone p50 | p95 | BM25 build | load avg |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['entries']:,} | {r['p50']:.1f} | {r['p95']:.1f} | {r['lexical_p50']:.1f} | "
                     f"{r['lexical_p95']:.1f} | {r['bm25_build_s']:.1f} s | {r['loadavg']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--pool", type=int, default=1000, help="entries embedded by the model")
    a = p.parse_args(argv)
    print(render(run(a.sizes, a.queries, a.pool)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
