"""The graph canvas's force-directed layout: sane, clustered, incremental, pinnable, deterministic, Qt-free."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memoir_desktop.graphlayout import force as layout_mod
from memoir_desktop.graphlayout import repulsion as repulsion_mod
from memoir_desktop.graphlayout.force import ForceLayout

ROOT = Path(__file__).resolve().parents[2]


def ba_like(n: int, seed: int = 0) -> tuple[list[str], list[tuple[str, str]]]:
    """Preferential attachment, 2-3 edges per new node."""
    rng = np.random.default_rng(seed)
    ids = [f"n{i}" for i in range(n)]
    edges = [(0, 1), (1, 2), (0, 2)]
    ends = [0, 1, 1, 2, 0, 2]
    for i in range(3, n):
        targets: set[int] = set()
        while len(targets) < 2 + i % 2:
            targets.add(ends[int(rng.integers(len(ends)))])
        for j in sorted(targets):
            edges.append((i, j))
            ends += [i, j]
    return ids, [(ids[a], ids[b]) for a, b in edges]


def clustered(n_clusters: int = 8, size: int = 20, seed: int = 0) -> tuple[list[str], list[tuple[str, str]]]:
    rng = np.random.default_rng(seed)
    ids = [f"c{c}_{i}" for c in range(n_clusters) for i in range(size)]
    edges = [
        (f"c{c}_{i}", f"c{c}_{j}")
        for c in range(n_clusters)
        for i in range(size)
        for j in range(i + 1, size)
        if rng.random() < 0.3
    ]
    for _ in range(12):
        a, b = rng.choice(n_clusters, 2, replace=False)
        edges.append((f"c{a}_{rng.integers(size)}", f"c{b}_{rng.integers(size)}"))
    return ids, edges


def laid_out(ids, edges, seed=0, **kw) -> ForceLayout:
    layout = ForceLayout(seed=seed, **kw)
    layout.set_graph(ids, edges)
    layout.run()
    return layout


def dist(pos: dict, a: str, b: str) -> float:
    return float(np.hypot(pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]))


def assert_sane(xy: np.ndarray) -> None:
    assert np.isfinite(xy).all()
    assert len(np.unique(xy, axis=0)) == len(xy), "two nodes share a position"


@pytest.fixture(params=["exact", "barnes-hut"])
def repulsion(request, monkeypatch):
    """Run a test with exact all-pairs repulsion, then with the Barnes-Hut tree (forced on by
    lowering the size threshold, to keep the graphs small)."""
    if request.param == "barnes-hut":
        monkeypatch.setattr(layout_mod, "EXACT_MAX_NODES", 50)
    return request.param


def test_positions_finite_distinct_and_edges_short(repulsion):
    n = 300
    ids, edges = ba_like(n)
    layout = laid_out(ids, edges)
    out_ids, xy = layout.positions_array()
    assert out_ids == ids and xy.shape == (n, 2)
    assert_sane(xy)
    assert layout.at_rest()
    index = {x: i for i, x in enumerate(ids)}
    e = np.array([(index[a], index[b]) for a, b in edges])
    edge_len = np.linalg.norm(xy[e[:, 0]] - xy[e[:, 1]], axis=1).mean()
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, n, (2, 5000))
    pair_len = np.linalg.norm(xy[a[a != b]] - xy[b[a != b]], axis=1).mean()
    assert edge_len < 0.75 * pair_len


def test_two_cliques_joined_by_one_edge_form_two_clusters():
    left = [f"L{i}" for i in range(6)]
    right = [f"R{i}" for i in range(6)]
    edges = [(g[i], g[j]) for g in (left, right) for i in range(6) for j in range(i + 1, 6)]
    edges.append(("L0", "R0"))
    pos = laid_out(left + right, edges).positions
    within = np.mean([dist(pos, a, b) for g in (left, right) for a in g for b in g if a < b])
    across = np.mean([dist(pos, a, b) for a in left for b in right])
    assert within < 0.5 * across
    # every node is nearer its own clique's centre than the other one's
    for group, other in ((left, right), (right, left)):
        c_own = np.mean([pos[x] for x in group], axis=0)
        c_other = np.mean([pos[x] for x in other], axis=0)
        for x in group:
            assert np.linalg.norm(np.subtract(pos[x], c_own)) < np.linalg.norm(np.subtract(pos[x], c_other))


def test_adding_a_node_moves_the_rest_only_a_little_and_lands_by_its_neighbour(repulsion):
    ids, edges = clustered()
    layout = laid_out(ids, edges)
    _, before = layout.positions_array()
    radius = np.sqrt(np.mean(np.sum((before - before.mean(axis=0)) ** 2, axis=1)))

    layout.set_graph(ids + ["new"], edges + [("c3_5", "new")])
    layout.run()
    out_ids, after = layout.positions_array()
    assert out_ids[:-1] == ids
    assert_sane(after)
    moved = np.linalg.norm(after[:-1] - before, axis=1)
    assert moved.mean() < 0.03 * radius
    assert np.median(moved) < 0.01 * radius

    anchor = after[ids.index("c3_5")]
    d_new = np.linalg.norm(after[-1] - anchor)
    d_others = np.linalg.norm(after[:-1] - anchor, axis=1)
    assert np.mean(d_others < d_new) < 0.2  # closer to its neighbour than 80% of the graph is


def test_growing_a_graph_keeps_existing_positions_before_settling():
    ids, edges = ba_like(80)
    layout = laid_out(ids, edges)
    before = layout.positions
    layout.set_graph(ids + ["x", "y"], edges + [("n5", "x"), ("x", "y")])
    after = layout.positions
    assert all(after[k] == before[k] for k in ids)
    # new nodes start near their placed neighbour, the second one next to the first
    scale = np.median([dist(before, a, b) for a, b in edges])
    assert dist(after, "n5", "x") < scale
    assert dist(after, "x", "y") < scale
    # resetting the very same graph changes nothing and needs no work
    layout.run()
    settled = layout.positions
    layout.set_graph(ids + ["x", "y"], edges + [("n5", "x"), ("x", "y")])
    assert layout.run() <= 1
    assert layout.positions == settled


def test_removing_nodes_keeps_the_others_in_place():
    ids, edges = ba_like(60)
    layout = laid_out(ids, edges)
    before = layout.positions
    keep = ids[:-10]
    layout.set_graph(keep, [(a, b) for a, b in edges if a in keep and b in keep])
    assert all(layout.positions[k] == before[k] for k in keep)
    layout.run()
    assert_sane(layout.positions_array()[1])


def test_pinned_node_stays_where_it_is_put_and_pulls_its_neighbours():
    ids, edges = clustered(n_clusters=3, size=10)
    layout = laid_out(ids, edges)
    start = layout.positions
    far = (start["c0_0"][0] + 25.0, start["c0_0"][1] - 10.0)
    layout.pin("c0_0", far)
    assert layout.is_pinned("c0_0")
    layout.run()
    pos = layout.positions
    assert pos["c0_0"] == far
    neighbours = [b if a == "c0_0" else a for a, b in edges if "c0_0" in (a, b)]
    assert neighbours
    for nb in neighbours:  # they followed the drag, at least partly
        assert np.hypot(pos[nb][0] - far[0], pos[nb][1] - far[1]) < 0.8 * np.hypot(
            start[nb][0] - far[0], start[nb][1] - far[1]
        )
    # survives a graph update; None unpins
    layout.set_graph(ids + ["z"], edges + [("c1_1", "z")])
    layout.run()
    assert layout.positions["c0_0"] == far
    layout.pin("c0_0", None)
    assert not layout.is_pinned("c0_0")
    layout.step(5)
    assert layout.positions["c0_0"] != far


def test_nodes_put_on_the_same_spot_come_apart():
    layout = ForceLayout(seed=3)
    layout.set_graph(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "d")])
    for node in ("b", "c", "d"):
        layout.pin(node, (1.0, 1.0))
    layout.pin("b", None)
    layout.pin("c", None)
    layout.run()
    assert_sane(layout.positions_array()[1])


def test_same_seed_same_layout_other_seed_other_layout(repulsion):
    ids, edges = ba_like(200)

    def final(seed):
        layout = ForceLayout(seed=seed)
        layout.set_graph(ids, edges)
        layout.step(10)
        layout.set_graph(ids + ["extra"], edges + [("n3", "extra")])
        layout.pin("n7", (0.5, 0.5))
        layout.step(10)
        return layout.positions_array()[1]

    assert np.array_equal(final(7), final(7))
    assert not np.allclose(final(7), final(8))


def test_empty_graph_and_single_node():
    layout = ForceLayout()
    layout.set_graph([], [])
    assert layout.run() == 0
    assert layout.step() == 0.0
    assert layout.at_rest()
    assert layout.positions == {}
    ids, xy = layout.positions_array()
    assert ids == [] and xy.shape == (0, 2)

    layout.set_graph(["only"], [("only", "only"), ("only", "ghost")])  # self-loop / unknown end: ignored
    layout.run()
    assert np.isfinite(layout.positions["only"]).all()
    layout.set_graph([], [])
    assert layout.positions == {}


def test_disconnected_parts_stay_together_and_do_not_overlap():
    ids, edges = ba_like(100)
    iso = [f"i{k}" for k in range(30)]
    pairs = [(f"p{k}a", f"p{k}b") for k in range(10)]
    all_ids = ids + iso + [x for p in pairs for x in p]
    layout = laid_out(all_ids, edges + pairs)
    _, xy = layout.positions_array()
    assert_sane(xy)
    main = xy[: len(ids)]
    centre = main.mean(axis=0)
    main_radius = np.sqrt(np.sum((main - centre) ** 2, axis=1)).max()
    others = np.sqrt(np.sum((xy[len(ids) :] - centre) ** 2, axis=1))
    assert others.max() < 4 * main_radius  # gravity keeps them in view
    assert np.median(others) > 0.8 * main_radius  # ...around the big component, not inside it


def test_heavier_edges_are_shorter():
    ids = ["a", "b", "c"]
    layout = laid_out(ids, [("a", "b"), ("b", "c")], seed=1)
    layout.set_graph(ids, [("a", "b"), ("b", "c")], weights=[8.0, 1.0])
    layout.run()
    pos = layout.positions
    assert dist(pos, "a", "b") < dist(pos, "b", "c")
    with pytest.raises(ValueError):
        layout.set_graph(ids, [("a", "b")], weights=[1.0, 2.0])
    with pytest.raises(ValueError):
        layout.set_graph(["a", "a"], [])


def test_run_reports_progress_and_can_be_cancelled():
    ids, edges = ba_like(120)
    seen = []
    layout = ForceLayout()
    layout.set_graph(ids, edges)
    done = layout.run(callback=lambda i, xy: seen.append((i, xy.shape)))
    assert done > 10
    assert [i for i, _ in seen][:3] == [10, 20, 30] and seen[-1][0] == done
    assert all(shape == (120, 2) for _, shape in seen)

    layout = ForceLayout()
    layout.set_graph(ids, edges)
    assert layout.run(callback=lambda i, xy: i < 20) == 20


def test_step_returns_shrinking_displacement():
    ids, edges = ba_like(200)
    layout = ForceLayout()
    layout.set_graph(ids, edges)
    first = layout.step()
    layout.step(60)
    later = layout.step()
    assert np.isfinite(first) and first > 0
    assert later < first


def test_barnes_hut_matches_exact_repulsion():
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.normal(c, 1.0, (300, 2)) for c in ((0, 0), (8, 0), (0, 8))])
    exact = repulsion_mod.repulsion_exact(p)
    approx = repulsion_mod.repulsion_tree(p, 0.8)
    err = np.linalg.norm(approx - exact, axis=1) / np.linalg.norm(exact, axis=1)
    assert np.median(err) < 0.01
    assert np.quantile(err, 0.99) < 0.1


def test_layout_module_does_not_import_qt():
    code = (
        "import sys; import memoir_desktop.graphlayout.force as m; "
        "bad = [k for k in sys.modules if k.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph')]; "
        "assert not bad, bad; print('ok')"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
