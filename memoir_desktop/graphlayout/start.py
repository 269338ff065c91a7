"""Where a fresh graph's nodes start: PivotMDS per connected component (BFS hop distances from a
few pivots, top-2 eigenvectors of a small matrix), which unfolds grids, trees and chains that
force-directed steps from a random start leave folded. Also the graph helpers the layout shares:
component labels and hop distances.
"""

from __future__ import annotations

import numpy as np

from memoir_desktop.graphlayout.repulsion import expand

_MDS_PIVOTS = 50  # PivotMDS pivots for the initial layout of a fresh graph (shared by components)
_MDS_MIN_COMPONENT = 8  # smaller components start at random instead


def _mean_edge(xy: np.ndarray, src: np.ndarray, dst: np.ndarray) -> float:
    if len(src) == 0:
        return 0.0
    return float(np.linalg.norm(xy[src] - xy[dst], axis=1).mean())




def components(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
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


def bfs_hops(
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
        owner, e = expand(indptr[node], deg[node])
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


# Long on purpose: the stages of the start layout share the component arrays it builds.
def initial_layout(
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
        dist = bfs_hops(indptr, indices, np.arange(len(sources)), sources, len(sources))

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

