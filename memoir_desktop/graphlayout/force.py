"""Incremental force-directed graph layout in pure numpy (no Qt: safe to run on a worker thread).

Forces (Fruchterman-Reingold), with ``k`` = ``ideal_length``:

* repulsion between every pair of nodes, magnitude ``k**2 / d``;
* attraction along each edge, magnitude ``w * d**2 / k``;
* gravity ``-gravity * c`` on every node of a connected component whose centroid is ``c``: it
  keeps disconnected components in view (with the 1/d repulsion, isolated nodes settle about
  ``k * sqrt(N / gravity)`` from the centre) but, acting on whole components, never squashes one.

A node moves by its force times ``0.5 / (1 + weighted degree)`` (a Jacobi-style step, so hubs do not
oscillate), capped at its own *temperature*, which cools geometrically each step.  The drawing is at
rest when the warm nodes moved less than ``tol * k`` on average, or nothing is warm any more.

* Start: a fresh graph gets a PivotMDS layout (BFS hop distances from ~50 pivots, top-2 eigenvectors
  of a small matrix) per connected component, then a short FR polish.  This unfolds grids, trees
  and chains that FR from a random start leaves folded, and needs few iterations.
* Increments: surviving nodes keep their positions; new ones start next to their placed neighbours;
  only the changed nodes and a few hops around them are reheated, and cold nodes are not even
  evaluated, so a grown graph settles locally instead of reshuffling.
* Repulsion is exact (vectorised all-pairs, in cache-sized row chunks) up to ``EXACT_MAX_NODES``
  nodes, and Barnes-Hut above it: a Morton-ordered quadtree built level by level with
  ``np.add.reduceat`` and walked breadth-first for all node groups at once, with a first-order
  far-field expansion per group -- O(N log N) numpy work per step, no Python loop over nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from memoir_desktop.graphlayout.repulsion import repulsion_exact, repulsion_tree
from memoir_desktop.graphlayout.start import bfs_hops, components, initial_layout

__all__ = ["EXACT_MAX_NODES", "ForceLayout"]

#: Above this many nodes repulsion uses Barnes-Hut instead of exact all-pairs.
EXACT_MAX_NODES = 700

_CALLBACK_EVERY = 10
_REHEAT = 0.5  # a change warms the nodes it touches to this many (median) edge lengths ...
_REHEAT_DECAY = 0.2  # ... times this per hop around them ...
_REHEAT_HOPS = 3  # ... up to this many hops away
_T0 = 0.05  # start temperature of a fresh layout, in units of the expected radius k*sqrt(N/gravity)


class ForceLayout:
    """A force-directed layout that can be grown, pinned and stepped incrementally.

    Typical use from a worker thread::

        layout = ForceLayout(seed=1)
        layout.set_graph(ids, edges)
        layout.run(callback=lambda i, xy: emit_frame(xy))
        ids, xy = layout.positions_array()

    Every node has its own temperature (the most it may move in one step), which cools by
    ``cooling`` per step.  A fresh graph starts hot everywhere; a change (new or removed nodes or
    edges, a pin) reheats only the changed nodes and, fading per hop, their graph neighbourhood, so
    the rest of an already settled drawing stays where the user has learnt to find it.

    The object is not thread-safe; confine each instance to one thread (``positions_array`` returns
    copies that can be handed to the GUI thread).
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        ideal_length: float = 1.0,
        theta: float = 0.8,
        gravity: float = 0.5,
        cooling: float = 0.93,
    ) -> None:
        if ideal_length <= 0:
            raise ValueError("ideal_length must be positive")
        if theta < 0:
            raise ValueError("theta must be >= 0")
        if gravity < 0:
            raise ValueError("gravity must be >= 0")
        if not 0.0 < cooling < 1.0:
            raise ValueError("cooling must be in (0, 1)")
        self.seed = seed
        self.k = float(ideal_length)
        self.theta = float(theta)
        self.gravity = float(gravity)
        self.cooling = float(cooling)
        self._rng = np.random.default_rng(seed)
        self._ids: list[str] = []
        self._index: dict[str, int] = {}
        self._edge_w: dict[tuple[str, str], float] = {}
        self._pos = np.zeros((0, 2))
        self._pinned = np.zeros(0, dtype=bool)
        self._src = np.zeros(0, dtype=np.intp)
        self._dst = np.zeros(0, dtype=np.intp)
        self._w = np.zeros(0)
        self._indptr = np.zeros(1, dtype=np.intp)
        self._indices = np.zeros(0, dtype=np.intp)
        self._eta = np.zeros(0)
        self._comp = np.zeros(0, dtype=np.intp)  # connected component of each node
        self._comp_size = np.zeros(0, dtype=np.intp)
        # A tiny fixed per-node offset used only when computing pairwise differences, so that two
        # nodes at exactly the same spot still push each other apart (in a node-specific direction).
        self._tiebreak = np.zeros((0, 2))
        self._temp = np.zeros(0)
        self._last_disp = 0.0  # mean displacement of the movable nodes in the last step
        self._active_disp = 0.0  # ... of the nodes that were still warm (drives at_rest)
        self._tol = 1e-3
        self.iterations = 0  # total steps taken since construction

    # ------------------------------------------------------------------ graph
    # Long on purpose: the CSR arrays, components and degrees computed once from the same sorted edges.
    def set_graph(
        self,
        node_ids: Sequence[str],
        edges: Sequence[tuple[str, str]],
        weights: Sequence[float] | None = None,
    ) -> None:
        """Replace the graph, keeping the positions (and pins) of nodes that remain.

        New nodes start at the mean position of their already-placed neighbours plus a small jitter,
        or just outside the drawing when they have none; a graph with no surviving node gets a fresh
        PivotMDS start.  Edges naming unknown nodes, self-loops and non-positive weights are
        ignored; parallel edges add up.  Raises ``ValueError`` on duplicate ids or when ``weights``
        does not match ``edges``.
        """
        ids = [str(x) for x in node_ids]
        index = {x: i for i, x in enumerate(ids)}
        if len(index) != len(ids):
            raise ValueError("duplicate node ids")
        if weights is not None and len(weights) != len(edges):
            raise ValueError("weights must have one entry per edge")
        n = len(ids)
        k = self.k

        edge_w: dict[tuple[str, str], float] = {}
        for e, (a, b) in enumerate(edges):
            a, b = str(a), str(b)
            if a == b or a not in index or b not in index:
                continue
            w = 1.0 if weights is None else float(weights[e])
            if not np.isfinite(w) or w <= 0:
                continue
            key = (a, b) if a < b else (b, a)
            edge_w[key] = edge_w.get(key, 0.0) + w
        src = np.fromiter((index[a] for a, _ in edge_w), dtype=np.intp, count=len(edge_w))
        dst = np.fromiter((index[b] for _, b in edge_w), dtype=np.intp, count=len(edge_w))
        w = np.fromiter(edge_w.values(), dtype=float, count=len(edge_w))

        old_index = self._index
        old_pos = self._pos
        old_pinned = self._pinned
        old_temp = self._temp
        pos = np.zeros((n, 2))
        pinned = np.zeros(n, dtype=bool)
        temp = np.zeros(n)
        placed = np.zeros(n, dtype=bool)
        for i, node in enumerate(ids):
            j = old_index.get(node)
            if j is not None:
                pos[i] = old_pos[j]
                pinned[i] = old_pinned[j]
                temp[i] = old_temp[j]
                placed[i] = True
        n_kept = int(placed.sum())
        new = np.flatnonzero(~placed)

        # Nodes touched by the change: new ones and the surviving ends of added/removed/reweighted edges.
        changed = np.zeros(n, dtype=bool)
        changed[new] = True
        if n_kept:
            for key in edge_w.keys() ^ self._edge_w.keys():
                for node in key:
                    if node in index:
                        changed[index[node]] = True
            for key in edge_w.keys() & self._edge_w.keys():
                if edge_w[key] != self._edge_w[key]:
                    changed[index[key[0]]] = changed[index[key[1]]] = True

        both_s = np.concatenate((src, dst))
        indices = np.concatenate((dst, src))[np.argsort(both_s, kind="stable")]
        indptr = np.concatenate(([0], np.cumsum(np.bincount(both_s, minlength=n))))
        _, comp, comp_size = np.unique(components(n, src, dst), return_inverse=True, return_counts=True)
        comp = comp.reshape(-1)

        if n_kept == 0:
            pos = initial_layout(src, dst, indptr, indices, comp, comp_size, k, self._rng)
        elif len(new):
            self._place_new(pos, placed, src, dst)

        self._ids = ids
        self._index = index
        self._edge_w = edge_w
        self._pos = pos
        self._pinned = pinned
        self._src, self._dst, self._w = src, dst, w
        self._indptr, self._indices = indptr, indices
        self._comp, self._comp_size = comp, comp_size
        wdeg = np.bincount(src, weights=w, minlength=n) + np.bincount(dst, weights=w, minlength=n)
        self._eta = 0.5 / (1.0 + wdeg)
        self._tiebreak = self._rng.uniform(-1.0, 1.0, size=(n, 2)) * (1e-9 * k)
        self._ensure_distinct()

        self._temp = temp
        if n_kept == 0:
            temp[:] = self._full_temperature(n)
        elif changed.any():
            # Big changes warm everything a little, in proportion; every change warms its surroundings.
            removed = len(old_index) - n_kept
            frac = max(len(new) / max(n, 1), removed / max(len(old_index), 1))
            np.maximum(temp, frac * self._full_temperature(n), out=temp)
            self._reheat(np.flatnonzero(changed))
        self._last_disp = self._active_disp = float("inf") if n else 0.0

    def pin(self, node_id: str, xy: tuple[float, float] | None) -> None:
        """Fix ``node_id`` at ``xy`` (it still exerts forces on the others); ``None`` unpins it.

        Either way the node's neighbourhood is reheated so it follows the drag.
        """
        i = self._index[node_id]
        jump = 0.0
        if xy is None:
            self._pinned[i] = False
        else:
            x, y = float(xy[0]), float(xy[1])
            if not (np.isfinite(x) and np.isfinite(y)):
                raise ValueError("pin position must be finite")
            jump = float(np.hypot(x - self._pos[i, 0], y - self._pos[i, 1]))
            self._pos[i] = (x, y)
            self._pinned[i] = True
        # The further the node was moved, the warmer its neighbourhood, so it can catch up.
        self._reheat(np.array([i]), 0.25 * jump)
        self._last_disp = self._active_disp = float("inf")

    # --------------------------------------------------------------- stepping
    def step(self, n: int = 1) -> float:
        """Advance ``n`` iterations; return the mean displacement of the movable nodes in the last one."""
        if n <= 0:
            return self._last_disp if np.isfinite(self._last_disp) else 0.0
        disp = 0.0
        for _ in range(int(n)):
            disp = self._step_once()
        return disp

    def run(
        self,
        max_iter: int = 300,
        tol: float = 1e-3,
        callback: Callable[[int, np.ndarray], object] | None = None,
    ) -> int:
        """Step until at rest (see :meth:`at_rest`) or ``max_iter``; return the iterations done.

        ``callback(i, xy)`` gets the iteration count and a copy of the N x 2 position array (rows in
        the order of ``positions_array()[0]``) every 10 iterations and after the last one; if it
        returns ``False`` the run stops early (handy for cancelling from a worker thread).
        """
        self._tol = float(tol)
        done = 0
        last_cb = 0
        while done < max_iter and not self.at_rest():
            self._step_once()
            done += 1
            if callback is not None and done % _CALLBACK_EVERY == 0:
                last_cb = done
                if callback(done, self._pos.copy()) is False:
                    return done
        if callback is not None and done and last_cb != done:
            callback(done, self._pos.copy())
        return done

    def at_rest(self, tol: float | None = None) -> bool:
        """True when no movable node is warmer than ``tol * ideal_length``, or when the warm ones moved
        less than that on average in the last step.  ``tol`` defaults to the one of the last ``run``."""
        limit = (self._tol if tol is None else float(tol)) * self.k
        warm = (self._temp >= limit) & ~self._pinned
        return not warm.any() or self._active_disp < limit

    # ---------------------------------------------------------------- results
    @property
    def positions(self) -> dict[str, tuple[float, float]]:
        return {x: (px, py) for x, (px, py) in zip(self._ids, self._pos.tolist(), strict=True)}

    def positions_array(self) -> tuple[list[str], np.ndarray]:
        """``(ids, xy)``: the node ids and a copy of their positions as an N x 2 float array."""
        return list(self._ids), self._pos.copy()

    @property
    def node_ids(self) -> list[str]:
        return list(self._ids)

    @property
    def temperature(self) -> float:
        """The highest node temperature (largest move any node may make in the next step)."""
        return float(self._temp.max()) if len(self._temp) else 0.0

    def is_pinned(self, node_id: str) -> bool:
        return bool(self._pinned[self._index[node_id]])

    # -------------------------------------------------------------- internals
    def _edge_scale(self) -> float:
        """Median edge length of the current drawing (``k`` without edges)."""
        if len(self._src) == 0:
            return self.k
        d = self._pos[self._src] - self._pos[self._dst]
        return max(float(np.median(np.sqrt(np.einsum("ij,ij->i", d, d)))), 1e-3 * self.k)

    def _reheat(self, nodes: np.ndarray, at_least: float = 0.0) -> None:
        """Warm ``nodes`` to ``_REHEAT`` median edge lengths (or ``at_least``), times
        ``_REHEAT_DECAY`` per hop around them (up to ``_REHEAT_HOPS``); never cools anything."""
        if len(nodes) == 0 or len(self._temp) == 0:
            return
        hops = bfs_hops(
            self._indptr, self._indices, np.zeros(len(nodes), dtype=np.intp), nodes, 1, _REHEAT_HOPS
        )[0]
        top = max(_REHEAT * self._edge_scale(), at_least)
        heat = np.where(hops >= 0, top * _REHEAT_DECAY ** hops.clip(0), 0.0)
        np.maximum(self._temp, heat, out=self._temp)

    def _place_new(self, pos: np.ndarray, placed: np.ndarray, src: np.ndarray, dst: np.ndarray) -> None:
        """Put each unplaced node at the mean of its placed neighbours (+ jitter of half an edge),
        breadth-first from the placed nodes; nodes not connected to any placed node go at random just
        outside the current drawing."""
        n = len(pos)
        both = placed[src] & placed[dst]
        if both.any():
            step = float(np.median(np.linalg.norm(pos[src[both]] - pos[dst[both]], axis=1)))
            step = max(step, 1e-3 * self.k)
        else:
            step = self.k
        nbrs: list[list[int]] = [[] for _ in range(n)]
        for a, b in zip(src.tolist(), dst.tolist(), strict=True):
            nbrs[a].append(b)
            nbrs[b].append(a)
        layer = sorted({j for i in np.flatnonzero(placed).tolist() for j in nbrs[i] if not placed[j]})
        while layer:
            for i in layer:
                anchors = [j for j in nbrs[i] if placed[j]]
                pos[i] = pos[anchors].mean(axis=0) + self._jitter(0.5 * step)
            placed[layer] = True
            layer = sorted({j for i in layer for j in nbrs[i] if not placed[j]})
        rest = np.flatnonzero(~placed)
        if len(rest):
            # Not connected to anything placed (e.g. a brand-new entity with no relation yet): put it
            # just outside the drawing, where unconnected nodes settle anyway, rather than in the
            # middle of a cluster of unrelated nodes that it could not get out of while cooling.
            kept = pos[placed]
            centre = kept.mean(axis=0)
            rim = float(np.sqrt(np.sum((kept - centre) ** 2, axis=1)).max()) + step
            for i in rest.tolist():
                r = rim + step * self._rng.uniform(0.0, 2.0)
                a = self._rng.uniform(0.0, 2.0 * np.pi)
                pos[i] = centre + (r * np.cos(a), r * np.sin(a))
            placed[rest] = True

    def _jitter(self, radius: float) -> np.ndarray:
        r = radius * np.sqrt(self._rng.uniform(0.05, 1.0))
        a = self._rng.uniform(0.0, 2.0 * np.pi)
        return np.array([r * np.cos(a), r * np.sin(a)])

    def _full_temperature(self, n: int) -> float:
        return self.k * max(1.0, _T0 * np.sqrt(n / max(self.gravity, 1e-3)))

    def _ensure_distinct(self) -> None:
        """Nudge movable nodes that share an exact position with another node."""
        pos = self._pos
        if len(pos) < 2:
            return
        order = np.lexsort((pos[:, 1], pos[:, 0]))
        same = np.all(pos[order[1:]] == pos[order[:-1]], axis=1)
        if not same.any():
            return
        dup = order[1:][same]
        dup = dup[~self._pinned[dup]]
        pos[dup] += self._rng.uniform(-1.0, 1.0, size=(len(dup), 2)) * (1e-3 * self.k)

    def _forces(self, targets: np.ndarray | None = None) -> np.ndarray:
        """Net force on every node in ``targets`` (default all; other rows are not meaningful)."""
        pos = self._pos
        k = self.k
        n = len(pos)
        p = pos + self._tiebreak
        if n > EXACT_MAX_NODES:
            force = repulsion_tree(p, self.theta, targets)
        else:
            force = repulsion_exact(p, targets)
        force *= k * k
        if len(self._src):
            d = p[self._dst] - p[self._src]
            dist = np.sqrt(np.einsum("ij,ij->i", d, d))
            f = d * (self._w * dist / k)[:, None]
            for c in (0, 1):
                force[:, c] += np.bincount(self._src, weights=f[:, c], minlength=n)
                force[:, c] -= np.bincount(self._dst, weights=f[:, c], minlength=n)
        if self.gravity:
            # Gravity pulls each connected component as a whole (towards the origin, by its
            # centroid), so it keeps components together without squashing long chains.
            comp = self._comp
            m = self._comp_size
            cx = np.bincount(comp, weights=pos[:, 0], minlength=len(m)) / m
            cy = np.bincount(comp, weights=pos[:, 1], minlength=len(m)) / m
            force[:, 0] -= self.gravity * cx[comp]
            force[:, 1] -= self.gravity * cy[comp]
        return force

    def _step_once(self) -> float:
        movable = ~self._pinned
        if not movable.any():
            self._last_disp = self._active_disp = 0.0
            return 0.0
        t = self._temp
        # Only warm nodes can move noticeably: skip the repulsion of the others when they are many
        # (after a small incremental change most of the graph is cold).
        warm = movable & (t >= self._tol * self.k)
        targets = np.flatnonzero(warm) if 0 < warm.sum() < 0.5 * len(t) else None
        if targets is not None:
            movable = warm
        delta = self._forces(targets) * self._eta[:, None]
        length = np.sqrt(np.einsum("ij,ij->i", delta, delta))
        bad = ~np.isfinite(length)
        length[bad] = 0.0
        delta[bad] = 0.0
        scale = np.where(length > t, t / np.maximum(length, 1e-300), 1.0)
        delta *= scale[:, None]
        delta[~movable] = 0.0
        self._pos += delta
        moved = np.minimum(length, t)
        moved[~movable] = 0.0
        movable = ~self._pinned
        self._last_disp = float(moved[movable].mean())
        self._active_disp = float(moved[warm].mean()) if warm.any() else 0.0
        t *= self.cooling
        self.iterations += 1
        return self._last_disp
