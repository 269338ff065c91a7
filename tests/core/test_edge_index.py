"""One contract for both vector indexes: the app's VectorIndex and the qdrant-edge adapter."""

import importlib
import sys
import uuid

import numpy as np
import pytest

pytest.importorskip("qdrant_edge")

from memoir_desktop.core.storage.vectors import VectorIndex  # noqa: E402
from memoir_desktop.eval.edge_index import EdgeVectorIndex  # noqa: E402

DIM = 16


def _unit_vecs(n, seed=0):
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture(params=[VectorIndex, EdgeVectorIndex], ids=["qdrant-client", "qdrant-edge"])
def index_cls(request):
    return request.param


def test_contract_upsert_delete_replace_reopen(index_cls, tmp_path):
    ids = [str(uuid.UUID(int=i + 1)) for i in range(50)]
    v = _unit_vecs(50)
    idx = index_cls(tmp_path / "q")
    idx.ensure("c", DIM)
    idx.upsert("c", zip(ids, v))
    idx.ensure("c", DIM)  # an existing collection is kept
    assert idx.count("c") == 50
    assert idx.ids("c") == set(ids)
    top = idx.search("c", v[7], 5)
    assert top[0][0] == ids[7] and top[0][1] == pytest.approx(1.0, abs=1e-4)
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)

    gone = set(ids[:10])
    idx.delete("c", ids[:10])
    assert idx.count("c") == 40
    assert idx.ids("c") == set(ids[10:])
    for q in v[:10]:
        assert not gone & {i for i, _ in idx.search("c", q, 50)}

    idx.upsert("c", [(ids[20], v[0])])  # replaces the vector of a live id
    assert idx.count("c") == 40
    assert idx.search("c", v[0], 1)[0][0] == ids[20]
    assert ids[20] not in [i for i, _ in idx.search("c", v[20], 3)]

    idx.close()  # VectorIndex: one client per path per process, so close before reopening
    again = index_cls(tmp_path / "q")
    try:
        assert again.exists("c")
        assert again.count("c") == 40
        assert again.ids("c") == set(ids[10:])
        assert again.search("c", v[0], 1)[0][0] == ids[20]
        assert again.search("c", v[30], 1)[0][0] == ids[30]
    finally:
        again.close()


def test_contract_recreate_drop_int_ids_and_missing(index_cls, tmp_path):
    v = _unit_vecs(3, seed=1)
    idx = index_cls(tmp_path / "q")
    try:
        assert not idx.exists("e") and idx.count("e") == 0 and idx.ids("e") == set()
        assert idx.search("e", v[0], 5) == []
        idx.delete("e", [1])  # deleting from a missing collection is a no-op

        idx.recreate("e", DIM)
        idx.upsert("e", [(1, v[0]), (2, v[1]), (3, v[2])])
        assert idx.search("e", v[1], 10)[0][0] == 2  # int ids come back as ints
        assert idx.ids("e") == {"1", "2", "3"}

        idx.recreate("e", DIM)
        assert idx.exists("e") and idx.count("e") == 0 and idx.search("e", v[1], 10) == []

        idx.drop("e")
        assert not idx.exists("e") and idx.count("e") == 0
    finally:
        idx.close()


def test_edge_index_names_its_pip_package_when_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "qdrant_edge", None)  # makes `import qdrant_edge` fail
    monkeypatch.delitem(sys.modules, "memoir_desktop.eval.edge_index")
    with pytest.raises(ImportError, match="pip install qdrant-edge-py"):
        importlib.import_module("memoir_desktop.eval.edge_index")
