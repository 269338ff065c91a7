"""The vector index: Qdrant persistence with an in-memory mirror that must agree with it."""

import uuid

import numpy as np

from memoir_desktop.core.storage.vectors import VectorIndex


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


def _saved_index(path, n, spare=0):
    """A collection "c" of n vectors, closed cleanly (so its mirror copy is on disk).

    Returns the ids and n + spare vectors; the spare ones are not stored."""
    ids = [str(uuid.UUID(int=i + 1)) for i in range(n)]
    v = _vecs(n + spare)
    idx = VectorIndex(path)
    idx.recreate("c", 8)
    idx.upsert("c", list(zip(ids, v[:n])))
    idx.close()
    return ids, v


def _no_scroll(monkeypatch):
    from qdrant_client import QdrantClient

    def refuse(*args, **kwargs):
        raise AssertionError("the mirror was rebuilt from Qdrant")

    monkeypatch.setattr(QdrantClient, "scroll", refuse)


def test_reopened_index_searches_from_its_copy(tmp_path, monkeypatch):
    # Rebuilding a mirror scrolls every point through Python (~10 s at 50k): a clean close
    # leaves a copy that the next start uses instead.
    ids = [str(uuid.UUID(int=i + 1)) for i in range(60)]
    v = _vecs(60)
    idx = VectorIndex(tmp_path / "q")
    idx.recreate("c", 8)
    idx.upsert("c", list(zip(ids, v)))
    idx.delete("c", ids[:5])
    idx.close()
    _no_scroll(monkeypatch)
    again = VectorIndex(tmp_path / "q")
    try:
        assert again.search("c", v[30], 1)[0][0] == ids[30]
        assert not set(ids[:5]) & {i for i, _ in again.search("c", v[0], 60)}
        again.upsert("c", [(ids[6], v[40])])  # a change after start keeps the mirror warm
        assert again.search("c", v[40], 2)[0][0] in {ids[6], ids[40]}
    finally:
        again.close()


def test_a_copy_is_not_trusted_after_a_crash(tmp_path):
    # The crash replaces a vector (same count), so only the change marker can tell the copy
    # is stale; os._exit skips close(), as a kill would.
    import subprocess
    import sys

    ids, v = _saved_index(tmp_path / "q", 40, spare=1)
    np.save(tmp_path / "new.npy", v[40])
    code = (
        "import os, sys, numpy as np\n"
        "from pathlib import Path\n"
        "from memoir_desktop.core.storage.vectors import VectorIndex\n"
        "p = Path(sys.argv[1])\n"
        "idx = VectorIndex(p / 'q')\n"
        "idx.search('c', np.load(p / 'new.npy'), 1)\n"
        "idx.upsert('c', [(sys.argv[2], np.load(p / 'new.npy'))])\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path), ids[3]], check=True, timeout=120)
    again = VectorIndex(tmp_path / "q")
    try:
        assert again.search("c", v[40], 1)[0][0] == ids[3]
    finally:
        again.close()


def test_a_damaged_copy_is_rebuilt(tmp_path):
    from memoir_desktop.core.storage.mirror import mirror_folder

    ids, v = _saved_index(tmp_path / "q", 20)
    copies = list(mirror_folder(tmp_path / "q").glob("*.npz"))
    assert copies
    for c in copies:
        c.write_bytes(b"not a numpy file")
    again = VectorIndex(tmp_path / "q")
    try:
        assert again.search("c", v[7], 1)[0][0] == ids[7]
    finally:
        again.close()


def test_without_room_for_the_change_marker_the_copy_is_dropped(tmp_path, monkeypatch):
    import errno
    import os

    from memoir_desktop.core.storage import mirror

    ids, v = _saved_index(tmp_path / "q", 30, spare=1)

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    idx = VectorIndex(tmp_path / "q")
    monkeypatch.setattr(mirror.os, "fsync", full)  # no marker, and no copy can be saved either
    idx.upsert("c", [(ids[2], v[30])])  # same count: only a missing copy prevents trusting it
    idx.close()
    monkeypatch.setattr(mirror.os, "fsync", os.fsync)
    again = VectorIndex(tmp_path / "q")
    try:
        assert again.search("c", v[30], 1)[0][0] == ids[2]
    finally:
        again.close()


def test_a_plain_journal_searched_before_its_first_memory_searches_quietly(tmp_path, caplog):
    """No collection yet: the store asks for "" (a read makes nothing), which Qdrant refused with a
    ValueError that every search logged as "dense search unavailable" before falling back to words."""
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path / "home", encrypt=False) as mem, caplog.at_level("WARNING"):
        assert mem.search("내가 키우는 고양이 이름이 뭐였지?")["results"] == []
    assert not [r for r in caplog.records if "unavailable" in r.getMessage()]
