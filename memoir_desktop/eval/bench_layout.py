"""Benchmark the graph-canvas layout (:mod:`memoir_desktop.graphlayout.force`) against networkx.

    python -m memoir_desktop.eval.bench_layout [--sizes 200 1000 2000] [--seed 0]

For each size N it lays out a Barabasi-Albert-like graph with ~2.5 N edges (every new node attaches
to 2 or 3 existing ones, preferentially to well-connected ones) and prints:

* ``layout s`` / ``cpu s``: ``set_graph`` + ``run()`` to rest, wall-clock and process CPU time (CPU
  is the steadier number when other work shares the machine);
* ``iters``: iterations until at rest;
* ``ms/step`` / ``cpu ms``: median wall / CPU time of one full ``step()`` (every node warm);
* ``edge/non-edge``: mean edge length / mean distance between non-adjacent nodes (lower = connected
  nodes drawn closer; sampled pairs);
* ``nx s`` / ``nx ratio``: ``networkx.spring_layout`` (default 50 iterations) on the same graph, for
  comparison; only up to ``--nx-max`` nodes because it is slow.

Only the layout is measured here; the canvas frame time is measured separately.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from memoir_desktop.graphlayout.force import EXACT_MAX_NODES, ForceLayout


def ba_like_graph(n: int, seed: int = 0) -> tuple[list[str], list[tuple[str, str]]]:
    """A preferential-attachment graph with about 2.5 edges per node (m alternates 2 and 3)."""
    rng = np.random.default_rng(seed)
    ids = [f"n{i}" for i in range(n)]
    edges: list[tuple[int, int]] = []
    ends: list[int] = []  # every edge endpoint once: sampling from it is degree-proportional
    core = min(n, 4)
    for i in range(1, core):
        for j in range(i):
            edges.append((i, j))
            ends += [i, j]
    for i in range(core, n):
        m = 2 if i % 2 else 3
        targets: set[int] = set()
        while len(targets) < m:
            targets.add(ends[int(rng.integers(len(ends)))])
        for j in sorted(targets):
            edges.append((i, j))
            ends += [i, j]
    return ids, [(ids[a], ids[b]) for a, b in edges]


def edge_ratio(ids: list[str], xy: np.ndarray, edges: list[tuple[str, str]], seed: int = 0) -> float:
    """Mean edge length / mean distance over (sampled) non-adjacent node pairs."""
    n = len(ids)
    if n < 3 or not edges:
        return float("nan")
    index = {x: i for i, x in enumerate(ids)}
    e = np.array([(index[a], index[b]) for a, b in edges])
    edge_len = float(np.linalg.norm(xy[e[:, 0]] - xy[e[:, 1]], axis=1).mean())
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, 200_000)
    b = rng.integers(0, n, 200_000)
    adjacent = set((e[:, 0] * n + e[:, 1]).tolist()) | set((e[:, 1] * n + e[:, 0]).tolist())
    keep = (a != b) & ~np.isin(a * n + b, np.fromiter(adjacent, dtype=np.int64))
    other = float(np.linalg.norm(xy[a[keep]] - xy[b[keep]], axis=1).mean())
    return edge_len / other


def bench_one(n: int, seed: int, nx_max: int) -> dict[str, float]:
    ids, edges = ba_like_graph(n, seed)
    layout = ForceLayout(seed=seed)
    t0 = time.perf_counter()
    c0 = time.process_time()
    layout.set_graph(ids, edges)
    iters = layout.run()
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    out_ids, xy = layout.positions_array()
    assert np.isfinite(xy).all()

    stepper = ForceLayout(seed=seed)
    stepper.set_graph(ids, edges)
    times = []
    cpu_times = []
    for _ in range(15):
        t = time.perf_counter()
        c = time.process_time()
        stepper.step()
        times.append(time.perf_counter() - t)
        cpu_times.append(time.process_time() - c)

    row = {
        "nodes": n,
        "edges": len(edges),
        "layout_s": wall,
        "cpu_s": cpu,
        "iters": iters,
        "ms_step": 1e3 * float(np.median(times)),
        "cpu_ms_step": 1e3 * float(np.median(cpu_times)),
        "ratio": edge_ratio(out_ids, xy, edges, seed),
        "nx_s": float("nan"),
        "nx_ratio": float("nan"),
    }
    if n <= nx_max:
        import networkx as nx

        graph = nx.Graph()
        graph.add_nodes_from(ids)
        graph.add_edges_from(edges)
        t0 = time.perf_counter()
        pos = nx.spring_layout(graph, seed=seed)
        row["nx_s"] = time.perf_counter() - t0
        row["nx_ratio"] = edge_ratio(ids, np.array([pos[x] for x in ids]), edges, seed)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000, 2000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--nx-max", type=int, default=1000, help="run networkx.spring_layout only up to this many nodes"
    )
    args = parser.parse_args(argv)

    # Warm-up: first calls pay for lazy imports inside numpy.
    warm = ForceLayout(seed=args.seed)
    warm.set_graph(*ba_like_graph(EXACT_MAX_NODES + 50, args.seed))
    warm.step(2)

    header = (
        f"{'nodes':>6} {'edges':>6} {'layout s':>9} {'cpu s':>6} {'iters':>5} {'ms/step':>8} {'cpu ms':>6} "
        f"{'edge/non-edge':>13} {'nx s':>7} {'nx ratio':>8}"
    )
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        r = bench_one(n, args.seed, args.nx_max)
        nx_s = f"{r['nx_s']:7.2f}" if np.isfinite(r["nx_s"]) else f"{'-':>7}"
        nx_ratio = f"{r['nx_ratio']:8.3f}" if np.isfinite(r["nx_ratio"]) else f"{'-':>8}"
        print(
            f"{r['nodes']:>6} {r['edges']:>6} {r['layout_s']:9.2f} {r['cpu_s']:6.2f} {r['iters']:>5} "
            f"{r['ms_step']:8.1f} {r['cpu_ms_step']:6.1f} {r['ratio']:13.3f} {nx_s} {nx_ratio}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
