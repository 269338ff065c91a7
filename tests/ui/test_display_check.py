"""Without a screen, or without the X libraries Qt loads, the app says so in one line and exits 2
(Qt alone printed a paragraph about plug-ins and aborted)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memoir_desktop.ui.startup import display_check

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 and its libraries are Linux's")


def test_no_display_is_one_sentence_and_status_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["MEMOIR_HOME"] = str(tmp_path / "home")
    run = subprocess.run([sys.executable, "-c", "from memoir_desktop.app import main; raise SystemExit(main(['x']))"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert lines == [display_check.NO_DISPLAY]
    assert not (tmp_path / "home").exists()  # nothing was created before the check


def test_missing_x_libraries_name_their_packages():
    absent = {"libxcb-cursor.so.0", "libxcb-icccm.so.4"}
    problem = display_check.display_problem({"DISPLAY": ":0"}, "linux", loadable=lambda so: so not in absent)
    assert problem is not None and problem.endswith("sudo apt-get install libxcb-cursor0 libxcb-icccm4")


def test_a_complete_system_or_a_platform_without_a_screen_passes():
    assert display_check.display_problem({"DISPLAY": ":0"}, "linux", loadable=lambda so: True) is None
    assert display_check.display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", loadable=lambda so: False) is None
    assert display_check.display_problem({}, "win32", loadable=lambda so: False) is None


def test_readme_lists_every_package_the_check_can_name():
    readme = (ROOT / "README.md").read_text("utf-8")
    line = next(line for line in readme.splitlines() if "apt-get install" in line and "libxcb-cursor0" in line)
    listed = set(re.findall(r"[a-z0-9][a-z0-9.+-]+", line.split("apt-get install", 1)[1]))
    assert set(display_check.DEBIAN_PACKAGES) <= listed
