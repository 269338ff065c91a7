"""`AppLifecycle`: start-up (progress window → main window), language switch, restoring a
backup, shut-down.

Shut-down rule: stop taking jobs, give a running one a few seconds, then leave. A job cut
short stays a durable row in SQLite and resumes at the next start, so nothing is lost by
not waiting for a slow LLM.

Restore rule: the database can only be replaced while no `Memoir` has it open, so the journal
is closed first — the writer takes no new job, a job already running is waited for (its
result belongs to the journal being replaced) — then the backup is put in place off the UI
thread, and the journal is opened again exactly as at start (the start-up window, MemoirOpener).
Bringing a journal kept on another computer in place of this computer's empty one closes and opens
the same way (ui/sync/join_flow.py).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QCheckBox, QMessageBox

from memoir_desktop.core.archive import conversion
from memoir_desktop.core.archive.backup import restore_backup
from memoir_desktop.core.keys import crypto
from memoir_desktop.ui.async_memoir import AsyncMemoir
from memoir_desktop.ui.main_window import MainWindow
from memoir_desktop.ui.settings.privacy import PassphraseDialog
from memoir_desktop.ui.settings.settings_apply import remember
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.startup.app_lock import AppLock, passphrase_checker
from memoir_desktop.ui.startup.opening import MemoirOpener, StartupWindow
from memoir_desktop.ui.startup.single_instance import SingleInstance
from memoir_desktop.ui.sync.auto_sync import AutoSync
from memoir_desktop.ui.sync.join_flow import JoinFlow
from memoir_desktop.ui.tasks import TaskRunner

if TYPE_CHECKING:
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.main_window import MainWindow

# The main window and the engine behind it (qdrant-client, openai, the pages) take seconds to
# import; they are imported by the opener's worker while the start-up window is already up.

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_MS = 3_000
RESTORE_POLL_MS = 100  # how often a restore looks whether the last job has finished
RESTORE_SLOW_MS = 2_000  # after this, the start-up window says what the restore waits for


class AppLifecycle(QObject):
    def __init__(self, app: QApplication, home: Path, instance: SingleInstance | None = None):
        super().__init__(app)
        self.app = app
        self.home = home
        self.instance = instance
        self.backend: AsyncMemoir | None = None
        self.window: MainWindow | None = None
        self.startup = StartupWindow()
        self.restored: tuple[str, str] | None = None  # (backup, where the replaced journal was kept)
        self.restore_error: BaseException | None = None
        self._restoring: dict | None = None
        self._recovery_key: str | None = None  # made by a conversion, shown once the journal is open again
        self.app_lock = None
        self._make_opener()
        self.join_flow = JoinFlow(self)
        self.startup.skip.clicked.connect(lambda: self.opener.skip_download())
        if instance is not None:
            instance.activated.connect(self._raise)

    def _make_opener(self) -> None:
        # Opening, encrypting or restoring a journal writes before any writer exists: on a pool of its
        # own, so that the reads pool the screens use never writes (ui/ops.py).
        self.opening = TaskRunner(1, self)
        self.reads = TaskRunner(3, self)
        self.opener = MemoirOpener(self.home, self, reads=self.opening)
        self.opener.progress.connect(self.startup.set_step)
        self.opener.downloading.connect(self.startup.skip.setVisible)
        self.opener.ready.connect(self._ready)
        self.opener.failed.connect(self._failed)
        self.opener.locked.connect(self._ask_passphrase)

    def start(self) -> None:
        self.startup.show()
        self.opener.start()

    def _ready(self, mem) -> None:
        self.backend = AsyncMemoir(mem, self, reads=self.reads)
        self.join_flow.backend_ready(self.backend)
        self.window = self._make_window()
        in_tray = self.backend.settings.start_in_tray and self.window.reminders.available
        if in_tray:  # opt-in: the window waits in the tray (its menu opens it or quits)
            QApplication.setQuitOnLastWindowClosed(False)
        else:
            self.window.show()
        self.startup.close()
        self.window.start()
        if self.restored is not None:
            self.window.show_restored(*self.restored)
        elif self.restore_error is not None:
            self._say_restore_failed(self.restore_error)
        self.restore_error = None
        recovery = mem.keys.take_recovery_key() or self._recovery_key
        self._recovery_key = None
        if recovery:
            self.window.show_recovery_key(recovery)
        elif not mem.keys.encrypted and not mem.settings.encryption_offer_declined:
            self._offer_encryption()
        self.join_flow.window_ready(self.window)

    def reopen(self, passphrase: str | None = None) -> None:
        """The journal now in the home opened as at start (after a join brought one, or failed)."""
        self._restoring = None
        self.opener.passphrase = passphrase
        self.opener.start()

    # -- keys and the app lock ------------------------------------------------------------------

    def _ask_passphrase(self, code: str, creating: bool) -> None:
        """The journal needs a passphrase to open (or, new and without a keyring, to be made)."""
        reasons = {
            "no_keyring": self.tr("No system keyring is available on this computer to keep your journal's key, "
                                  "so your journal needs a passphrase. You will type it each time memoir starts."),
            "keyring_missing": self.tr("The system keyring does not hold this journal's key (another computer, or "
                                       "the keyring was reset). Enter the passphrase or the recovery key."),
            "locked": self.tr("memoir is locked. Enter your passphrase."),
            "passphrase_only": self.tr("This journal is opened with its passphrase."),
            "wrong": self.tr("That passphrase does not open this journal. Nothing was changed. Try again."),
            "too_short": self.tr("A passphrase needs at least 8 characters."),
        }
        if creating and code == "no_keyring":
            reason = reasons["no_keyring"]
        else:
            reason = reasons.get(code, reasons["passphrase_only"])
        self.startup.hide()
        # A new journal's first question: or is the journal already kept on another computer?
        dialog = PassphraseDialog(reason, creating=creating, offer_join=creating)
        self.passphrase_dialog = dialog  # tests answer it
        answer = dialog.exec()
        if answer == PassphraseDialog.JOIN:
            self.join_flow.ask(first_start=(code, creating))
            return
        if answer != PassphraseDialog.Accepted:
            self.app.exit(0)
            return
        self.startup.show()
        self.opener.passphrase = dialog.passphrase()
        self.opener.start()

    def _make_lock(self, window) -> None:
        mem = self.backend.mem
        minutes = mem.settings.lock_idle_minutes if mem.keys.encrypted and mem.keys.has_passphrase else 0
        self.app_lock = AppLock(window, passphrase_checker(self.backend), minutes)
        window.app_lock = self.app_lock
        self.backend.settings_changed.connect(lambda s: self.app_lock.set_minutes(
            s.lock_idle_minutes if self.backend.has_passphrase else 0) if self.app_lock else None)

    def _offer_encryption(self) -> None:
        """A plain journal from before: offered, once per start, to become an encrypted one."""
        box = QMessageBox(QMessageBox.Question, self.tr("Encrypt your journal?"),
                          self.tr("Your journal is stored unencrypted: anyone with access to this computer's "
                                  "files can read it. Encrypt it now? This takes a moment; your journal is kept "
                                  "as it is until the encrypted copy has been checked."),
                          QMessageBox.NoButton, self.window)
        encrypt = box.addButton(self.tr("Encrypt now"), QMessageBox.AcceptRole)
        box.addButton(self.tr("Not now"), QMessageBox.RejectRole)
        never = QCheckBox(self.tr("Do not ask again (File → Encrypt this journal stays)"))
        box.setCheckBox(never)
        box.setAttribute(Qt.WA_DeleteOnClose)

        def chosen(button) -> None:
            if button is encrypt:
                self.encrypt_journal()
            elif never.isChecked() and self.backend is not None:
                remember(self.backend, "encryption_offer_declined")

        box.buttonClicked.connect(chosen)
        self.window.last_message_box = box
        box.open()

    def encrypt_journal(self, passphrase: str | None = None) -> None:
        """Close the journal, convert it (resumable, verified), open it again encrypted."""
        if passphrase is None and not crypto.keyring_available():
            dialog = PassphraseDialog(self.tr("No system keyring is available on this computer to keep your "
                                              "journal's key, so your journal needs a passphrase."), creating=True,
                                      parent=self.window)
            if dialog.exec() != PassphraseDialog.Accepted:
                return
            passphrase = dialog.passphrase()
        self._begin_closing({"action": "encrypt", "passphrase": passphrase, "waited_ms": 0},
                            self.tr("Closing your journal to encrypt it…"))

    def _make_window(self):
        window = MainWindow(self.backend)
        window.language_changed.connect(self._switch_language)
        window.restore_requested.connect(self.restore_backup)
        window.encrypt_requested.connect(self.encrypt_journal)
        window.join_requested.connect(self.join_flow.ask)
        self._make_lock(window)
        return window

    # -- restoring a backup -----------------------------------------------------------------------

    def restore_backup(self, backup: str) -> None:
        """Close the journal, put `backup` in its place (the replaced file is kept), open it again."""
        self._begin_closing({"action": "restore", "backup": backup, "waited_ms": 0},
                            self.tr("Closing your journal to restore the backup…"))

    def _begin_closing(self, state: dict, message: str) -> None:
        if self._restoring is not None or self.backend is None:
            return
        # The backup of an encrypted journal opens with its key, whether the keyring or a typed
        # passphrase gave it: kept in memory until the backup is in place.
        state["data_key"] = self.backend.mem.keys.data_key
        self._restoring = state
        self.restored = self.restore_error = None
        self.startup.set_step(message, 0, 0)
        self.startup.skip.hide()
        self.startup.show()  # first, so that closing the main window does not end the app
        old, self.window = self.window, None
        if old is not None:
            old.save_state()
            old.rebuilding = True  # not the app closing
            old.close()
            old.deleteLater()
        self._close_journal()

    def _close_journal(self) -> None:
        """Stop the backend without blocking the UI: look again until its last job has finished."""
        state = self._restoring
        if not self.backend.shutdown(0):  # it can be asked again: it only stops and looks
            state["waited_ms"] += RESTORE_POLL_MS
            if state["waited_ms"] >= RESTORE_SLOW_MS:
                self.startup.set_step(state.get("waiting") or self.tr(
                    "Waiting for the memory being made to be finished, then the backup is restored…"), 0, 0)
            QTimer.singleShot(RESTORE_POLL_MS, self._close_journal)
            return
        old_backend, old_reads, old_opening = self.backend, self.reads, self.opening
        self.backend = None
        old_backend.mem.close()
        old_backend.deleteLater()
        old_reads.deleteLater()
        old_opening.deleteLater()
        self.opener.deleteLater()
        self._make_opener()
        if state["action"] == "join":
            self.join_flow.closed(state)
            return
        if state["action"] == "encrypt":
            self.startup.set_step(self.tr("Encrypting your journal…"), 0, 0)
            state.pop("data_key", None)
            passphrase = state.pop("passphrase", None)
            self.opening.submit(lambda: self._convert(passphrase), self._converted, self._restore_failed)
            return
        self.startup.set_step(self.tr("Restoring the backup…"), 0, 0)
        backup, data_key = state["backup"], state.pop("data_key", None)
        self.opening.submit(lambda: self._put_in_place(backup, data_key), self._restored, self._restore_failed)

    def _convert(self, passphrase: str | None):
        text = self.tr("Encrypting your journal…")
        return conversion.convert_to_encrypted(self.home, passphrase=passphrase,
                                          progress=lambda done, total: self.opener.progress.emit(text, done, total))

    def _converted(self, key) -> None:
        self._recovery_key = key.recovery_key
        self._restoring = None
        self.opener.passphrase = None
        self.opener.start()

    def _put_in_place(self, backup: str, data_key: bytes | None = None) -> str:
        return str(restore_backup(self.home, Path(backup), data_key))

    def _restored(self, kept: str) -> None:
        self.restored = (self._restoring["backup"], kept)
        self._restoring = None
        self.opener.start()

    def _restore_failed(self, exc: BaseException) -> None:
        # restore_backup checks the backup before it moves anything: the journal is as it was.
        log.warning("restore failed: %s", exc)
        self._restoring = None
        self.restore_error = exc
        self.opener.start()

    def _say_restore_failed(self, exc: BaseException) -> None:
        box = QMessageBox(QMessageBox.Warning, self.tr("The backup was not restored"),
                          self.tr("This backup could not be restored, so your journal is as it was. ({error})")
                          .format(error=exc), QMessageBox.Ok, self.window)
        box.setAttribute(Qt.WA_DeleteOnClose)
        self.window.last_message_box = box
        box.open()

    def _switch_language(self, language: str) -> None:
        """Rebuild the window in the new language (every string is set at construction)."""
        i18n.install(language)
        old = self.window
        old.save_state()
        self.window = self._make_window()
        self.window.show()
        old.rebuilding = True
        old.close()
        old.deleteLater()
        self.window.show_current()
        self.backend.check_llm()

    def _failed(self, message: str) -> None:
        self.startup.close()
        box = QMessageBox(QMessageBox.Critical, "memoir",
                          self.tr("The journal could not be opened.\n\n{error}\n\nData folder: {home}").format(
                              error=message, home=self.home))
        box.exec()
        self.app.exit(1)

    def _raise(self) -> None:
        if self.window is not None:
            self.window.raise_window()
        else:
            self.startup.raise_()
            self.startup.activateWindow()

    def shutdown(self) -> bool:
        """True when everything stopped cleanly; False when a task is still running."""
        if self.instance is not None:
            self.instance.release()
        if self.backend is None:
            return True

        grace = SHUTDOWN_GRACE_MS
        sync = AutoSync.find(self.backend)
        if sync is not None and sync.at_quit():  # a short last round, bounded: the next start does the rest
            grace = max(grace, sync.AT_QUIT_MS)
        clean = self.backend.shutdown(grace)
        if clean:
            self.backend.mem.close()
        else:
            log.info("a background task is still running; its job resumes at the next start")
        return clean
