"""Benchmark the graph canvas: layout time and frame time, offscreen, on synthetic graphs.

    python -m memoir_desktop.eval.bench_canvas [--sizes 200 1000 2000] [--frames 30] [--seed 0]

For each size N (a preferential-attachment graph with ~2.5 N edges, 10% of them invalid, as in
bench_layout) it prints:

* ``layout s``: ``ForceLayout.set_graph`` + ``run()`` to rest, on this thread (the app runs it on a
  worker, so this is how long the drawing keeps moving, not how long the UI is blocked);
* ``frame ms``: median / p95 of one animation frame as the UI thread pays it: ``set_positions``
  (scatter, edges, arrowheads and labels moved) + ``fit`` (the page keeps the graph in view until the
  user zooms) + ``processEvents``, which paints the frame (the paints are counted: one per frame),
  over ``--frames`` position arrays taken from that layout run, drawn as while moving (lines not
  antialiased); ``update ms`` is the part before the paint;
* ``still ms``: one repaint at rest (antialiased lines up to ``AA_MAX_EDGES``), what a pan or zoom costs;
* ``restyle ms``: median of a hover change (colours, highlighted edges, labels) + repaint.

No database: the canvas is fed directly.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from PySide6.QtCore import QEvent, QObject

from memoir_desktop.eval.bench_layout import ba_like_graph

TYPES = ("person", "place", "organization", "food", "activity", "preference", "pet", "event", "thing")


class _PaintCounter(QObject):
    def __init__(self, widget):
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, _obj, ev):
        if ev.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def _ms(samples: list[float]) -> tuple[float, float]:
    a = np.array(samples) * 1000
    return float(np.median(a)), float(np.percentile(a, 95))


def bench_one(app, n: int, frames: int, seed: int) -> dict[str, float]:
    from memoir_desktop.graphlayout.force import ForceLayout
    from memoir_desktop.ui.graph.canvas import GraphCanvas

    ids, edges = ba_like_graph(n, seed)
    rng = np.random.default_rng(seed)
    valid = rng.random(len(edges)) > 0.1
    layout = ForceLayout(seed=seed)
    captured: list[np.ndarray] = []
    t0 = time.perf_counter()
    layout.set_graph(ids, edges, [1.0 if v else 0.3 for v in valid])
    iters = layout.run(callback=lambda _i, xy: captured.append(xy))
    layout_s = time.perf_counter() - t0
    order = layout.positions_array()[0]
    captured = captured or [layout.positions_array()[1]]

    index = {x: i for i, x in enumerate(order)}
    nodes = [(i, f"기억 {i}", TYPES[i % len(TYPES)]) for i in range(n)]
    edge_rows = [(j, index[a], index[b], "관계", bool(v)) for j, ((a, b), v) in enumerate(zip(edges, valid))]
    canvas = GraphCanvas()
    canvas.resize(1200, 800)
    canvas.show()
    canvas.set_graph(nodes, edge_rows, captured[0])
    canvas.fit()
    app.processEvents()
    canvas.viewport().repaint()

    frame_times, update_times = [], []
    paints = _PaintCounter(canvas.viewport())
    canvas.set_moving(True)
    for k in range(frames):
        xy = captured[k % len(captured)]
        t = time.perf_counter()
        canvas.set_positions(xy)
        canvas.fit()
        update_times.append(time.perf_counter() - t)
        app.processEvents()
        frame_times.append(time.perf_counter() - t)
    canvas.set_moving(False)
    painted = paints.count
    still_times = []
    for _ in range(5):
        t = time.perf_counter()
        canvas.viewport().repaint()
        still_times.append(time.perf_counter() - t)

    restyle_times = []
    hubs = np.argsort(-canvas.degree)[:10]
    for row in [*hubs.tolist(), None] * 2:
        t = time.perf_counter()
        canvas.hover = row
        canvas._restyle()
        canvas.viewport().repaint()
        restyle_times.append(time.perf_counter() - t)
    canvas.close()
    canvas.deleteLater()
    app.processEvents()
    med, p95 = _ms(frame_times)
    return {"n": n, "edges": len(edges), "iters": iters, "layout_s": layout_s, "frame_med": med,
            "frame_p95": p95, "update_med": _ms(update_times)[0], "still_med": _ms(still_times)[0],
            "restyle_med": _ms(restyle_times)[0], "paints_per_frame": painted / frames}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_canvas", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000, 2000])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    print(f"{'nodes':>6} {'edges':>6} {'iters':>5} {'layout s':>9} {'frame ms':>9} {'p95 ms':>7} "
          f"{'update ms':>9} {'still ms':>8} {'restyle ms':>10} {'paints/frame':>12}")
    for n in args.sizes:
        r = bench_one(app, n, args.frames, args.seed)
        print(f"{r['n']:>6} {r['edges']:>6} {r['iters']:>5} {r['layout_s']:>9.2f} {r['frame_med']:>9.1f} "
              f"{r['frame_p95']:>7.1f} {r['update_med']:>9.1f} {r['still_med']:>8.1f} {r['restyle_med']:>10.1f} "
              f"{r['paints_per_frame']:>12.2f}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
