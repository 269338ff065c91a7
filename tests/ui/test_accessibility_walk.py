"""Every hand and eye (issue 44): the walk of tests/ui/a11y_walk.py over every page and dialog of the
app, in both themes and both languages, on a demo journal (entries and replies, a letter, a follow-up,
On This Day, memories forgotten and protected, a suggestion from another app, an entry in the trash).

Each test is one page or dialog in one language and theme; it runs every check and fails with the
problems found. The table of pages × checks is printed at the end of the run (conftest.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from tests.ui import a11y_walk

COMBOS = [("ko", "light"), ("ko", "dark"), ("en", "light"), ("en", "dark")]
RESULTS: dict[str, dict[str, list[str]]] = {}  # "ko/dark journal" -> check -> problems


@dataclass
class World:
    window: object
    backend: object
    mem: object
    lang: str
    theme: str


def _idle(backend, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline and quiet < 4:
        QApplication.processEvents()
        time.sleep(0.02)
        quiet = quiet + 1 if backend.idle else 0


@pytest.fixture(scope="module", params=COMBOS, ids=[f"{lang}-{theme}" for lang, theme in COMBOS])
def world(request, qapp, tmp_path_factory):
    from memoir_desktop.core import Memoir, lexical
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.checks.demo import seed_demo, seed_demo_app_suggestion
    from memoir_desktop.ui.main_window import MainWindow
    from memoir_desktop.ui.shared import i18n
    from memoir_desktop.ui.shared.theme import apply_theme

    lang, theme = request.param
    i18n.install(lang)
    apply_theme(qapp, theme)
    home: Path = tmp_path_factory.mktemp(f"a11y-{lang}-{theme}")
    mem = Memoir.open(home / "home", llm_base_url=None)
    lexical.warm_up()
    seed_demo(mem)
    seed_demo_app_suggestion(mem)
    old = mem.journal.entries(day=date.today() - timedelta(days=16))
    if old:
        mem.journal.trash(old[0]["id"])
    backend = AsyncMemoir(mem)
    window = MainWindow(backend, ui_state=QSettings(str(home / "ui.ini"), QSettings.IniFormat))
    window.resize(1100, 720)
    window.show()
    window.start()
    _idle(backend)
    yield World(window, backend, mem, lang, theme)
    for dialog in window.findChildren(QDialog):
        dialog.close()
    window.close()
    backend.shutdown(10_000)
    mem.close()
    window.deleteLater()
    QApplication.processEvents()
    i18n.install("ko")
    apply_theme(qapp, "light")


# -- the pages and dialogs ---------------------------------------------------------------------------


def _page(key):
    def open_(w: World) -> QWidget:
        page = w.window.pages[key]
        w.window.tabs.setCurrentWidget(page)
        if key == "journal":
            w.window.journal.show_today()
        if key == "search":
            page.field.setText("지수" if w.lang == "ko" else "한강")
            page.search_now()
        if key == "memories":
            page.state_box.setCurrentIndex(page.state_box.findData("all"))
        _idle(w.backend)
        _idle(w.backend)  # the reflection cards come after the day
        return w.window
    return open_


def _journal_editing(w: World) -> QWidget:
    _page("journal")(w)
    bubble = next(b for b in w.window.journal.chat.bubbles if b.role == "user" and b.entry_id)
    bubble.start_edit()
    a11y_walk.settle()
    return w.window


def _stop_editing(w: World) -> None:
    for bubble in w.window.journal.chat.bubbles:
        bubble.cancel_edit()


def _trash(w: World) -> QWidget:
    w.window.show_trash()
    _idle(w.backend)
    return w.window


def _locked(w: World) -> QWidget:
    from memoir_desktop.ui.startup.app_lock import AppLock

    _page("journal")(w)
    lock = AppLock(w.window, lambda _secret, done: done(True))
    w.window.app_lock = lock
    lock.lock()
    a11y_walk.settle()
    return w.window


def _unlock(w: World) -> None:
    lock = w.window.app_lock
    lock._checked(True)
    lock.release()
    w.window.app_lock = None


def _first_memory(w: World) -> dict:
    return next(m for m in w.mem.get_all()["results"] if m.get("user_edited")) or w.mem.get_all()["results"][0]


def _user_bubble(w: World):
    _page("journal")(w)
    return next(b for b in w.window.journal.chat.bubbles if b.role == "user" and b.entry_id)


def _dialog(make):
    def open_(w: World) -> QWidget:
        dialog = make(w)
        dialog.show()
        dialog.activateWindow()
        _idle(w.backend)
        return dialog
    return open_


def _settings_tab(i: int):
    def make(w: World):
        dialog = w.window.open_settings()
        dialog.pages.setCurrentIndex(i)
        return dialog
    return make


def _purge(w: World):
    entry = w.mem.journal.in_trash()[0]
    return w.window.journal._ask_purge(entry, w.mem.journal.purge_preview(entry["id"]))


def _letter(w: World):
    _page("journal")(w)
    return w.window.journal.read_letter(w.window.journal.new_letters[0])


def _passphrase(w: World):
    from memoir_desktop.ui.settings.privacy import PassphraseDialog

    dialog = PassphraseDialog("Choose a passphrase", creating=True, offer_join=True, parent=w.window)
    dialog.open()
    return dialog


def _join(w: World):
    from memoir_desktop.ui.sync.join_dialog import JoinDialog

    dialog = JoinDialog(parent=w.window)
    dialog.open()
    return dialog


SETTINGS_TABS = ["ai", "memory", "search", "appearance", "privacy", "sync", "apps"]

SURFACES = {
    "journal": (_page("journal"), None),
    "journal, an entry edited": (_journal_editing, _stop_editing),
    "trash": (_trash, None),
    "search": (_page("search"), None),
    "memories": (_page("memories"), None),
    "about you": (_page("profile"), None),
    "stats": (_page("stats"), None),
    "graph": (_page("graph"), None),
    "locked": (_locked, _unlock),
    "add a memory": (_dialog(lambda w: w.window.memories.add()), None),
    "edit a memory": (_dialog(lambda w: w.window.memories.edit(_first_memory(w))), None),
    "memory history": (_dialog(lambda w: w.window.memories.show_history(_first_memory(w))), None),
    "tidy up": (_dialog(lambda w: w.window.memories.tidy()), None),
    "change date": (_dialog(lambda w: w.window.journal.move_entry(_user_bubble(w))), None),
    "entry history": (_dialog(lambda w: w.window.journal.entry_history(_user_bubble(w))), None),
    "delete forever": (_dialog(_purge), None),
    "letter": (_dialog(_letter), None),
    **{f"settings: {tab}": (_dialog(_settings_tab(i)), None) for i, tab in enumerate(SETTINGS_TABS)},
    "export": (_dialog(lambda w: w.window.export()), None),
    "import": (_dialog(lambda w: w.window.import_file()), None),
    "restore a backup": (_dialog(lambda w: w.window.restore_backup()), None),
    "diagnostics": (_dialog(lambda w: w.window.open_diagnostics()), None),
    "passphrase": (_dialog(_passphrase), None),
    "recovery key": (_dialog(lambda w: w.window.show_recovery_key("ABCD-EFGH-IJKL-MNOP-QRST")), None),
    "join": (_dialog(_join), None),
}


@pytest.mark.parametrize("surface", list(SURFACES))
def test_walk(world, surface):
    open_, close = SURFACES[surface]
    root = open_(world)
    try:
        found = a11y_walk.walk(root)
    finally:
        if close is not None:
            close(world)
        if isinstance(root, QDialog):
            root.reject()
            root.close()
        a11y_walk.settle()
    RESULTS[f"{world.lang}/{world.theme} {surface}"] = found
    problems = [f"[{check}] {p}" for check, ps in found.items() for p in ps]
    if problems:
        pytest.fail(f"{len(problems)} problems on {surface}:\n" + "\n".join(problems), pytrace=False)


# -- colours: from the theme, and readable there -------------------------------------------------------

UI = Path(__file__).resolve().parents[2] / "memoir_desktop" / "ui"
_COLOUR = __import__("re").compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|color:\s*(?:gray|grey|white|black|red)\b"
                                   r"|QColor\(\s*[\"'](?!#)[a-z]+[\"']\)")


def test_colours_come_from_the_theme_never_from_a_widget():
    """Every colour lives in the theme (ui/shared/theme.py), where both themes' contrast is checked: one
    written into a widget is the same in the light and the dark theme (the history's greys, the
    search marks, the chart series)."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        if path.name == "theme.py":
            continue
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if _COLOUR.search(line.split("#  ")[0]) and not line.lstrip().startswith("#"):
                found.append(f"{path.relative_to(UI)}:{n}: {line.strip()}")
    assert found == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_palette_reads_at_wcag_aa(qapp, theme):
    """The theme's own pairs, before any widget: text on its ground at 4.5:1, placeholders included."""
    from PySide6.QtGui import QPalette

    from memoir_desktop.ui.shared.theme import apply_theme

    apply_theme(qapp, theme)
    try:
        p = qapp.palette()
        pairs = {"text on the page": (QPalette.WindowText, QPalette.Window),
                 "text in a field": (QPalette.Text, QPalette.Base),
                 "a placeholder": (QPalette.PlaceholderText, QPalette.Base),
                 "a button's words": (QPalette.ButtonText, QPalette.Button),
                 "selected words": (QPalette.HighlightedText, QPalette.Highlight),
                 "a link": (QPalette.Link, QPalette.Base),
                 "a tooltip": (QPalette.ToolTipText, QPalette.ToolTipBase)}
        low = {what: round(a11y_walk.contrast_ratio(p.color(fg), p.color(bg)), 2)
               for what, (fg, bg) in pairs.items()
               if a11y_walk.contrast_ratio(p.color(fg), p.color(bg)) < a11y_walk.TEXT_AA}
        assert low == {}
    finally:
        apply_theme(qapp, "light")
