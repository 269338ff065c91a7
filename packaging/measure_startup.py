"""Time a (frozen) memoir-desktop from process start to its first window and main window.

    xvfb-run -a -s "-screen 0 1400x900x24" \\
        python packaging/measure_startup.py dist/memoir-desktop/memoir-desktop --runs 3 --png out.png

Needs an X display (a real one or Xvfb) and `xwininfo` (x11-utils); `--png` also needs
`xwd` (x11-apps). Each run starts the app on a new, empty data folder (a first run: the
folder is created, the database and the vector index are made), polls the X server until
a viewable top-level window titled "memoir" appears, notes when that is the start-up
window (the small progress box, 380 px wide) and when the main window (wider) shows, then
stops the app with SIGTERM and checks that it exited cleanly (0). With `--home DIR` all
runs share one data folder: the later runs time an everyday start instead.

The app does not print timings itself; measuring from outside, through the X server,
counts everything a user waits for: the bootloader unpacking nothing (one-folder), Python
start, imports, Qt platform start, the first paint. Poll interval ~15 ms.

`--drop-caches` (Linux, root) empties the OS file cache before each run: the first start
after a reboot, when the ~470 MB bundle is read from disk.

`--png` saves the screen with the main window (via `xwd`, converted with Qt), to check
the first-run welcome state by eye.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STARTUP_WINDOW_MAX_WIDTH = 500  # StartupWindow.setFixedWidth(380); the main window is 1200 wide
_WINDOW = re.compile(r'^\s*(0x[0-9a-f]+) "memoir": \(.*\)\s+(\d+)x(\d+)\+', re.M)


def _viewable(window_id: str) -> bool:
    out = subprocess.run(["xwininfo", "-id", window_id], capture_output=True, text=True).stdout
    return "Map State: IsViewable" in out


def _windows() -> list[tuple[str, int, int]]:
    out = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True).stdout
    return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in _WINDOW.finditer(out)]


def measure(
    exe: str,
    timeout: float,
    png: Path | None,
    keep_home: Path | None,
    app_data: bool = False,
    home_dir: Path | None = None,
) -> dict:
    scratch = Path(tempfile.mkdtemp(prefix="memoir-first-run-"))
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)  # a real (X) window is what we time
    if app_data:
        # No MEMOIR_HOME: the app picks the platform's app-data folder, here under a scratch
        # HOME (XDG variables cleared), so the real home folder is never touched.
        for var in (
            "MEMOIR_HOME",
            "MEMOIR_LOG_DIR",
            "XDG_DATA_HOME",
            "XDG_STATE_HOME",
            "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME",
        ):
            env.pop(var, None)
        env["HOME"] = str(scratch)
        home = scratch / ".local" / "share" / "memoir-desktop"  # platformdirs.user_data_dir on Linux
    else:
        home = home_dir or scratch / "home"  # a new one is not created: the app must
        env.update(MEMOIR_HOME=str(home), MEMOIR_LOG_DIR=str(scratch / "logs"))
    start = time.monotonic()
    proc = subprocess.Popen([exe], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    first = main = None
    wm_class = ""
    seen: set[str] = set()
    try:
        while time.monotonic() - start < timeout and proc.poll() is None:
            for window_id, width, _height in _windows():
                if window_id in seen or not _viewable(window_id):
                    continue
                seen.add(window_id)
                now = time.monotonic() - start
                if first is None:
                    first = now
                if width > STARTUP_WINDOW_MAX_WIDTH and main is None:
                    main = now
                    wm_class = _wm_class(window_id)
            if main is not None:
                break
            time.sleep(0.015)
        if main is not None and png is not None:
            time.sleep(2.0)  # let the first paint and the LLM check settle
            save_screen(png)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
    output = proc.stdout.read().decode("utf-8", "replace") if proc.stdout else ""
    result = {
        "first_window_s": None if first is None else round(first, 3),
        "main_window_s": None if main is None else round(main, 3),
        "exit_code": code,
        "home_created": home.is_dir(),
        "home_files": sorted(p.name for p in home.iterdir()) if home.is_dir() else [],
        "wm_class": wm_class,
    }
    if code != 0 or main is None:
        result["output_tail"] = output[-3000:]
    if keep_home is not None:
        shutil.copytree(home, keep_home, dirs_exist_ok=True)
    shutil.rmtree(scratch, ignore_errors=True)
    return result


def _wm_class(window_id: str) -> str:
    """WM_CLASS of the main window (what a .desktop file's StartupWMClass must match)."""
    if not shutil.which("xprop"):
        return ""
    out = subprocess.run(["xprop", "-id", window_id, "WM_CLASS"], capture_output=True, text=True).stdout
    return out.split("=", 1)[-1].strip()


def drop_caches() -> None:
    """Flush and drop the page cache, so the bundle is read from disk as after a reboot."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError as exc:
        raise SystemExit(f"--drop-caches needs Linux and root: {exc}") from exc


def save_screen(png: Path) -> None:
    """`xwd -root` → PNG with Qt (no ImageMagick needed). 24/32-bit ZPixmap only (Xvfb's)."""
    raw = subprocess.run(["xwd", "-root", "-silent"], capture_output=True, check=True).stdout
    fields = [int.from_bytes(raw[i : i + 4], "big") for i in range(0, 100, 4)]
    header_size, width, height = fields[0], fields[4], fields[5]
    byte_order, bits_per_pixel, bytes_per_line, ncolors = fields[7], fields[11], fields[12], fields[19]
    offset = header_size + 12 * ncolors
    data = raw[offset : offset + bytes_per_line * height]
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication, QImage

    _app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841
    # xwd may report 24 bits per pixel for rows that are 4 bytes a pixel (Xvfb with GLX in use):
    # the row length decides. LSBFirst (byte_order 0) means B, G, R(, X) in memory.
    if bytes_per_line >= 4 * width:
        fmt = QImage.Format_RGB32 if byte_order == 0 else QImage.Format_ARGB32
    elif bytes_per_line >= 3 * width:
        fmt = QImage.Format_BGR888 if byte_order == 0 else QImage.Format_RGB888
    else:
        raise RuntimeError(f"xwd: {bits_per_pixel} bits per pixel, {bytes_per_line} bytes a row: not handled")
    image = QImage(data, width, height, bytes_per_line, fmt).copy()
    png.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(png)):
        raise RuntimeError(f"could not write {png}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exe", help="the executable, e.g. dist/memoir-desktop/memoir-desktop")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--png", type=Path, help="save a screenshot of the first run's main window")
    parser.add_argument("--keep-home", type=Path, help="copy the first run's data folder here")
    parser.add_argument(
        "--home",
        type=Path,
        help="one data folder for all runs (the first run creates it): times a later start, not a first run",
    )
    parser.add_argument(
        "--drop-caches",
        action="store_true",
        help="empty the OS file cache before each run (Linux, root): a cold disk start",
    )
    parser.add_argument(
        "--app-data",
        action="store_true",
        help="no MEMOIR_HOME: check the platform app-data folder is created (scratch HOME)",
    )
    args = parser.parse_args(argv)
    if not os.environ.get("DISPLAY"):
        print("no DISPLAY: run under xvfb-run (see the docstring)", file=sys.stderr)
        return 2
    results = []
    for run in range(args.runs):
        if args.drop_caches:
            drop_caches()
        results.append(
            measure(
                args.exe,
                args.timeout,
                args.png if run == 0 else None,
                args.keep_home if run == 0 else None,
                args.app_data,
                args.home,
            )
        )
        print(json.dumps({"run": run + 1, **results[-1]}, ensure_ascii=False), flush=True)
    firsts = [r["first_window_s"] for r in results if r["first_window_s"] is not None]
    mains = [r["main_window_s"] for r in results if r["main_window_s"] is not None]
    summary = {
        "runs": len(results),
        "first_window_median_s": round(statistics.median(firsts), 3) if firsts else None,
        "main_window_median_s": round(statistics.median(mains), 3) if mains else None,
        "all_clean_exits": all(r["exit_code"] == 0 for r in results),
    }
    print(json.dumps(summary))
    return 0 if len(mains) == len(results) and summary["all_clean_exits"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
