"""Before the QApplication: is there a screen to open a window on, and can Qt reach it?

Without a display, or without the X libraries Qt's xcb plug-in loads, Qt prints a paragraph about
plug-ins and aborts the process. A diarist (or a fresh Linux install) needs one sentence naming what
to install instead. Qt-free on purpose: it runs before PySide6 is imported.
"""

from __future__ import annotations

import ctypes
import os
import sys

# What Qt's xcb plug-in (libqxcb, libQt6XcbQpa, libQt6Gui) loads on Linux, by soname, with the
# Debian / Ubuntu package that brings it. libxcb-cursor is not linked but loaded at start (Qt 6.5+
# refuses xcb without it). README's set-up section lists the same packages.
XCB_LIBRARIES = {
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}
# Not loaded by Qt, but without it Korean shows as empty boxes.
FONT_PACKAGE = "fonts-noto-cjk"
DEBIAN_PACKAGES = (*XCB_LIBRARIES.values(), FONT_PACKAGE)

NO_DISPLAY = ("memoir-desktop needs a desktop to open its window, and no display was found (DISPLAY and "
              "WAYLAND_DISPLAY are not set); memoir-cli does everything else from a terminal.")


def _loadable(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_packages(loadable=_loadable) -> list[str]:
    """The Debian / Ubuntu packages whose libraries Qt's X11 plug-in cannot load here."""
    return [package for soname, package in XCB_LIBRARIES.items() if not loadable(soname)]


def display_problem(environ=os.environ, platform: str = sys.platform, loadable=_loadable) -> str | None:
    """One sentence saying why no window can open here, or None when one can (or when Qt is asked
    for a platform that needs no display, such as `offscreen`)."""
    if not platform.startswith("linux"):
        return None  # Windows and macOS always have their own platform plug-in
    wanted = environ.get("QT_QPA_PLATFORM", "")
    if wanted and not wanted.startswith("xcb") and not wanted.startswith("wayland"):
        return None  # offscreen, minimal, vnc…: no screen needed
    if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY"):
        return NO_DISPLAY
    if environ.get("WAYLAND_DISPLAY") and not wanted.startswith("xcb"):
        return None  # Qt's Wayland plug-in, which needs none of the X libraries
    missing = missing_packages(loadable)
    if missing:
        return ("memoir-desktop cannot open its window: the X libraries Qt needs are missing. On Debian or "
                f"Ubuntu: sudo apt-get install {' '.join(missing)}")
    return None


def exit_if_no_display() -> None:
    """Exit with status 2 and one line on stderr when no window can open here."""
    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        raise SystemExit(2)
