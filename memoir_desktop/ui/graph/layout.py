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

__all__ = ["EXACT_MAX_NODES", "ForceLayout"]

#: Above this many nodes repulsion uses Barnes-Hut instead of exact all-pairs.
EXACT_MAX_NODES = 700

_CHUNK_ELEMENTS = 1 << 14  # rows x N elements per chunk of the exact repulsion (cache-sized)
_TREE_DEPTH = 24  # max quadtree depth (a stray far-away node must not lump the rest into one cell)
_GROUP_SIZE = 8  # Barnes-Hut: nodes sharing one far-field evaluation (at most)
_LEAF_SIZE = 4  # Barnes-Hut: cells this small are summed exactly when not far enough
_CALLBACK_EVERY = 10
_MDS_PIVOTS = 50  # PivotMDS pivots for the initial layout of a fresh graph (shared by components)
_MDS_MIN_COMPONENT = 8  # smaller components start at random instead
_REHEAT = 0.5  # a change warms the nodes it touches to this many (median) edge lengths ...
_REHEAT_DECAY = 0.2  # ... times this per hop around them ...
_REHEAT_HOPS = 3  # ... up to this many hops away
_T0 = 0.05  # start temperature of a fresh layout, in units of the expected radius k*sqrt(N/gravity)


def _spread_bits(v: np.ndarray) -> np.ndarray:
    """Spread the low 32 bits of ``v`` to the even bit positions of an int64 (for Morton codes)."""
    v = v & 0xFFFFFFFF
    v = (v | (v << 16)) & 0x0000FFFF0000FFFF
    v = (v | (v << 8)) & 0x00FF00FF00FF00FF
    v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0F
    v = (v | (v << 2)) & 0x3333333333333333
    v = (v | (v << 1)) & 0x5555555555555555
    return v


def _expand(first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges ``[first, first + count)`` return (index of the range, member) for every member."""
    total = int(count.sum())
    owner = np.repeat(np.arange(len(count)), count)
    offsets = np.cumsum(count) - count
    member = np.repeat(first - offsets, count) + np.arange(total)
    return owner, member


def _mean_edge(xy: np.ndarray, src: np.ndarray, dst: np.ndarray) -> float:
    if len(src) == 0:
        return 0.0
    return float(np.linalg.norm(xy[src] - xy[dst], axis=1).mean())


def _repulsion_exact(p: np.ndarray, targets: np.ndarray | None = None) -> np.ndarray:
    """Sum over j != i of (p_i - p_j) / |p_i - p_j|^2 for every i in ``targets`` (default: all;
    other rows stay zero), all pairs, in row chunks small enough to stay in cache."""
    n = len(p)
    out = np.zeros((n, 2))
    if n < 2:
        return out
    rows_all = np.arange(n) if targets is None else np.asarray(targets, dtype=np.intp)
    x = p[:, 0]
    y = p[:, 1]
    chunk = max(1, _CHUNK_ELEMENTS // n)
    for a in range(0, len(rows_all), chunk):
        rows = rows_all[a : a + chunk]
        dx = np.subtract.outer(x[rows], x)
        dy = np.subtract.outer(y[rows], y)
        inv = dx * dx
        inv += dy * dy
        inv[np.arange(len(rows)), rows] = np.inf  # no self-force
        np.maximum(inv, 1e-300, out=inv)
        np.reciprocal(inv, out=inv)
        dx *= inv
        dy *= inv
        out[rows, 0] = dx.sum(axis=1)
        out[rows, 1] = dy.sum(axis=1)
    return out


def _repulsion_tree(p: np.ndarray, theta: float, targets: np.ndarray | None = None) -> np.ndarray:
    """Barnes-Hut approximation of ``sum_{j != i} (p_i - p_j) / |p_i - p_j|**2`` for every node i
    (or only for the groups holding a node of ``targets``; other rows may stay zero).

    The quadtree is the set of Morton-code prefixes: after one argsort every cell at every level is a
    contiguous range of the sorted nodes, so cell counts and centres of mass come from ``reduceat``.
    Nodes are gathered into *groups* (the largest cells holding at most ``_GROUP_SIZE`` nodes) and the
    tree is walked breadth-first for all (group, cell) pairs at once:

    * a cell far from the group (``(cell_width + group_radius) / distance < theta``) acts as a point
      mass at its centre of mass; its field is evaluated at the group centre together with its
      gradient, so each member gets ``E + J @ offset`` (first-order, error ~ (r/d)**2);
    * a small cell (``<= _LEAF_SIZE`` nodes) that is not far is summed exactly, node by node;
    * anything else is opened into its children at the next level.
    """
    n = len(p)
    lo = p.min(axis=0)
    size = float((p.max(axis=0) - lo).max()) * (1.0 + 1e-9) + 1e-12
    scale = (1 << _TREE_DEPTH) / size
    ij = np.minimum(((p - lo) * scale).astype(np.int64), (1 << _TREE_DEPTH) - 1)
    code = _spread_bits(ij[:, 0]) | (_spread_bits(ij[:, 1]) << 1)
    order = np.argsort(code, kind="stable")
    code_s = code[order]
    p_s = p[order]

    # Levels: (starts, counts, centres of mass, first child, number of children) per cell.
    levels: list[list] = []
    group_level = np.full(n, -1)
    level = 0
    while True:
        key = code_s >> (2 * (_TREE_DEPTH - level))
        boundary = np.empty(n, dtype=bool)
        boundary[0] = True
        np.not_equal(key[1:], key[:-1], out=boundary[1:])
        starts = np.flatnonzero(boundary)
        count = np.diff(np.append(starts, n))
        com = np.add.reduceat(p_s, starts, axis=0) / count[:, None]
        group_level[(group_level < 0) & (np.repeat(count, count) <= _GROUP_SIZE)] = level
        if levels:
            parent = levels[-1]
            parent[3] = np.searchsorted(starts, parent[0])
            parent[4] = np.searchsorted(starts, parent[0] + parent[1]) - parent[3]
        levels.append([starts, count, com, None, None])
        if level == _TREE_DEPTH or count.max() <= _LEAF_SIZE:
            break
        level += 1
    bottom = level

    # Groups: contiguous ranges of the sorted nodes.
    group_level[group_level < 0] = bottom
    gkey = code_s >> (2 * (_TREE_DEPTH - group_level))
    gbound = np.empty(n, dtype=bool)
    gbound[0] = True
    gbound[1:] = (gkey[1:] != gkey[:-1]) | (group_level[1:] != group_level[:-1])
    gstart = np.flatnonzero(gbound)
    gcount = np.diff(np.append(gstart, n))
    gend = gstart + gcount
    n_groups = len(gstart)
    centre = np.add.reduceat(p_s, gstart, axis=0) / gcount[:, None]
    gid = np.repeat(np.arange(n_groups), gcount)
    offset = p_s - centre[gid]
    radius = np.maximum.reduceat(np.sqrt(np.einsum("ij,ij->i", offset, offset)), gstart)

    field = np.zeros((n_groups, 2))
    grad_a = np.zeros(n_groups)  # the gradient of a 2-D 1/r field is [[a, b], [b, -a]]
    grad_b = np.zeros(n_groups)
    near_group: list[np.ndarray] = []
    near_start: list[np.ndarray] = []
    near_count: list[np.ndarray] = []
    theta2 = theta * theta
    if targets is None:
        g = np.arange(n_groups)
    else:
        rank = np.empty(n, dtype=np.intp)
        rank[order] = np.arange(n)
        g = np.unique(gid[rank[np.asarray(targets, dtype=np.intp)]])
    c = np.zeros(len(g), dtype=np.intp)
    for level in range(bottom + 1):
        starts, count, com, child_first, child_count = levels[level]
        cs = starts[c]
        cn = count[c]
        overlap = (gstart[g] < cs + cn) & (cs < gend[g])
        d = centre[g] - com[c]
        dx = d[:, 0]
        dy = d[:, 1]
        d2 = dx * dx + dy * dy
        reach = size / (1 << level) + radius[g]
        far = ~overlap & (reach * reach < theta2 * d2)
        if far.any():
            gf = g[far]
            dxf = dx[far]
            dyf = dy[far]
            d2f = d2[far]
            inv = cn[far] / d2f
            field[:, 0] += np.bincount(gf, weights=dxf * inv, minlength=n_groups)
            field[:, 1] += np.bincount(gf, weights=dyf * inv, minlength=n_groups)
            inv /= d2f
            grad_a += np.bincount(gf, weights=(dyf * dyf - dxf * dxf) * inv, minlength=n_groups)
            grad_b += np.bincount(gf, weights=-2.0 * dxf * dyf * inv, minlength=n_groups)
        near = ~far if level == bottom else ~far & (cn <= _LEAF_SIZE)
        if near.any():
            near_group.append(g[near])
            near_start.append(cs[near])
            near_count.append(cn[near])
        if level == bottom:
            break
        opened = ~far & ~near
        c = c[opened]
        g = g[opened]
        if len(c) == 0:
            break
        owner, c = _expand(child_first[c], child_count[c])
        g = g[owner]

    ox = offset[:, 0]
    oy = offset[:, 1]
    force_s = field[gid]
    force_s[:, 0] += grad_a[gid] * ox + grad_b[gid] * oy
    force_s[:, 1] += grad_b[gid] * ox - grad_a[gid] * oy
    if near_group:
        ng = np.concatenate(near_group)
        owner, j = _expand(np.concatenate(near_start), np.concatenate(near_count))
        ng = ng[owner]
        owner, i = _expand(gstart[ng], gcount[ng])
        j = j[owner]
        keep = i != j
        i = i[keep]
        j = j[keep]
        d = p_s[i] - p_s[j]
        inv = 1.0 / np.maximum(np.einsum("ij,ij->i", d, d), 1e-300)
        force_s[:, 0] += np.bincount(i, weights=d[:, 0] * inv, minlength=n)
        force_s[:, 1] += np.bincount(i, weights=d[:, 1] * inv, minlength=n)
    out = np.empty_like(force_s)
    out[order] = force_s
    return out


def _components(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Connected-component label of every node (the smallest node index in its component)."""
    label = np.arange(n)
    if len(src) == 0:
        return label
    while True:
        new = label.copy()
        np.minimum.at(new, label[src], label[dst])
        np.minimum.at(new, label[dst], label[src])
        new = new[new]
        new = new[new]
        if np.array_equal(new, label):
            return label
        label = new


def _bfs_hops(
    indptr: np.ndarray,
    indices: np.ndarray,
    source_rows: np.ndarray,
    source_nodes: np.ndarray,
    n_rows: int,
    max_level: int | None = None,
) -> np.ndarray:
    """Breadth-first hop distances, one search per row: row r starts from the ``source_nodes``
    whose ``source_rows`` entry is r.  Returns an (n_rows, N) int32 array, -1 where not reached
    (unreachable, or beyond ``max_level``).  All rows advance together, one numpy pass per level."""
    n = len(indptr) - 1
    dist = np.full((n_rows, n), -1, dtype=np.int32)
    flat_dist = dist.reshape(-1)
    row = np.asarray(source_rows, dtype=np.intp)
    node = np.asarray(source_nodes, dtype=np.intp)
    dist[row, node] = 0
    deg = np.diff(indptr)
    level = 0
    while len(node) and (max_level is None or level < max_level):
        level += 1
        owner, e = _expand(indptr[node], deg[node])
        flat = row[owner] * n + indices[e]
        flat = np.unique(flat[flat_dist[flat] < 0])
        flat_dist[flat] = level
        row, node = np.divmod(flat, n)
    return dist


def _spread_coincident(xy: np.ndarray, scale: float, rng: np.random.Generator) -> None:
    """Nodes with identical hop-distance rows (e.g. the leaves of one hub) get identical PivotMDS
    coordinates: spread each such group over a disc holding it at about ``scale`` spacing (in place),
    and jitter everything by 5% of ``scale``."""
    span = float(np.abs(xy).max()) or 1.0
    _, group, counts = np.unique(
        np.round(xy / (1e-6 * span)).astype(np.int64), axis=0, return_inverse=True, return_counts=True
    )
    group = group.reshape(-1)
    crowded = counts[group] > 1
    m = int(crowded.sum())
    if m:
        radius = 0.5 * scale * np.sqrt(counts[group[crowded]])
        r = radius * np.sqrt(rng.uniform(0.0, 1.0, m))
        a = rng.uniform(0.0, 2.0 * np.pi, m)
        xy[crowded] += np.column_stack((r * np.cos(a), r * np.sin(a)))
    xy += rng.uniform(-0.05, 0.05, size=xy.shape) * scale


def _initial_layout(
    src: np.ndarray,
    dst: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    comp: np.ndarray,
    sizes: np.ndarray,
    k: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """A good starting point for a fresh graph: PivotMDS (Brandes & Pich) per connected component
    (``comp``: component of each node, ``sizes``: nodes per component), each scaled to a mean edge
    length of ``k``, the components arranged around the largest one."""
    n = len(comp)
    pos = np.zeros((n, 2))
    if n == 0:
        return pos
    n_comp = len(sizes)
    big = np.flatnonzero(sizes >= _MDS_MIN_COMPONENT)
    members = np.argsort(comp, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(sizes)))

    dist = None
    pivot_rows: dict[int, np.ndarray] = {}
    if len(big):
        pivots: list[np.ndarray] = []
        row = 0
        for c in big.tolist():
            nodes = members[bounds[c] : bounds[c + 1]]
            m = min(len(nodes), max(3, int(np.ceil(_MDS_PIVOTS * len(nodes) / n))))
            chosen = rng.choice(nodes, size=m, replace=False)
            pivots.append(chosen)
            pivot_rows[c] = np.arange(row, row + m)
            row += m
        sources = np.concatenate(pivots)
        dist = _bfs_hops(indptr, indices, np.arange(len(sources)), sources, len(sources))

    # Edges grouped by component, with endpoints renumbered within their component.
    local = np.empty(n, dtype=np.intp)
    local[members] = np.arange(n) - np.repeat(bounds[:-1], sizes)
    e_order = np.argsort(comp[src], kind="stable")
    e_src = local[src[e_order]]
    e_dst = local[dst[e_order]]
    e_bounds = np.searchsorted(comp[src[e_order]], np.arange(n_comp + 1))

    shapes: list[tuple[int, np.ndarray]] = []
    for c in range(n_comp):
        nodes = members[bounds[c] : bounds[c + 1]]
        m = len(nodes)
        if m == 1:
            shapes.append((c, np.zeros((1, 2))))
            continue
        xy = None
        if c in pivot_rows and dist is not None:
            d = dist[pivot_rows[c]][:, nodes].astype(float)
            d2 = d * d
            cc = d2 - d2.mean(axis=1, keepdims=True) - d2.mean(axis=0, keepdims=True) + d2.mean()
            vals, vecs = np.linalg.eigh(cc @ cc.T)
            if vals[-1] > 0:  # (a path is exactly 1-D: then the second axis is ~0, and that is fine)
                xy = -0.5 * cc.T @ vecs[:, [-1, -2]]
        es, ee = e_bounds[c], e_bounds[c + 1]
        if xy is not None:
            mean_len = _mean_edge(xy, e_src[es:ee], e_dst[es:ee])
            if mean_len > 0:
                _spread_coincident(xy, mean_len, rng)
            else:
                xy = None
        if xy is None:  # small component: random in a disc
            r = np.sqrt(rng.uniform(0.0, 1.0, m)) * np.sqrt(m)
            a = rng.uniform(0.0, 2.0 * np.pi, m)
            xy = np.column_stack((r * np.cos(a), r * np.sin(a)))
        xy = xy - xy.mean(axis=0)
        mean_len = _mean_edge(xy, e_src[es:ee], e_dst[es:ee])
        # Scale to a mean edge length of k.  (PivotMDS tends to collapse side branches; starting
        # small lets the strong short-range repulsion open them up quickly, whereas an oversized
        # start shrinks only slowly.)
        shapes.append((c, xy * (k / mean_len) if mean_len > 0 else xy * k))

    # Largest component in the middle, the others around it on a golden-angle spiral whose radius
    # grows with the area already used (overlaps are left for the forces to resolve).
    shapes.sort(key=lambda item: -sizes[item[0]])
    used = 0.0
    for i, (c, xy) in enumerate(shapes):
        r = float(np.sqrt(np.sum(xy * xy, axis=1)).max()) + k
        if i == 0:
            centre = np.zeros(2)
        else:
            angle = i * 2.399963229728653
            dist = np.sqrt(used / np.pi) + r
            centre = dist * np.array([np.cos(angle), np.sin(angle)])
        pos[members[bounds[c] : bounds[c + 1]]] = xy + centre
        used += (2 * r) ** 2
    return pos - pos.mean(axis=0)


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
        _, comp, comp_size = np.unique(_components(n, src, dst), return_inverse=True, return_counts=True)
        comp = comp.reshape(-1)

        if n_kept == 0:
            pos = _initial_layout(src, dst, indptr, indices, comp, comp_size, k, self._rng)
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
        hops = _bfs_hops(
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
            force = _repulsion_tree(p, self.theta, targets)
        else:
            force = _repulsion_exact(p, targets)
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
