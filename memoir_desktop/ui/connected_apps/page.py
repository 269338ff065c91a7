"""`ConnectedAppsPage`: Settings → Connected apps.

Apps connect from their own processes while memoir runs, so the page reads the list and the log
afresh each time it is shown (on the reads pool), never once at start.
"""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout, QWidget

from memoir_desktop.ui.connected_apps.app_row import AppRow
from memoir_desktop.ui.connected_apps.call_log import CallLogTable
from memoir_desktop.ui.connected_apps.client_setup import ClientSetup
from memoir_desktop.ui.connected_apps.network_access import NetworkAccess

LOG_LIMIT = 200


class ConnectedAppsPage(QWidget):
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.rows: list[AppRow] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        intro = QLabel(self.tr("Other AI tools on this computer, such as Claude Desktop, Cursor or VS Code, can "
                               "read what memoir remembers about you, but only what you allow here. Private "
                               "entries, and the kinds of things switched off on the About you page, never "
                               "leave memoir."))
        intro.setWordWrap(True)
        layout.addWidget(intro)

        self.apps_box = QGroupBox(self.tr("Apps that connected"))
        self._apps_layout = QVBoxLayout(self.apps_box)
        defaults = QLabel(self.tr("A new app may read your memories and suggest new ones, nothing more. What you "
                                  "tick here applies at once."))
        defaults.setObjectName("muted")
        defaults.setWordWrap(True)
        self._apps_layout.addWidget(defaults)
        self.no_apps = QLabel(self.tr("No app has connected yet. To connect one, copy its configuration below."))
        self.no_apps.setWordWrap(True)
        self.no_apps.hide()
        self._apps_layout.addWidget(self.no_apps)
        layout.addWidget(self.apps_box)

        log_box = QGroupBox(self.tr("What the apps asked"))
        log_layout = QVBoxLayout(log_box)
        self.log = CallLogTable()
        self.log.hide()
        log_layout.addWidget(self.log)
        self.no_calls = QLabel(self.tr("No app has asked anything yet."))
        self.no_calls.setWordWrap(True)
        log_layout.addWidget(self.no_calls)
        log_note = QLabel(self.tr("Only when, which app, what kind of request and how many items went out are "
                                  "kept here: never the words asked or answered."))
        log_note.setObjectName("muted")
        log_note.setWordWrap(True)
        log_layout.addWidget(log_note)
        layout.addWidget(log_box)

        self.setup = ClientSetup(backend)
        layout.addWidget(self.setup)
        self.network = NetworkAccess(backend)
        layout.addWidget(self.network)
        self._waiting: set[str] = {"apps", "calls", "key"}

    @property
    def loaded(self) -> bool:
        """The list, the log and the key's state have all arrived (screenshots and tests wait for it)."""
        return not self._waiting

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.reload()

    def reload(self) -> None:
        self._waiting = {"apps", "calls", "key"}
        self.backend.read(lambda m: m.apps.connected_apps(), self.set_apps)
        self.backend.read(lambda m: m.apps.app_log(limit=LOG_LIMIT), self.set_calls)
        self.backend.read(lambda m: m.apps.has_app_token(), self._key_state)

    def set_apps(self, apps: list[dict]) -> None:
        for row in self.rows:
            row.deleteLater()
        self.rows = []
        for app in apps:
            row = AppRow(self.backend, app)
            self._apps_layout.addWidget(row)
            self.rows.append(row)
        self.no_apps.setVisible(not apps)
        self._waiting.discard("apps")

    def set_calls(self, calls: list[dict]) -> None:
        self.log.set_calls(calls)
        self.log.setVisible(bool(calls))
        self.no_calls.setVisible(not calls)
        self._waiting.discard("calls")

    def _key_state(self, has_key: bool) -> None:
        self.network.set_has_key(has_key)
        self._waiting.discard("key")

    def row(self, name: str) -> AppRow | None:
        return next((r for r in self.rows if r.app["name"] == name), None)
