"""`JoinFlow`: a journal kept on another computer, brought to this one from the app. A helper of
AppLifecycle (ui/startup/lifecycle.py), which owns opening and closing the journal.

1. JoinDialog asks for the place and the passphrase; the place's key is unlocked on the `opening` pool
   (core/sync: open_place). Nothing is written anywhere, so a wrong passphrase, a place with nothing kept
   there yet, a refused login or no network is said in the dialog, which stays open to try again.
2. The key opened: the dialog closes, and this computer's journal (empty: the welcome panel and Settings →
   Sync offer this only then) is closed as a restore closes it, behind the start-up window.
3. On the `opening` pool, never the reads pool (it writes): the empty journal is set aside, the journal
   made here from the place, its first round run with its progress in the start-up window
   (core/sync/joining.py). A journal with any entry or memory is refused there, before anything moves.
4. The joined journal opens as at start: with the keyring's key where there is one, else with the
   passphrase just typed (later starts ask for it, as for any journal without a keyring). Its address was
   saved by its first round, so AutoSync goes on; a WebDAV login goes to the keyring (or this session).
   If anything failed, the empty journal is back as it was and reopened, and a message says what failed.
"""

from __future__ import annotations

import logging

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox

from memoir_desktop.core import Memoir
from memoir_desktop.core.keys import secrets
from memoir_desktop.core.sync import joining
from memoir_desktop.core.sync.engine import open_place
from memoir_desktop.ui.sync import words
from memoir_desktop.ui.sync.address import kind_of
from memoir_desktop.ui.sync.auto_sync import AutoSync
from memoir_desktop.ui.sync.join_dialog import JoinDialog

log = logging.getLogger(__name__)

MESSAGE_MS = 15_000


class JoinFlow(QObject):
    progress = Signal(str, int, int)  # a join's stage, done, total (from the pool: queued to the UI thread)

    def __init__(self, lifecycle):
        super().__init__(lifecycle)
        self.life = lifecycle
        self.dialog: JoinDialog | None = None
        self.failure: BaseException | None = None  # why the last join failed: said once the journal is open
        self._failure_kind = ""
        self._joined_url: str | None = None
        self._session_login: tuple[str, tuple[str, str]] | None = None  # where no keyring keeps a WebDAV login
        self._first_start: tuple[str, bool] | None = None  # the passphrase question the first start left for this
        self.progress.connect(self._show_progress)

    # -- 1. the dialog ------------------------------------------------------------------------------

    def ask(self, url: str = "", login: tuple[str, str] | None = None, *, first_start: tuple[str, bool] | None = None,
            failure: BaseException | None = None) -> JoinDialog:
        """The dialog, prefilled with `url` (and a WebDAV login). `first_start`: the new journal's passphrase
        question (code, creating), asked again if the dialog is cancelled."""
        if self.dialog is not None and shiboken6.isValid(self.dialog) and self.dialog.isVisible():
            self.dialog.raise_()
            return self.dialog
        self._first_start = first_start
        dialog = JoinDialog(url, login, self.life.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.bring_requested.connect(self._look)
        if first_start is not None:
            dialog.rejected.connect(lambda: self.life._ask_passphrase(*first_start))
        if failure is not None:
            dialog.show_failure(failure)
        self.dialog = dialog
        dialog.open()  # window-modal: no entry is written into the journal about to be replaced meanwhile
        return dialog

    def _look(self) -> None:
        dialog = self.dialog
        target, passphrase = dialog.target(), dialog.passphrase()
        url, login = dialog.place.url(), dialog.place.typed_login()

        def opened(key) -> None:
            if not dialog.isVisible():
                return  # cancelled while looking
            dialog.finish()
            self._bring(key, url, login)

        self.life.opening.submit(lambda: open_place(target, passphrase), opened, dialog.show_failure)

    # -- 2. closing this computer's journal ---------------------------------------------------------

    def _bring(self, opened, url: str, login: tuple[str, str] | None) -> None:
        life = self.life
        state = {"action": "join", "opened": opened, "url": url, "login": login, "waited_ms": 0,
                 "had_journal": life.backend is not None,
                 "waiting": self.tr("Waiting for the memory being made to be finished, then your journal is "
                                    "brought here…")}
        if life.backend is None:  # a first start without a keyring: no journal was made yet
            life.startup.show()
            self.closed(state)
            return
        life._begin_closing(state, self.tr("Closing this computer's empty journal…"))

    # -- 3. bringing it here ------------------------------------------------------------------------

    def closed(self, state: dict) -> None:
        """No journal is open now (AppLifecycle._close_journal): the join runs on the `opening` pool."""
        life = self.life
        life.startup.set_step(words.join_progress("look", 0, 0), 0, 0)
        opened, login, url = state["opened"], state["login"], state["url"]
        data_key = state.pop("data_key", None)  # the empty journal's: to check that it is empty

        def work() -> tuple[bool, bool]:
            mem = joining.join_here(Memoir, life.home, opened, data_key=data_key, progress=self.progress.emit,
                                    reconcile=False)  # the start-up opens it again, with the index's progress
            try:
                keyring_keeps_key = mem.keys.keyring_keeps_key
            finally:
                mem.close()
            login_kept = secrets.set_sync_login(url, *login) if login else True
            return keyring_keeps_key, login_kept

        life.opening.submit(work, lambda kept: self._joined(state, *kept), lambda exc: self._failed(state, exc))

    def _show_progress(self, stage: str, done: int, total: int) -> None:
        self.life.startup.set_step(words.join_progress(stage, done, total), done, total)

    def _joined(self, state: dict, keyring_keeps_key: bool, login_kept: bool) -> None:
        self._joined_url = state["url"]
        if state["login"] and not login_kept:
            self._session_login = (state["url"], state["login"])
        self.life.reopen(None if keyring_keeps_key else state["opened"].passphrase)

    def _failed(self, state: dict, exc: BaseException) -> None:
        log.info("the journal was not brought here: %s", getattr(exc, "code", "unexpected"))
        if state["had_journal"]:
            self.failure, self._failure_kind = exc, kind_of(state["url"])
            self.life.reopen(None)  # the empty journal, back where it was
            return
        self.life.startup.hide()  # nothing to reopen: the dialog again, saying what failed
        self.ask(state["url"], state["login"], first_start=self._first_start, failure=exc)

    # -- 4. open again ----------------------------------------------------------------------------------

    def backend_ready(self, backend) -> None:
        """Before the window starts its first round: a login kept only for this session goes to AutoSync."""
        if self._session_login is not None:
            url, login = self._session_login
            AutoSync.of(backend).session_logins[url] = login
            self._session_login = None

    def window_ready(self, window) -> None:
        """Say how it went: the journal's latest day and a line in the status bar, or what failed."""
        if self._joined_url is not None:
            self._joined_url = None
            window.journal.show_latest_day()
            window.status.showMessage(self.tr("Your journal is here. It stays in step with your other computers."),
                                      MESSAGE_MS)
        elif self.failure is not None:
            exc, self.failure = self.failure, None
            box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Your journal was not brought here"),
                              words.join_failure(exc, self._failure_kind),
                              QMessageBox.StandardButton.Ok, window)
            box.setInformativeText(self.tr("This computer's journal is as it was."))
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            window.last_message_box = box
            box.open()
