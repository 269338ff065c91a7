"""`--screenshot DIR`: render each main view to a PNG (for docs and visual review), then exit.

Opens the given home (or a temporary one), seeds demo content when it is empty, lets the
background work settle (with an LLM configured, the writer organizes the demo entries
first), then grabs the journal (with its On This Day, follow-up and letter cards), a letter,
memory cards, a history dialog, the About you page, stats, diagnostics and settings (with its
Privacy page: what leaves this computer). The demo journal also renders Settings → Connected apps
with the calls an app made, and the Memories page with the memory that app suggested.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QWidget

from memoir_desktop.core import Memoir, lexical
from memoir_desktop.core.keys import crypto
from memoir_desktop.ui.async_memoir import AsyncMemoir
from memoir_desktop.ui.checks.demo import seed_demo, seed_demo_app_calls, seed_demo_app_suggestion
from memoir_desktop.ui.main_window import MainWindow

log = logging.getLogger(__name__)

WINDOW_SIZE = (1280, 820)
SETTLE_TIMEOUT_S = 60.0
EXIT_NO_KEY = 2  # the journal's key cannot be kept or opened (no keyring, no usable passphrase)


def _settle(app: QApplication, backend, timeout: float = SETTLE_TIMEOUT_S, drain: bool = False) -> None:
    """Pump events until no task is in flight (and, with `drain`, the job queue is empty)."""
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline and quiet < 5:
        app.processEvents()
        time.sleep(0.03)
        busy = not backend.idle
        if drain and not busy and backend.llm_configured and backend.mem.jobs.all("pending"):
            backend.writer.poke()
            busy = True
        quiet = 0 if busy else quiet + 1
    app.processEvents()


def _save(widget: QWidget, path: Path) -> None:
    widget.grab().save(str(path))
    log.info("wrote %s", path)
    print(path)


def _key_problem(exc: Exception) -> str:
    """One sentence for the terminal: what the journal's key needs to open the screenshots' journal."""
    code = getattr(exc, "code", "")
    if code == "no_keyring":
        return (f"memoir-desktop --screenshot needs a passphrase for its journal, since no system keyring "
                f"is available here: set {crypto.ENV_PASSPHRASE} to one of {crypto.MIN_PASSPHRASE} or more "
                f"characters, or run it where a keyring is available.")
    if code == "too_short":
        return (f"{crypto.ENV_PASSPHRASE} is too short: a passphrase needs at least {crypto.MIN_PASSPHRASE} "
                f"characters.")
    return (f"The journal for the screenshots could not be opened: {exc} Set {crypto.ENV_PASSPHRASE} to its "
            f"passphrase or recovery key.")


def _connected_apps_shots(app: QApplication, backend, window, out_dir: Path, suggest) -> None:
    """Settings → Connected apps (the app and its calls), then the memory it suggested."""
    dialog = window.open_settings()
    dialog.show_page(dialog.apps_page)
    dialog.resize(max(dialog.width(), 760), 1000)  # the app, its log and the setup, unscrolled
    _settle(app, backend)
    _save(dialog, out_dir / "connected-apps.png")
    dialog.reject()

    suggest(backend.mem)
    window.tabs.setCurrentWidget(window.journal)
    window.memories.state_box.setCurrentIndex(window.memories.state_box.findData("active"))
    window.tabs.setCurrentWidget(window.memories)  # shown again: it looks for new suggestions
    _settle(app, backend)
    _save(window, out_dir / "app-suggestion.png")


# Long: one view after another, in the order README shows them.
def take_screenshots(app: QApplication, out_dir: Path, home: Path | None = None) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch = tempfile.TemporaryDirectory(prefix="memoir-shots-")
    try:
        mem = Memoir.open(home or Path(scratch.name) / "home")
    except crypto.KeyError_ as exc:
        # Headless, nobody can be asked for a passphrase: say what is needed, not a traceback.
        print(_key_problem(exc), file=sys.stderr)
        scratch.cleanup()
        return EXIT_NO_KEY
    lexical.warm_up()
    demo = not mem.journal.days()  # a journal of the user's own gets no made-up apps
    focus = seed_demo(mem) if demo else None
    if demo:
        seed_demo_app_calls(mem)
    backend = AsyncMemoir(mem)
    # Window state from a scratch file: screenshots neither read nor change the user's layout.
    ui_state = QSettings(str(Path(scratch.name) / "ui.ini"), QSettings.IniFormat)
    window = MainWindow(backend, ui_state=ui_state)
    window.resize(*WINDOW_SIZE)
    window.show()
    window.start()
    _settle(app, backend, drain=True)
    window.journal.show_today()
    _settle(app, backend)
    _settle(app, backend)  # the reflection cards arrive after the day
    _save(window, out_dir / "journal.png")

    letters = [e for e in window.journal.new_letters if e.get("source_ref", "").startswith("letter:week")] \
        or window.journal.new_letters
    if letters:
        dialog = window.journal.read_letter(letters[0])
        _settle(app, backend)
        _save(dialog, out_dir / "letter.png")
        dialog.close()

    window.tabs.setCurrentWidget(window.profile)
    _settle(app, backend)
    _save(window, out_dir / "profile.png")

    window.tabs.setCurrentWidget(window.memories)
    _settle(app, backend)
    window.memories.state_box.setCurrentIndex(window.memories.state_box.findData("all"))
    _settle(app, backend)
    _save(window, out_dir / "memories.png")

    memories = window.memories.memories
    if focus is None and memories:
        focus = max(memories, key=lambda m: (m.get("user_edited"), m.get("updated_at")))["id"]
    if focus is not None:
        target = next(m for m in memories if m["id"] == focus)
        dialog = window.memories.show_history(target)
        _settle(app, backend)
        _save(dialog, out_dir / "history.png")
        dialog.close()

    window.tabs.setCurrentWidget(window.stats)
    _settle(app, backend)
    _save(window, out_dir / "stats.png")

    dialog = window.open_diagnostics()
    _settle(app, backend)
    _save(dialog, out_dir / "diagnostics.png")
    dialog.close()

    window.tabs.setCurrentWidget(window.graph)
    _settle(app, backend)
    _save(window, out_dir / "graph.png")

    window.tabs.setCurrentWidget(window.journal)
    dialog = window.open_settings()
    _settle(app, backend)
    _save(dialog, out_dir / "settings.png")
    dialog.show_page(dialog.what_is_sent)  # Privacy: what leaves this computer
    dialog.resize(max(dialog.width(), 760), 980)  # the whole disclosure, unscrolled
    _settle(app, backend)
    _save(dialog, out_dir / "settings_privacy.png")
    dialog.reject()

    if demo:
        _connected_apps_shots(app, backend, window, out_dir, seed_demo_app_suggestion)

    window.close()
    backend.shutdown(10_000)
    mem.close()
    scratch.cleanup()
    return 0
