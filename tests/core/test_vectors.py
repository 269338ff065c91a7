"""The vector index: Qdrant persistence with an in-memory mirror that must agree with it."""

import uuid

import numpy as np

from memoir_desktop.core.vectors import VectorIndex


def _vecs(n, dim=8, seed=0):
    return np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)


def test_mirror_matches_qdrant_after_upserts_deletes_and_reopen(tmp_path):
    idx = VectorIndex(tmp_path / "q")
    idx.recreate("c", 8)
    v = _vecs(200)
    ids = [str(uuid.UUID(int=i + 1)) for i in range(201)]
    idx.upsert("c", [(ids[i], v[i]) for i in range(200)])
    idx.delete("c", [ids[i] for i in range(0, 200, 3)])
    idx.upsert("c", [(ids[1], v[150]), (ids[200], v[7])])  # replace one, add one
    q = _vecs(1, seed=9)[0]
    got = idx.search("c", q, 10)
    raw = idx._client.query_points("c", query=q.tolist(), limit=10, with_payload=True).points
    assert [g[0] for g in got] == [p.payload["item"] for p in raw]
    assert np.allclose([g[1] for g in got], [p.score for p in raw], atol=1e-5)
    idx.close()
    again = VectorIndex(tmp_path / "q")  # mirror rebuilt from disk on first search
    assert [g[0] for g in again.search("c", q, 10)] == [g[0] for g in got]
    assert ids[0] not in {g[0] for g in again.search("c", v[0], 200)}
    again.close()


def test_int_ids_and_small_collections(tmp_path):
    idx = VectorIndex(tmp_path / "q")
    idx.recreate("e", 8)
    v = _vecs(3)
    idx.upsert("e", [(1, v[0]), (2, v[1]), (3, v[2])])
    assert idx.search("e", v[1], 10)[0][0] == 2
    assert len(idx.search("e", v[1], 10)) == 3
    idx.delete("e", [1, 2, 3])
    assert idx.search("e", v[1], 10) == []
    assert idx.search("missing", v[1], 10) == []
    idx.close()
