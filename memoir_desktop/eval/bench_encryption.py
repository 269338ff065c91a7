"""What encryption at rest costs: open time and search latency, plain journal vs encrypted.

    python -m memoir_desktop.eval.bench_encryption [--sizes 10000 50000] [--queries 100] [--opens 3] [--json OUT]

Two journals in temporary folders, one plain (SQLite + embedded Qdrant + the ``.npz`` mirror, as
before encryption) and one encrypted (SQLCipher; vectors in the encrypted database, loaded into the
in-memory mirror on first use; no Qdrant files), are filled with the same synthetic facts and the
same vectors (random unit vectors around 2000 centres, fixed seed: search cost depends on the
number of points, not on their values; the query is embedded by the real model). At each size:

* ``open``: ``Memoir.open`` with its reconcile (as the app opens a journal) until the first search
  has answered (the mirror is loaded then), median of ``--opens`` runs, model load excluded (it is
  loaded before the clock starts and is the same for both); split into ``Memoir.open`` (database,
  index check) and the first search (which also builds the BM25 index, the same work for both);
* ``search``: ``Memoir.search`` p50 / p95 over ``--queries`` queries (query embedding included).

The encrypted journal is opened with a throw-away passphrase set for this process only.
Progress goes to stderr; the table and the ratios (encrypted / plain) to stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from memoir_desktop.eval.bench import _bench_environment, _p, synthetic_facts, synthetic_queries

DIM = 384
BATCH = 1000


def _progress(msg: str, end: str = "\n") -> None:
    print(msg, file=sys.stderr, end=end, flush=True)


def _vectors(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    v = centres[rng.integers(0, len(centres), n)] + rng.normal(0, 0.05, (n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _stage(mem, texts: list[str], when: datetime, vecs: np.ndarray) -> None:
    from sqlmodel import Session

    from memoir_desktop.core.pipeline.extraction import fact_span
    from memoir_desktop.core.storage.store import Change

    change = Change()
    with Session(mem.engine) as s:
        for text, vec in zip(texts, vecs, strict=True):
            mem.store.stage_add(s, change, user_id="bench", text=text, actor="user", created_at=when,
                                about=fact_span(text, when), vector=vec)
        s.commit()
    mem.store.apply_index("bench", change)


def _open_time(home: Path, encrypt: bool, query: str, now: datetime, embedder) -> tuple[float, float]:
    """(Memoir.open with reconcile, then the first search) in seconds."""
    from memoir_desktop.core import Memoir

    t = time.perf_counter()
    mem = Memoir.open(home, encrypt=encrypt, backups_keep=1)
    try:
        opened = time.perf_counter() - t
        mem.models.embedder = embedder  # the model is loaded once for all runs (not what is measured)
        mem.store.set_embedder(embedder)
        t = time.perf_counter()
        mem.search(query, user_id="bench", limit=10, now=now)
        return opened, time.perf_counter() - t
    finally:
        mem.close()


def run(sizes: Sequence[int], queries: int, opens: int, seed: int = 7) -> dict:
    _bench_environment()
    from memoir_desktop.core import Memoir

    sizes = sorted({int(s) for s in sizes})
    qs = synthetic_queries(queries, seed=seed + 4)
    now = datetime(2025, 7, 1, 9, 0)
    out: dict = {"sizes": {}}
    with tempfile.TemporaryDirectory(prefix="memoir-bench-enc-") as tmp:
        homes = {"plain": Path(tmp) / "plain", "encrypted": Path(tmp) / "encrypted"}
        mems = {kind: Memoir.open(home, reconcile=False, encrypt=kind == "encrypted", backups_keep=1)
                for kind, home in homes.items()}
        embedder = mems["plain"].models.embedder
        embedder.load()
        for m in mems.values():
            m.models.embedder = embedder
            m.store.set_embedder(embedder)
        assert mems["encrypted"].keys.encrypted and not mems["plain"].keys.encrypted
        rng = np.random.default_rng(seed)
        centres = rng.normal(0, 1, (2000, DIM)).astype(np.float32)
        have = 0
        try:
            for size in sizes:
                while have < size:
                    n = min(BATCH, size - have)
                    facts = synthetic_facts(n, seed=seed, start=have)
                    vecs = _vectors(rng, centres, n)
                    for m in mems.values():
                        _stage(m, [f for f, _ in facts], facts[0][1], vecs)
                    have += n
                    _progress(f"\rloading {have:,}/{size:,} memories into both journals", end="")
                _progress("")
                for m in mems.values():
                    m.close()
                row: dict = {}
                for kind, home in homes.items():
                    parts = [_open_time(home, kind == "encrypted", qs[0], now, embedder) for _ in range(opens)]
                    times = [a + b for a, b in parts]
                    m = Memoir.open(home, encrypt=kind == "encrypted", backups_keep=1)
                    m.models.embedder = embedder
                    m.store.set_embedder(embedder)
                    for q in qs[:5]:
                        m.search(q, user_id="bench", limit=10, now=now)
                    lat = []
                    for q in qs:
                        t = time.perf_counter()
                        m.search(q, user_id="bench", limit=10, now=now)
                        lat.append((time.perf_counter() - t) * 1000)
                    m.close()
                    row[kind] = {"open_s": statistics.median(times), "open_runs": times, "search_ms": _p(lat),
                                 "memoir_open_s": statistics.median(a for a, _ in parts),
                                 "first_search_s": statistics.median(b for _, b in parts)}
                    _progress(f"size {size:,} {kind}: open {row[kind]['open_s']:.2f}s, "
                              f"search p50 {row[kind]['search_ms'][0]:.1f} ms")
                out["sizes"][str(size)] = row
                mems = {kind: Memoir.open(home, reconcile=False, encrypt=kind == "encrypted", backups_keep=1)
                        for kind, home in homes.items()}
                for m in mems.values():
                    m.models.embedder = embedder
                    m.store.set_embedder(embedder)
        finally:
            for m in mems.values():
                m.close()
    out["embedder"] = embedder.name
    return out


def render(res: dict) -> str:
    lines = [f"embedder: {res['embedder']}",
             f"{'memories':>9} | {'journal':<9} | {'open s':>7} | {'Memoir.open s':>13} | {'1st search s':>12} | "
             f"{'search p50 ms':>13} | {'search p95 ms':>13}"]
    for size, row in res["sizes"].items():
        for kind in ("plain", "encrypted"):
            r = row[kind]
            lines.append(f"{int(size):>9,} | {kind:<9} | {r['open_s']:>7.2f} | {r['memoir_open_s']:>13.2f} | "
                         f"{r['first_search_s']:>12.2f} | {r['search_ms'][0]:>13.1f} | {r['search_ms'][1]:>13.1f}")
        p, e = row["plain"], row["encrypted"]

        def ratio(key: str, width: int, p=p, e=e) -> str:
            return f"{e[key] / p[key]:>{width - 1}.2f}x"

        lines.append(f"{int(size):>9,} | {'ratio':<9} | {ratio('open_s', 7)} | {ratio('memoir_open_s', 13)} | "
                     f"{ratio('first_search_s', 12)} | {e['search_ms'][0] / p['search_ms'][0]:>12.2f}x | "
                     f"{e['search_ms'][1] / p['search_ms'][1]:>12.2f}x")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000, 50000])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--opens", type=int, default=3)
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args(argv)
    res = run(args.sizes, args.queries, args.opens)
    print(render(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
