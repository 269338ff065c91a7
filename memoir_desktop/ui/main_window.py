"""`MainWindow`: the tabs (Journal, Memories, Stats, Graph), menus, shortcuts and status bar.

Only UI state (geometry, splitter, last tab) goes to QSettings; everything else is the core's.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QTabWidget

from memoir_desktop.ui import i18n
from memoir_desktop.ui.graph.graph_page import GraphPage
from memoir_desktop.ui.journal.journal_page import JournalPage
from memoir_desktop.ui.memories.memory_card_list import MemoryCardList
from memoir_desktop.ui.resources import icon
from memoir_desktop.ui.settings_dialog import open_settings_dialog
from memoir_desktop.ui.stats_page import StatsPage
from memoir_desktop.ui.status_bar import MemoirStatusBar
from memoir_desktop.ui.theme import apply_theme

STATUS_REFRESH_MS = 5_000


class MainWindow(QMainWindow):
    language_changed = Signal(str)  # the app rebuilds the window in the new language
    closing = Signal()

    def __init__(self, backend, ui_state: QSettings | None = None, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.ui_state = ui_state if ui_state is not None else QSettings()
        self.last_message_box: QMessageBox | None = None
        self.settings_dialog = None
        self.rebuilding = False  # True while replaced by a window in another language
        self.setWindowTitle("memoir")
        self.setWindowIcon(icon("memoir"))
        self.resize(1200, 780)

        self.journal = JournalPage(backend)
        self.memories = MemoryCardList(backend)
        self.stats = StatsPage(backend)
        self.graph = GraphPage(backend)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.journal, self.tr("Journal"))
        self.tabs.addTab(self.memories, self.tr("Memories"))
        self.tabs.addTab(self.stats, self.tr("Stats"))
        self.tabs.addTab(self.graph, self.tr("Graph"))
        self.setCentralWidget(self.tabs)
        self.status = MemoirStatusBar()
        self.setStatusBar(self.status)
        self._build_menus()

        self.journal.open_settings.connect(self.open_settings)
        self.memories.open_source.connect(self.open_source)
        self.graph.openEntryRequested.connect(lambda eid: self.open_source({"source_entry_id": eid}))
        backend.pending_changed.connect(self.status.set_pending)
        backend.llm_reachable_changed.connect(self._llm_state)
        backend.status_changed.connect(self._status)
        backend.error.connect(lambda message: self.status.showMessage(message, 8000))
        backend.job_finished.connect(lambda _job: self.backend.refresh_status())
        self._status_timer = QTimer(self)
        self._status_timer.setInterval(STATUS_REFRESH_MS)
        self._status_timer.timeout.connect(backend.refresh_status)
        self._restore_state()

    # -- setup ------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        self.today_action = self._action(self.tr("&Today"), "Ctrl+N", self.go_today)
        self.settings_action = self._action(self.tr("&Settings…"), "Ctrl+,", self.open_settings)
        self.settings_action.setMenuRole(QAction.PreferencesRole)
        self.settings_action.setIcon(icon("settings"))
        self.today_action.setIcon(icon("today"))
        quit_action = self._action(self.tr("&Quit"), QKeySequence.Quit, self.close)
        quit_action.setMenuRole(QAction.QuitRole)
        for action in (self.today_action, self.settings_action):
            file_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        edit_menu = self.menuBar().addMenu(self.tr("&Edit"))
        self.find_action = self._action(self.tr("&Find memories"), QKeySequence.Find, self.find)
        edit_menu.addAction(self.find_action)
        view_menu = self.menuBar().addMenu(self.tr("&View"))
        for i in range(4):
            view_menu.addAction(self._action(self.tabs.tabText(i), f"Ctrl+{i + 1}",
                                             lambda i=i: self.tabs.setCurrentIndex(i)))
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
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

    def show_current(self) -> None:
        """Load today's page and the status (also for a window rebuilt in another language)."""
        self.journal.show_today()
        self.journal.refresh_days()
        self.status.set_llm(None, self.backend.llm_configured, self.backend.settings.llm_model)
        self.backend.refresh_status()
        self._status_timer.start()

    # -- actions -------------------------------------------------------------------------------

    def go_today(self) -> None:
        self.tabs.setCurrentWidget(self.journal)
        self.journal.show_today()

    def find(self) -> None:
        self.tabs.setCurrentWidget(self.memories)
        self.memories.focus_search()

    def open_settings(self):
        self.settings_dialog = open_settings_dialog(self, self.backend, self._settings_saved)
        return self.settings_dialog

    def _settings_saved(self, settings, key_message: str | None) -> None:
        self.status.set_llm(None, self.backend.llm_configured, settings.llm_model)
        apply_theme(QApplication.instance(), settings.theme)
        if key_message:
            box = QMessageBox(QMessageBox.Warning, self.tr("API key kept for this session only"),
                              key_message, QMessageBox.Ok, self)
            box.setAttribute(Qt.WA_DeleteOnClose)
            self.last_message_box = box
            box.open()
        self.journal.refresh_banner()
        if i18n.resolve_language(settings.ui_language) != i18n.current():
            self.language_changed.emit(settings.ui_language)

    def open_source(self, memory: dict) -> None:
        def found(day) -> None:
            if day is None:
                self.status.showMessage(self.tr("The source entry of this memory is no longer in the journal."),
                                        5000)
                return
            self.tabs.setCurrentWidget(self.journal)
            self.journal.show_entry(day, memory["source_entry_id"])

        self.backend.entry_day(memory, found)

    def about(self) -> None:
        from importlib.metadata import PackageNotFoundError, version

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

    def _status(self, status: dict) -> None:
        self.status.set_pending(status.get("pending_jobs", 0))
        self.status.set_embedder(status.get("embedder") or {})

    # -- window state ------------------------------------------------------------------------

    def _restore_state(self) -> None:
        geometry = self.ui_state.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = self.ui_state.value("window/state")
        if state is not None:
            self.restoreState(state)
        splitter = self.ui_state.value("journal/splitter")
        if splitter is not None:
            self.journal.splitter.restoreState(splitter)
        tab = self.ui_state.value("window/tab")
        if tab is not None:
            self.tabs.setCurrentIndex(int(tab))

    def save_state(self) -> None:
        self.ui_state.setValue("window/geometry", self.saveGeometry())
        self.ui_state.setValue("window/state", self.saveState())
        self.ui_state.setValue("journal/splitter", self.journal.splitter.saveState())
        self.ui_state.setValue("window/tab", self.tabs.currentIndex())
        self.ui_state.sync()

    def raise_window(self) -> None:
        """Bring this window forward (a second launch asked for it)."""
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def closeEvent(self, event) -> None:
        self.save_state()
        self._status_timer.stop()
        self.graph.shutdown()  # a widget inside a tab never gets a close event of its own
        if not self.rebuilding:
            self.closing.emit()
        super().closeEvent(event)
