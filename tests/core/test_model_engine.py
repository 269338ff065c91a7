"""Where the app came without the reading model's engine (the installers), the download brings it:
the right wheel for this computer, checked against PyPI's checksum, unpacked and importable."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from memoir_desktop.core.search_models import model_engine
from memoir_desktop.core.search_models.model_files import ModelUnavailable
from tests.fakes.file_server import serve_directory
from tests.fakes.tiny_models import make_cross_encoder, publish

ROOT = Path(__file__).resolve().parents[2]
PY = f"cp3{sys.version_info.minor}"


def wheel_files(name: str, version: str, **extra) -> list[dict]:
    return [{"filename": name, "url": f"https://x/{name}", "digests": {"sha256": "0" * 64}, "size": 1, **extra}]


def test_the_wheel_for_this_computer_is_picked():
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        pytest.skip("the names below are Linux x86_64 wheels")
    files = (wheel_files(f"onnxruntime-1.32.0-{PY}-{PY}-win_amd64.whl", "1.32.0")
             + wheel_files(f"onnxruntime-1.32.0-{PY}-{PY}-macosx_13_0_universal2.whl", "1.32.0")
             + wheel_files("onnxruntime-1.32.0-cp39-cp39-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", "1.32.0")
             + wheel_files(f"onnxruntime-1.32.0-{PY}-{PY}-manylinux_2_99_x86_64.whl", "1.32.0")  # a newer glibc
             + wheel_files(f"onnxruntime-1.32.0-{PY}-{PY}-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
                           "1.32.0"))
    assert model_engine.pick("onnxruntime", "1.32.0", files).filename.endswith("manylinux_2_28_x86_64.whl")
    assert PY in model_engine.pick("onnxruntime", "1.32.0", files).filename
    abi3 = wheel_files("tokenizers-0.23.3-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "0.23.3")
    assert model_engine.pick("tokenizers", "0.23.3", abi3).filename == abi3[0]["filename"]
    with pytest.raises(ModelUnavailable, match="no onnxruntime 1.32.0 for this computer"):
        model_engine.pick("onnxruntime", "1.32.0", files[:2])


def _wheel_of(module: str, out: Path) -> Path:
    """The installed package as a wheel (stored, not compressed: the test needs speed, not size)."""
    mod = __import__(module)
    dist = importlib.metadata.distribution(module)
    version = dict(model_engine.ENGINE)[module]
    tag = f"{PY}-{PY}" if module == "onnxruntime" else "cp39-abi3"
    path = out / f"{module}-{version}-{tag}-manylinux_2_17_x86_64.whl"
    package = Path(mod.__file__).parent
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for f in package.rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts:
                z.write(f, f.relative_to(package.parent))
        for f in dist.files or []:
            if ".dist-info/" in str(f):
                z.write(Path(dist.locate_file(f)), str(f))
    return path


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux") or os.uname().machine != "x86_64",
                    reason="the stand-in wheels are named for Linux x86_64")
def test_an_app_without_the_engine_downloads_it_with_the_model_and_reads(tmp_path):
    www = tmp_path / "www"
    publish(www, make_cross_encoder(tmp_path / "tiny", ["사랑니를 뽑았다", "이 뽑은 거 어땠어?"]))
    (www / "files").mkdir()
    for module in model_engine.MODULES:
        wheel = _wheel_of(module, www / "files")
        data = wheel.read_bytes()
        listing = {"releases": {dict(model_engine.ENGINE)[module]: [
            {"filename": wheel.name, "url": f"URL/files/{wheel.name}", "size": len(data),
             "digests": {"sha256": hashlib.sha256(data).hexdigest()}}]}}
        (www / "pypi" / module).mkdir(parents=True)
        (www / "pypi" / module / "json").write_text(json.dumps(listing))
    # A Python that sees every installed package but the engine: what the installers ship.
    shadow = tmp_path / "site"
    shadow.mkdir()
    for site in (p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()):
        for entry in Path(site).iterdir():
            if not entry.name.startswith(("onnxruntime", "tokenizers", "_distutils_hack")) \
                    and not (shadow / entry.name).exists():
                (shadow / entry.name).symlink_to(entry)
    script = f"""
import sys
sys.path[:0] = [{str(shadow)!r}, {str(ROOT)!r}]
from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.core.search_models import model_engine
assert not model_engine.importable(), "the engine is visible: the test would prove nothing"
seen = []
where = model_catalog.install(model_catalog.RERANKER, progress=lambda d, t: seen.append((d, t)))
assert model_engine.importable()
import onnxruntime
from memoir_desktop.core.search_models.cross_encoder import CrossEncoder
print(onnxruntime.__file__)
print(len(CrossEncoder(where).score("이 뽑은 거 어땠어?", ["사랑니를 뽑았다", "서울"])))
print(seen[-1][0] == seen[-1][1], seen[-1][1])
"""
    with serve_directory(www) as base:
        for module in model_engine.MODULES:
            f = www / "pypi" / module / "json"
            f.write_text(f.read_text().replace("URL", base))
        env = {**os.environ, "MEMOIR_MODELS_DIR": str(tmp_path / "models"), "MEMOIR_PYPI": f"{base}/pypi",
               "MEMOIR_MODEL_HUB": base}
        run = subprocess.run([sys.executable, "-S", "-c", script], env=env, capture_output=True, text=True,
                             timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    where, scored, complete = run.stdout.split()[-4], run.stdout.split()[-3], run.stdout.split()[-2]
    assert where.startswith(str(tmp_path / "models" / "engine"))
    assert scored == "2" and complete == "True"
