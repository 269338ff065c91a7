"""`MainWindow`: the tabs (Journal, Search, Memories, About you, Stats, Graph), menus, shortcuts and status bar.

Only UI state (geometry, splitter, last tab) goes to QSettings; everything else is the core's.
Search is a tab of its own, next to the journal (as in Day One and Apple Journal): its results
stay while you open a day from them and come back for the next one.
"""

from __future__ import annotations

from datetime import date
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMainWindow, QMessageBox, QTabWidget

from memoir_desktop.ui.checks.diagnostics_dialog import DiagnosticsDialog
from memoir_desktop.ui.files.file_dialogs import (
    BatchProgressPanel,
    ExportDialog,
    ImportDialog,
    RestoreBackupDialog,
    backup_time,
    show_in_folder,
    when_text,
)
from memoir_desktop.ui.graph.graph_page import GraphPage
from memoir_desktop.ui.journal import turns
from memoir_desktop.ui.journal.journal_page import JournalPage
from memoir_desktop.ui.memories.memory_card_list import MemoryCardList
from memoir_desktop.ui.reflection.profile_page import ProfilePage
from memoir_desktop.ui.reflection.stats_page import StatsPage
from memoir_desktop.ui.search.search_page import SearchPage
from memoir_desktop.ui.settings.privacy import PassphraseDialog, RecoveryKeyDialog, disclosure_text
from memoir_desktop.ui.settings.reminders import ReminderTray
from memoir_desktop.ui.settings.settings_apply import remember
from memoir_desktop.ui.settings.settings_dialog import open_settings_dialog
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.shared.a11y import KeyboardActivation, announce, focus_stop, next_stop
from memoir_desktop.ui.shared.folders import in_documents
from memoir_desktop.ui.shared.qt_compat import listen
from memoir_desktop.ui.shared.reasons import reason
from memoir_desktop.ui.shared.resources import icon
from memoir_desktop.ui.shared.theme import apply_theme
from memoir_desktop.ui.status_bar import MemoirStatusBar
from memoir_desktop.ui.sync.auto_sync import AutoSync
from memoir_desktop.ui.sync.status_label import SyncStatusLabel
from memoir_desktop.viewmodels.day import source_day

STATUS_REFRESH_MS = 5_000
ERROR_SHOWN_MS = 60_000  # long enough to read it twice, also at a screen reader's pace
LEGACY_TABS = ("journal", "memories", "stats", "graph")  # "window/tab" indexes saved before Search came


class MainWindow(QMainWindow):
    language_changed = Signal(str)  # the app rebuilds the window in the new language
    restore_requested = Signal(str)  # a backup to restore: the app closes the journal, restores, reopens
    encrypt_requested = Signal()  # a plain journal to encrypt: the app closes it, converts, reopens
    # (place, WebDAV login or None): bring the journal kept there in place of this empty one (JoinFlow)
    join_requested = Signal(str, object)
    closing = Signal()

    def __init__(self, backend, ui_state: QSettings | None = None, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.ui_state = ui_state if ui_state is not None else QSettings()
        self.last_message_box: QMessageBox | None = None
        self.settings_dialog = None
        self.file_dialog = None  # the export / import / restore dialog last opened
        self.batch_panels: list[BatchProgressPanel] = []
        self.rebuilding = False  # True while replaced by a window in another language
        self.app_lock = None  # set by the app (ui/startup/app_lock.py AppLock)
        self._fitted = False
        self.setWindowTitle("memoir")
        self.setWindowIcon(icon("memoir"))
        self.resize(1200, 780)

        self.journal = JournalPage(backend)
        self.search = SearchPage(backend)
        self.memories = MemoryCardList(backend)
        self.profile = ProfilePage(backend)
        self.stats = StatsPage(backend)
        self.graph = GraphPage(backend)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        # Keys name the pages in the saved UI state, so a tab added later does not shift the one restored.
        self.pages = {"journal": self.journal, "search": self.search, "memories": self.memories,
                      "profile": self.profile, "stats": self.stats, "graph": self.graph}
        for page, title in ((self.journal, self.tr("Journal")), (self.search, self.tr("Search")),
                            (self.memories, self.tr("Memories")), (self.profile, self.tr("About you")),
                            (self.stats, self.tr("Stats")), (self.graph, self.tr("Graph"))):
            self.tabs.addTab(page, title)
        self.setCentralWidget(self.tabs)
        self.status = MemoirStatusBar()
        self.setStatusBar(self.status)
        self.sync = AutoSync.of(backend)  # the backend's: a window rebuilt in another language shares it
        self.sync_label = SyncStatusLabel(self.sync, self.status)
        self.sync_label.clicked.connect(self.open_sync_settings)
        self.status.addPermanentWidget(self.sync_label)
        self.sync.status_known.connect(self._sync_status)
        self.sync.received.connect(self._synced_in)
        self._build_menus()
        self.reminders = ReminderTray(backend, self)
        self.reminders.open_requested.connect(self.raise_window)
        self.reminders.write_requested.connect(lambda: (self.raise_window(), self.go_today()))
        self.reminders.quit_requested.connect(self.quit_from_tray)
        self.reminders.reminded.connect(lambda text: self.status.showMessage(text, 60_000))

        self.journal.open_settings.connect(self.open_settings)
        self.journal.join_requested.connect(lambda: self.join_requested.emit("", None))
        self.memories.open_settings.connect(self.open_settings)
        self.graph.open_settings.connect(self.open_settings)
        self.memories.open_source.connect(self.open_source)
        self.search.open_entry.connect(self.open_entry)
        self.search.open_memory.connect(self.open_memory)
        self.graph.openEntryRequested.connect(lambda eid: self.open_source({"source_entry_id": eid}))
        backend.pending_changed.connect(self._pending)
        listen(backend.changed, self, lambda changes: self.backend.refresh_status() if changes.entries else None)
        backend.llm_reachable_changed.connect(self._llm_state)
        backend.status_changed.connect(self._status)
        backend.error.connect(self.show_error)
        listen(backend.job_finished, self, lambda _job: self.backend.refresh_status())
        self._status_timer = QTimer(self)
        self._status_timer.setInterval(STATUS_REFRESH_MS)
        self._status_timer.timeout.connect(backend.refresh_status)
        KeyboardActivation.install(QApplication.instance())
        self._restore_state()

    # -- setup ------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        self.today_action = self._action(self.tr("&Today"), "Ctrl+N", self.go_today)
        self.today_action.setIcon(icon("today"))
        self.import_action = self._action(self.tr("&Import…"), None, self.import_file)
        self.export_action = self._action(self.tr("&Export…"), "Ctrl+Shift+E", self.export)
        # `triggered(bool)` would land in `path` (and skip the file chooser): the menu passes nothing.
        self.export_encrypted_action = self._action(self.tr("Export e&ncrypted…"), None,
                                                    lambda _checked=False: self.export_encrypted())
        self.encrypt_action = self._action(self.tr("Encrypt this &journal…"), None, self.encrypt_requested.emit)
        self.encrypt_action.setVisible(not self.backend.encrypted)
        self.lock_action = self._action(self.tr("&Lock now"), "Ctrl+L", self.lock_now)
        self.lock_action.setVisible(self.backend.encrypted and self.backend.has_passphrase)
        self.backend.settings_changed.connect(self._show_lock_action)  # a method: gone with this window
        self.backend.index_progress.connect(self._index_progress)
        self.backend.switch_failed.connect(self._switch_failed)
        self.backup_action = self._action(self.tr("&Back up now"), None, self.backup_now)
        self.restore_action = self._action(self.tr("&Restore a backup…"), None, self.restore_backup)
        self.data_folder_action = self._action(self.tr("Open &data folder"), None, self.open_data_folder)
        self.settings_action = self._action(self.tr("&Settings…"), "Ctrl+,", self.open_settings)
        self.settings_action.setMenuRole(QAction.PreferencesRole)
        self.settings_action.setIcon(icon("settings"))
        quit_action = self._action(self.tr("&Quit"), QKeySequence.Quit, self.close)
        quit_action.setMenuRole(QAction.QuitRole)
        for group in ((self.today_action,), (self.import_action, self.export_action, self.export_encrypted_action),
                      (self.backup_action, self.restore_action, self.data_folder_action),
                      (self.encrypt_action, self.lock_action, self.settings_action), (quit_action,)):
            if file_menu.actions():
                file_menu.addSeparator()
            for action in group:
                file_menu.addAction(action)
        edit_menu = self.menuBar().addMenu(self.tr("&Edit"))
        self.find_action = self._action(self.tr("&Find…"), QKeySequence.Find, self.find)
        edit_menu.addAction(self.find_action)
        view_menu = self.menuBar().addMenu(self.tr("&View"))
        self.view_actions: list[QAction] = []
        for i in range(self.tabs.count()):
            # `triggered` passes `checked`: the slot takes it first, so it cannot land in `i`.
            action = self._action(self.tabs.tabText(i), f"Ctrl+{i + 1}",
                                  lambda _checked=False, i=i: self.tabs.setCurrentIndex(i))
            view_menu.addAction(action)
            self.view_actions.append(action)
        view_menu.addSeparator()
        self.trash_action = self._action(self.tr("T&rash"), None, self.show_trash)
        view_menu.addAction(self.trash_action)
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        self.diagnostics_action = self._action(self.tr("&Diagnostics…"), None, self.open_diagnostics)
        help_menu.addAction(self.diagnostics_action)
        help_menu.addAction(self._action(self.tr("&About memoir"), None, self.about))

    def _action(self, text: str, shortcut, slot) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ApplicationShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def start(self) -> None:
        """Show today's page and start the background writer (the core must be ready)."""
        self.show_current()
        self.backend.start()
        self.sync.start()
        self.reminders.apply_settings()
        # The letters of the weeks and months that ended since the last start.
        turns.make_letters(self.backend, lambda made: self.journal.load_reflection() if made else None)

    def show_current(self) -> None:
        """Load today's page and the status (also for a window rebuilt in another language)."""
        self.journal.show_today()
        self.journal.refresh_days()
        self.status.set_llm(None, self.backend.llm_configured, self.backend.settings.llm_model)
        self.backend.refresh_status()
        self._status_timer.start()

    # -- keyboard ----------------------------------------------------------------------------------

    def focusNextPrevChild(self, forward: bool) -> bool:
        """Tab in reading order (ui/shared/a11y.py): a card shown above the entries is reached before them,
        not after everything else because it was made later."""
        stop = next_stop(self, forward)
        if stop is None:
            return super().focusNextPrevChild(forward)
        focus_stop(stop, forward)
        return True

    def show_error(self, message: str) -> None:
        """An error from the background: said in the status bar for a minute, and to a screen reader now."""
        self.status.showMessage(message, ERROR_SHOWN_MS)
        announce(self.status, message, assertive=True)

    # -- actions -------------------------------------------------------------------------------

    def show_trash(self) -> None:
        """The entries in the trash (restore, or delete forever)."""
        self.tabs.setCurrentWidget(self.journal)
        self.journal.show_trash()

    def go_today(self) -> None:
        self.tabs.setCurrentWidget(self.journal)
        self.journal.show_today()

    def find(self) -> None:
        """Edit → Find (Ctrl+F): the one search, over the journal and the memories."""
        self.tabs.setCurrentWidget(self.search)
        self.search.focus_search()

    def open_entry(self, day, entry_id: int) -> None:
        def found(entry: dict) -> None:
            if entry.get("kind") == "letter":  # a letter found by search opens as a letter
                self.journal.read_letter(entry)
                return
            self.tabs.setCurrentWidget(self.journal)
            self.journal.show_entry(day, entry_id)

        self.backend.read(lambda m: m.journal.entry(entry_id), found)

    def open_memory(self, memory: dict) -> None:
        self.tabs.setCurrentWidget(self.memories)
        self.memories.show_memory(memory)

    # -- files ---------------------------------------------------------------------------------

    def export(self) -> ExportDialog:
        return self._open_dialog(ExportDialog(self.backend, self))

    def export_encrypted(self, path: str | None = None, passphrase: str | None = None) -> None:
        """The whole journal as one file only its passphrase opens (on any computer)."""
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Export encrypted"),
                                                  in_documents(f"memoir-{date.today().isoformat()}.memoir"))
            if not path:
                return
        if passphrase is None:
            dialog = PassphraseDialog(self.tr("Choose a passphrase for this file. Only it opens the file, on "
                                              "this computer or another; it is not kept anywhere."),
                                      creating=True, parent=self)
            if dialog.exec() != PassphraseDialog.Accepted:
                return
            passphrase = dialog.passphrase()
        self.status.show_busy(True, self.tr("Exporting…"))
        self.backend.read(
            lambda m: m.archive.export(path, passphrase=passphrase), lambda _counts: self.status.show_busy(False, self.tr("Encrypted export written: {name}")
                                                        .format(name=Path(path).name)),
            lambda exc: self.status.show_busy(False, self.tr("The export failed: {error}").format(
                error=reason(exc))))

    def _index_progress(self, done: int, total: int) -> None:
        self.status.show_progress(done, total, self.tr("Preparing search with the new model… {done} of {total} "
                                                       "(search works as before meanwhile)")
                                  .format(done=f"{done:,}", total=f"{total:,}") if done < total else
                                  self.tr("Search now uses the new model."))

    def _switch_failed(self, why: str) -> None:
        self.status.show_busy(False, self.tr("The new search model could not be used ({why}); search keeps the "
                                             "current one.").format(why=why))

    def _show_lock_action(self, _settings=None) -> None:
        self.lock_action.setVisible(self.backend.encrypted and self.backend.has_passphrase)

    def lock_now(self) -> None:
        if self.app_lock is not None:
            self.app_lock.lock()

    def show_recovery_key(self, key: str):
        """The recovery key of a journal just made or converted, shown once."""
        dialog = RecoveryKeyDialog(key, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.recovery_dialog = dialog
        dialog.open()
        return dialog

    def import_file(self) -> ImportDialog:
        dialog = ImportDialog(self.backend, self)
        dialog.batch_started.connect(self.follow_batch)
        return self._open_dialog(dialog)

    def follow_batch(self, batch: str, total: int) -> BatchProgressPanel:
        """The memories of an import being made, followed in the status bar (it may take hours)."""
        panel = BatchProgressPanel(self.backend, batch, total)
        self.batch_panels = [p for p in self.batch_panels if not p.isHidden()]
        self.batch_panels.append(panel)
        self.status.add_panel(panel)
        return panel

    def backup_now(self) -> None:
        self.status.show_busy(True, self.tr("Backing up your journal…"))

        def done(path: str) -> None:
            self.status.show_busy(False, self.tr("Backed up: {name}, in the backups of the data folder.")
                                  .format(name=Path(path).name))

        def failed(exc: BaseException) -> None:
            self.status.show_busy(False, self.tr("The backup could not be made: {error}").format(error=exc))

        self.backend.change(lambda m: m.archive.backup_now(), done, failed)

    def restore_backup(self) -> RestoreBackupDialog:
        dialog = RestoreBackupDialog(self.backend, self)
        dialog.restore_chosen.connect(self.restore_requested)
        return self._open_dialog(dialog)

    def show_restored(self, backup: str, kept: str) -> QMessageBox:
        """After a restore (the app reopened the journal): say what happened and where the old one is."""
        box = QMessageBox(QMessageBox.Information, self.tr("Backup restored"),
                          self.tr("Your journal is back as it was on {date}.").format(
                              date=when_text(backup_time(backup)) or Path(backup).name), QMessageBox.Ok, self)
        box.setInformativeText(self.tr("The journal it replaced is kept, not deleted: {path}").format(path=kept))
        box.setAttribute(Qt.WA_DeleteOnClose)
        self.last_message_box = box
        box.open()
        self.status.showMessage(self.tr("Backup restored. The journal it replaced is kept in the data folder."),
                                15_000)
        return box

    def open_data_folder(self) -> QMessageBox | None:
        box = show_in_folder(Path(self.backend.home), self, self.tr(
            "memoir could not open a folder window on this computer. Your journal is kept in this folder:"))
        if box is not None:
            self.last_message_box = box
        return box

    def _open_dialog(self, dialog):
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def open_diagnostics(self) -> DiagnosticsDialog:
        """Help → Diagnostics: the memory engine's timings and tokens."""
        dialog = DiagnosticsDialog(self.backend, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.file_dialog = dialog
        dialog.show()
        dialog.reload()
        return dialog

    def open_settings(self):
        self.settings_dialog = open_settings_dialog(self, self.backend, self._settings_saved)
        self.settings_dialog.sync_page.join_requested.connect(self._join_from_settings)
        return self.settings_dialog

    def _join_from_settings(self, url: str, login) -> None:
        """Settings → Sync found this empty journal's place holds the diarist's journal: Settings closes
        (the journal it edits is about to be replaced) and the join dialog opens on that place."""
        if self.settings_dialog is not None:
            self.settings_dialog.reject()
        self.join_requested.emit(url, login)

    def open_sync_settings(self):
        """Settings → Sync (the status bar's sync state was clicked)."""
        dialog = self.open_settings()
        dialog.show_page(dialog.sync_page)
        return dialog

    def _sync_status(self, status) -> None:
        self.journal.set_sync_notices(status.notices)

    def _synced_in(self, report) -> None:
        """Changes came from another computer. A round does not say which rows it changed, so what lists
        entries and memories reloads (each page when it is next on screen). The journal's AI settings,
        taken here, are used as if saved in Settings."""
        if report.settings_taken:
            self.backend.settings_changed.emit(self.backend.settings)
            self._settings_saved(self.backend.settings, None)
            self.backend.check_llm()
        self.journal.refresh_days()
        self.journal.redraw_quietly()
        self.memories.mark_dirty()
        self.stats.refresh.changed()
        self.profile.refresh.changed()
        self.backend.refresh_status()

    def _settings_saved(self, settings, key_message: str | None) -> None:
        self.status.set_llm(None, self.backend.llm_configured, settings.llm_model)
        apply_theme(QApplication.instance(), settings.theme)
        # A key kept for this session only was said beside the key field in Settings (no keychain):
        # a box here opened behind the first-connection one and named an environment variable.
        self.journal.refresh_banner()
        self.graph.settings_changed()
        self.lock_action.setVisible(self.backend.encrypted and self.backend.has_passphrase)
        if self.backend.llm_configured and not settings.llm_disclosure_seen:
            self._say_what_is_sent(settings)
        if i18n.resolve_language(settings.ui_language) != i18n.current():
            self.language_changed.emit(settings.ui_language)

    def _say_what_is_sent(self, settings) -> QMessageBox:
        """The first time an LLM is connected: exactly what it will be sent, and when."""
        box = QMessageBox(QMessageBox.Information, self.tr("What your AI companion is sent"),
                          disclosure_text(self.backend.mem.connection.disclosure()), QMessageBox.Ok, self)
        box.setInformativeText(self.tr("Settings → Privacy shows this again. Mark an entry private to keep it "
                                       "from the AI."))
        box.setAttribute(Qt.WA_DeleteOnClose)
        self.last_message_box = box
        box.open()
        settings.llm_disclosure_seen = True
        remember(self.backend, "llm_disclosure_seen")
        return box

    def open_source(self, memory: dict) -> None:
        def found(day) -> None:
            if day is None:
                self.status.showMessage(self.tr("The source entry of this memory is no longer in the journal."),
                                        5000)
                return
            self.tabs.setCurrentWidget(self.journal)
            self.journal.show_entry(day, memory["source_entry_id"])

        entry_id = memory.get("source_entry_id")
        self.backend.read(lambda m: source_day(m, entry_id), found)

    def about(self) -> None:
        try:
            ver = version("memoir-desktop")
        except PackageNotFoundError:
            ver = "dev"
        QMessageBox.about(self, self.tr("About memoir"),
                          self.tr("memoir {version}\nA journal that remembers you. Everything stays on this "
                                  "computer.\nData folder: {home}").format(version=ver, home=self.backend.home))

    # -- status -------------------------------------------------------------------------------

    def _llm_state(self, reachable) -> None:
        self.status.set_llm(reachable, self.backend.llm_configured, self.backend.settings.llm_model)

    def _pending(self, count: int) -> None:
        # The writer counts the jobs waiting, not the one running: ask the core for both.
        self.status.set_pending(count)
        self.backend.refresh_status()

    def _status(self, status: dict) -> None:
        self.status.set_jobs(status.get("pending_jobs", 0), status.get("running_jobs", 0))
        self.status.set_embedder(status.get("embedder") or {})

    # -- window state ------------------------------------------------------------------------

    def _restore_state(self) -> None:
        geometry = self.ui_state.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        self._fit_screen()
        state = self.ui_state.value("window/state")
        if state is not None:
            self.restoreState(state)
        splitter = self.ui_state.value("journal/splitter")
        if splitter is not None:
            self.journal.splitter.restoreState(splitter)
        key = self.ui_state.value("window/page")
        if key is None:
            tab = self.ui_state.value("window/tab")
            key = LEGACY_TABS[int(tab)] if tab is not None and 0 <= int(tab) < len(LEGACY_TABS) else None
        if key in self.pages:
            self.tabs.setCurrentWidget(self.pages[key])

    def _fit_screen(self) -> None:
        """A size saved on a larger screen, or before the scale went up to 200 %, is cut to this screen:
        Send, Save and the page's buttons stay in reach."""
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None or self.isMaximized() or self.isFullScreen():
            return
        room = screen.availableGeometry()
        frame = self.frameGeometry()
        extra_w, extra_h = frame.width() - self.width(), frame.height() - self.height()
        width = min(self.width(), room.width() - extra_w)
        height = min(self.height(), room.height() - extra_h)
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        frame = self.frameGeometry()
        x = min(max(frame.x(), room.left()), room.right() - frame.width() + 1)
        y = min(max(frame.y(), room.top()), room.bottom() - frame.height() + 1)
        if (x, y) != (frame.x(), frame.y()):
            self.move(x, y)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._fitted:  # the frame's size is known once the window is on screen
            self._fitted = True
            self._fit_screen()

    def save_state(self) -> None:
        self.ui_state.setValue("window/geometry", self.saveGeometry())
        self.ui_state.setValue("window/state", self.saveState())
        self.ui_state.setValue("journal/splitter", self.journal.splitter.saveState())
        self.ui_state.setValue("window/tab", self.tabs.currentIndex())
        self.ui_state.setValue("window/page", next(
            (key for key, page in self.pages.items() if page is self.tabs.currentWidget()), "journal"))
        self.ui_state.sync()

    def raise_window(self) -> None:
        """Bring this window forward (a second launch asked for it)."""
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def quit_from_tray(self) -> None:
        QApplication.setQuitOnLastWindowClosed(True)
        if self.isVisible():
            self.close()
        else:  # started in the tray: no window to close, so the app is asked to quit itself
            self.closeEvent(QCloseEvent())
            QApplication.quit()

    def closeEvent(self, event) -> None:
        self.save_state()
        # A dialog still open would outlive its journal: the app would not quit, and a modal one
        # would keep blocking the pointer everywhere else.
        for dialog in self.findChildren(QDialog):
            if dialog.isVisible():
                dialog.close()
        self._status_timer.stop()
        self.graph.shutdown()  # a widget inside a tab never gets a close event of its own
        if not self.rebuilding:
            self.closing.emit()
            if not QApplication.quitOnLastWindowClosed():  # started in the tray: closing the window quits
                QApplication.setQuitOnLastWindowClosed(True)
                QTimer.singleShot(0, QApplication.quit)
        super().closeEvent(event)
        if event.isAccepted() and self.app_lock is not None:
            self.app_lock.release()
