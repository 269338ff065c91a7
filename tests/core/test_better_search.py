"""Better search on request: the downloaded cross-encoder, its install from the model's home, and the
companion's context going through it — with a tiny random BERT the tests build, served by a local
stand-in for the Hub."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from memoir_desktop.core.search.fusion import fuse
from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.core.search_models.cross_encoder import CrossEncoder, CrossEncoderUnavailable
from memoir_desktop.core.search_models.model_files import ModelUnavailable
from tests.fakes.file_server import serve_directory
from tests.fakes.tiny_models import make_cross_encoder, publish

MEMORIES = ["사랑니를 뽑았다", "서울로 이사했다", "커피를 끊었다", "지수와 부산에 갔다", "요가를 시작했다"]
QUESTION = "이 뽑은 거 어땠어?"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return make_cross_encoder(tmp_path_factory.mktemp("ce"), MEMORIES + [QUESTION, "요즘 어디 살아?"])


@pytest.fixture
def models(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("MEMOIR_MODELS_DIR", str(folder))
    return folder


def test_the_tiny_cross_encoder_scores_each_pair(tiny):
    ce = CrossEncoder(tiny)
    a = ce.score(QUESTION, MEMORIES)
    assert a.shape == (len(MEMORIES),) and np.isfinite(a).all()
    assert len(set(np.round(a, 4))) > 1  # the pairs are read, not a constant
    assert not np.allclose(a, ce.score("요즘 어디 살아?", MEMORIES))  # and so is the question
    assert np.allclose(a[:2], ce.score(QUESTION, MEMORIES[:2]))  # padding does not change a pair's score
    assert ce.score(QUESTION, []).shape == (0,)


def test_a_two_label_model_scores_relevant_minus_not(tmp_path):
    folder = make_cross_encoder(tmp_path / "two", MEMORIES + [QUESTION], labels=2)
    assert CrossEncoder(folder).score(QUESTION, MEMORIES).shape == (len(MEMORIES),)


def test_an_incomplete_or_corrupt_model_says_why(tiny, tmp_path):
    half = tmp_path / "half"
    half.mkdir()
    shutil.copy(tiny / "model.onnx", half / "model.onnx")
    with pytest.raises(CrossEncoderUnavailable, match="tokenizer.json is missing"):
        CrossEncoder(half)
    shutil.copy(tiny / "tokenizer.json", half / "tokenizer.json")
    (half / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(CrossEncoderUnavailable, match="could not be loaded"):
        CrossEncoder(half)


def test_install_verifies_every_file_and_continues_a_cut_download(tiny, models, tmp_path, monkeypatch):
    www = tmp_path / "www"
    publish(www, tiny)
    state: dict = {}
    size = (tiny / "model.onnx").stat().st_size
    with serve_directory(www, ranges=True, cut_after=size // 3, cuts=2, state=state) as base:  # the listing, then the model
        monkeypatch.setenv("MEMOIR_MODEL_HUB", base)
        with pytest.raises(ModelUnavailable, match="next try continues") as cut:
            model_catalog.install(model_catalog.RERANKER)
        assert cut.value.kind == "cut"  # the screen says so in the user's language
        assert model_catalog.installed(model_catalog.RERANKER) is None  # a cut download is not a model
        seen = []
        where = model_catalog.install(model_catalog.RERANKER, progress=lambda d, t: seen.append((d, t)))
    assert any(r and r.startswith("bytes=") for r in state["ranges"])  # continued, not started again
    assert model_catalog.installed(model_catalog.RERANKER) == where
    assert (where / "model.onnx").read_bytes() == (tiny / "model.onnx").read_bytes()
    assert seen[-1][0] == seen[-1][1] > size  # both files counted, to the end
    assert not [p for p in where.iterdir() if p.name.startswith(".partial-")]
    assert CrossEncoder(where).score(QUESTION, MEMORIES).shape == (len(MEMORIES),)


def test_a_file_that_fails_its_checksum_is_deleted_and_nothing_is_installed(tiny, models, tmp_path, monkeypatch):
    www = tmp_path / "www"
    publish(www, tiny, wrong_sha=True)
    with serve_directory(www) as base:
        monkeypatch.setenv("MEMOIR_MODEL_HUB", base)
        with pytest.raises(ModelUnavailable, match="checksum differs") as bad:
            model_catalog.install(model_catalog.RERANKER)
        assert bad.value.kind == "checksum"
    where = model_catalog.folder(model_catalog.RERANKER)
    assert model_catalog.installed(model_catalog.RERANKER) is None
    assert not (where / "model.onnx").exists() and not list(where.glob(".partial-*"))


def test_offline_the_install_says_so(models, monkeypatch):
    monkeypatch.setenv("MEMOIR_MODEL_HUB", "http://127.0.0.1:9")  # nothing listens there
    with pytest.raises(ModelUnavailable, match="could not reach") as offline:
        model_catalog.install(model_catalog.RERANKER)
    assert offline.value.kind == "offline" and offline.value.host == "127.0.0.1:9"


def test_without_an_int8_build_the_full_precision_file_is_taken(tiny, models, tmp_path, monkeypatch):
    www = tmp_path / "www"
    publish(www, tiny, model_path="onnx/model.onnx")
    with serve_directory(www) as base:
        monkeypatch.setenv("MEMOIR_MODEL_HUB", base)
        where = model_catalog.install(model_catalog.RERANKER)
    assert json.loads((where / "manifest.json").read_text())["files"]["model.onnx"] == "onnx/model.onnx"


def install_tiny(tiny: Path) -> None:
    model_catalog.install_from(model_catalog.RERANKER, tiny)  # a folder the user already has


def test_a_folder_the_user_has_installs_the_reranker_and_a_wrong_one_is_refused(tiny, models, tmp_path):
    repo = tmp_path / "repo"  # laid out as the model's repository is
    (repo / "onnx").mkdir(parents=True)
    shutil.copy(tiny / "model.onnx", repo / model_catalog.RERANKER.files["model.onnx"][-1])
    shutil.copy(tiny / "tokenizer.json", repo / "tokenizer.json")
    where = model_catalog.install_from(model_catalog.RERANKER, repo)
    assert model_catalog.installed(model_catalog.RERANKER) == where
    assert CrossEncoder(where).score(QUESTION, MEMORIES).shape == (len(MEMORIES),)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "model.onnx").write_bytes(b"not a model")
    shutil.copy(tiny / "tokenizer.json", bad / "tokenizer.json")
    with pytest.raises(ModelUnavailable, match="not a usable reranker"):
        model_catalog.install_from(model_catalog.RERANKER, bad)
    assert model_catalog.installed(model_catalog.RERANKER) == where  # the good one stays, the bad copy is gone
    assert CrossEncoder(where).score(QUESTION, MEMORIES).shape == (len(MEMORIES),)
    assert not list(where.parent.glob(".installing-*"))
    with pytest.raises(ModelUnavailable, match="holds no model.onnx") as missing:
        model_catalog.install_from(model_catalog.RERANKER, tmp_path / "empty")
    assert missing.value.kind == "missing"


def test_the_companions_context_goes_through_the_downloaded_reranker(mem, tiny, models):
    for text in MEMORIES:
        mem.add(text, user_id="me", infer=False)
    builtin = [m["id"] for m in mem.companion.context_for(QUESTION).memories]
    settings = mem.settings
    settings.search_reranker = "cross_encoder"
    mem.reconfigure(settings)
    assert [m["id"] for m in mem.companion.context_for(QUESTION).memories] == builtin  # not downloaded: unchanged
    assert "not downloaded" in mem.retriever.context_rerank.status()["problem"]

    install_tiny(tiny)
    mem.reconfigure(settings)  # what Settings does once the download finished
    mem.models.warm()  # and then, off the answer's time, loads it
    assert mem.retriever.context_rerank.status()["loaded"]
    got = mem.companion.context_for(QUESTION).memories
    assert all("cross_encoder" in m["explain"] for m in got)
    # The cross-encoder's ranking fused with the learned one, as the design says.
    pool = mem.retriever.facts.search("me", mem.retriever.read_query(QUESTION), limit=30)
    scores = CrossEncoder(tiny).score(QUESTION, [m["memory"] for m in pool])
    expected = [i for i, _, _ in fuse({
        "learned": [(m["id"], float(len(pool) - k)) for k, m in enumerate(pool)],
        "cross_encoder": sorted(((m["id"], float(s)) for m, s in zip(pool, scores)), key=lambda t: -t[1])})]
    assert [m["id"] for m in got] == expected[:len(got)]
    assert expected != [m["id"] for m in pool]  # the tiny model does change the order here
    assert mem.retriever.context_rerank.status()["problem"] == ""


def test_a_cancelled_install_keeps_nothing_in_place(tiny, models, tmp_path, monkeypatch):
    www = tmp_path / "www"
    publish(www, tiny)
    with serve_directory(www) as base:
        monkeypatch.setenv("MEMOIR_MODEL_HUB", base)
        with pytest.raises(ModelUnavailable, match="cancelled"):
            model_catalog.install(model_catalog.RERANKER, cancelled=lambda: True)
    assert model_catalog.installed(model_catalog.RERANKER) is None
    assert not (model_catalog.folder(model_catalog.RERANKER) / "model.onnx").exists()


def test_the_llm_option_asks_the_companion_and_keeps_every_memory(mem, fake_llm):
    from tests.fakes.fake_llm import tool

    for text in MEMORIES:
        mem.add(text, user_id="me", infer=False)
    builtin = [m["id"] for m in mem.companion.context_for(QUESTION).memories]
    settings = mem.settings
    settings.search_reranker = "llm"
    mem.reconfigure(settings)
    fake_llm.on("rank_memories", lambda req: tool({"relevant": [len(builtin) - 1]}))  # the last one first
    got = [m["id"] for m in mem.companion.context_for(QUESTION).memories]
    assert got[0] == builtin[-1] and sorted(got) == sorted(builtin)
    assert mem.models.available()["llm_tokens"] > 0


def test_the_int8_build_suits_the_processor():
    """Signed int8 weights ran twice as fast with VNNI (eval/bench_rerank.py); AVX2 keeps the unsigned build."""
    import platform

    if platform.machine().lower() in ("arm64", "aarch64"):
        pytest.skip("x86 file names")
    assert model_catalog._int8_onnx({"avx2", "avx512f", "avx512_vnni"})[0] == "onnx/model_qint8_avx512_vnni.onnx"
    assert model_catalog._int8_onnx({"avx2", "avx_vnni"})[0] == "onnx/model_qint8_avx512_vnni.onnx"
    assert model_catalog._int8_onnx({"avx2", "avx512f"})[0] == "onnx/model_qint8_avx512.onnx"
    assert model_catalog._int8_onnx({"avx2"})[0] == "onnx/model_quint8_avx2.onnx"
    assert model_catalog._int8_onnx(set())[-1] == "onnx/model.onnx"  # full precision when no int8 build is left
