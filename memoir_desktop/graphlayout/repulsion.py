"""Repulsion between all pairs of nodes for the force layout: exact, or Barnes-Hut for big graphs.

Exact: vectorised all-pairs in cache-sized row chunks. Barnes-Hut: a Morton-ordered quadtree built
level by level with ``np.add.reduceat`` and walked breadth-first for all node groups at once, with
a first-order far-field expansion per group -- O(N log N) numpy work per step, no Python loop over
nodes. Forces have magnitude ``k**2 / d`` with ``k`` = 1 (the caller scales).
"""

from __future__ import annotations

import numpy as np

_CHUNK_ELEMENTS = 1 << 14  # rows x N elements per chunk of the exact repulsion (cache-sized)
_TREE_DEPTH = 24  # max quadtree depth (a stray far-away node must not lump the rest into one cell)
_GROUP_SIZE = 8  # Barnes-Hut: nodes sharing one far-field evaluation (at most)
_LEAF_SIZE = 4  # Barnes-Hut: cells this small are summed exactly when not far enough


def _spread_bits(v: np.ndarray) -> np.ndarray:
    """Spread the low 32 bits of ``v`` to the even bit positions of an int64 (for Morton codes)."""
    v = v & 0xFFFFFFFF
    v = (v | (v << 16)) & 0x0000FFFF0000FFFF
    v = (v | (v << 8)) & 0x00FF00FF00FF00FF
    v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0F
    v = (v | (v << 2)) & 0x3333333333333333
    v = (v | (v << 1)) & 0x5555555555555555
    return v


def expand(first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges ``[first, first + count)`` return (index of the range, member) for every member."""
    total = int(count.sum())
    owner = np.repeat(np.arange(len(count)), count)
    offsets = np.cumsum(count) - count
    member = np.repeat(first - offsets, count) + np.arange(total)
    return owner, member


def repulsion_exact(p: np.ndarray, targets: np.ndarray | None = None) -> np.ndarray:
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


# Long on purpose: one vectorised pass per tree level over arrays built once; helpers would pass a
# dozen arrays each and hide the order the levels must run in.
def repulsion_tree(p: np.ndarray, theta: float, targets: np.ndarray | None = None) -> np.ndarray:
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
        owner, c = expand(child_first[c], child_count[c])
        g = g[owner]

    ox = offset[:, 0]
    oy = offset[:, 1]
    force_s = field[gid]
    force_s[:, 0] += grad_a[gid] * ox + grad_b[gid] * oy
    force_s[:, 1] += grad_b[gid] * ox - grad_a[gid] * oy
    if near_group:
        ng = np.concatenate(near_group)
        owner, j = expand(np.concatenate(near_start), np.concatenate(near_count))
        ng = ng[owner]
        owner, i = expand(gstart[ng], gcount[ng])
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


