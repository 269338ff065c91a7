"""`run(argv)`: command-line options, the QApplication, and the three ways to start.

    memoir-desktop [--home DIR] [--lang ko|en] [--theme light|dark]   the app (one per data dir)
    memoir-desktop --screenshot DIR [--home DIR] render each main view to PNG, then exit
    memoir-desktop --smoke                        store + search a memory headless, then exit
"""

from __future__ import annotations

# Qt and the app's modules are imported inside run(), after the display check: without a display
# server, importing QtWidgets aborts the process in C++ before one sentence could say what to install,
# and `--help` should not load Qt at all.
import argparse
import logging
import os
import signal
import sys
from pathlib import Path


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="memoir-desktop", description="A journal that remembers you.")
    parser.add_argument("--home", type=Path, help="data folder (default: MEMOIR_HOME or the app-data folder)")
    parser.add_argument("--lang", choices=("system", "ko", "en"), help="interface language for this run")
    parser.add_argument("--theme", choices=("system", "light", "dark"), help="colour theme for this run")
    parser.add_argument("--screenshot", type=Path, metavar="DIR", help="save screenshots of each view and exit")
    parser.add_argument("--smoke", action="store_true", help="store and search a memory without a window, exit")
    # Qt's own options (-platform, -style, …) are left for QApplication.
    args, _qt_args = parser.parse_known_args(argv)
    return args


def _setup_logging() -> None:
    from memoir_desktop.core.logs import setup_logging

    # The CLI's setup (core/logs.py: HTTP clients kept from logging the endpoint's URLs), with the console.
    setup_logging(name="memoir-desktop.log", backups=3, console=True)


def _quit_on_signals(app) -> None:
    """Ctrl+C in a terminal or a logout's SIGTERM closes the app through its normal exit path."""
    from PySide6.QtCore import QTimer

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: app.closeAllWindows() or app.quit())
    # Python runs signal handlers only between bytecodes; a light timer gives it the chance.
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(500)


def run(argv: list[str]) -> int:
    args = parse_args(argv[1:])
    if args.smoke:
        from memoir_desktop.ui.checks.smoke import run_smoke

        return run_smoke()

    _setup_logging()
    if args.screenshot:
        # Render without putting windows on the user's screen.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from memoir_desktop.ui.startup.display_check import exit_if_no_display

    exit_if_no_display()  # one sentence and status 2, not Qt's abort
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from memoir_desktop.ui.shared.qt_compat import guard_none_refcount

    guard_none_refcount()

    from memoir_desktop.core import config
    from memoir_desktop.ui.shared import i18n
    from memoir_desktop.ui.shared.resources import icon
    from memoir_desktop.ui.shared.theme import apply_theme

    QCoreApplication.setOrganizationName("memoir")
    QCoreApplication.setApplicationName("memoir-desktop")
    app = QApplication.instance() or QApplication(argv[:1])
    app.setApplicationDisplayName("memoir")
    from memoir_desktop.ui.shared.qt_compat import MainThreadCollector

    collector = MainThreadCollector()  # noqa: F841 - its timer runs while the app does
    app.setWindowIcon(icon("memoir"))

    if args.screenshot:
        from memoir_desktop.ui.checks.screenshots import take_screenshots

        i18n.install(args.lang or "ko")  # the demo journal is Korean
        apply_theme(app, args.theme or "light")
        return take_screenshots(app, args.screenshot, args.home)

    home = config.resolve_home(args.home)
    settings = config.load_settings(home)
    i18n.install(args.lang or settings.ui_language)
    apply_theme(app, args.theme or settings.theme)

    from memoir_desktop.ui.startup.lifecycle import AppLifecycle
    from memoir_desktop.ui.startup.single_instance import SingleInstance

    instance = SingleInstance(home)
    if not instance.claim():
        print("memoir is already open; its window was brought to the front.", file=sys.stderr)
        return 0
    lifecycle = AppLifecycle(app, home, instance)
    _quit_on_signals(app)
    lifecycle.start()
    code = app.exec()
    if not lifecycle.shutdown():
        # A job is mid-LLM-call. Its row stays in SQLite and resumes next start; waiting for a
        # slow server (or Qt waiting on the pool at exit) would only keep a dead window alive.
        logging.shutdown()
        os._exit(code)
    return code
