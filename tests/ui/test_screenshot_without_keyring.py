"""`memoir-desktop --screenshot DIR` where no keyring keeps a journal's key and no MEMOIR_PASSPHRASE is
set: one sentence saying what it needs and a non-zero exit, never a traceback. Run as its own process,
as a user runs it, with keyring's "fail" backend (what keyring picks on a desktop without a daemon)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

RUN = "import sys; from memoir_desktop.app import main; sys.exit(main())"


def screenshot_run(tmp_path, **env_extra) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMOIR_")}
    scratch = tmp_path / "user"
    env.update(PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", QT_QPA_PLATFORM="offscreen",
               HOME=str(scratch), XDG_CONFIG_HOME=str(scratch / "config"), XDG_DATA_HOME=str(scratch / "data"),
               XDG_STATE_HOME=str(scratch / "state"), XDG_CACHE_HOME=str(scratch / "cache"),
               PYTHONPATH=str(ROOT), **env_extra)
    return subprocess.run([sys.executable, "-c", RUN, "--screenshot", str(tmp_path / "shots")],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)


def test_screenshots_without_a_keyring_or_passphrase_say_what_they_need_in_one_sentence(tmp_path):
    out = screenshot_run(tmp_path)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and "Error" not in out.stderr, out.stderr
    said = out.stderr.strip().splitlines()[-1]
    assert "MEMOIR_PASSPHRASE" in said and "8" in said and "keyring" in said, out.stderr
    assert not list((tmp_path / "shots").glob("*.png"))


def test_a_too_short_passphrase_is_said_so_without_a_traceback(tmp_path):
    out = screenshot_run(tmp_path, MEMOIR_PASSPHRASE="short")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr, out.stderr
    said = out.stderr.strip().splitlines()[-1]
    assert "MEMOIR_PASSPHRASE" in said and "8" in said, out.stderr
