"""`AppRow`: one app that connected, and the three things the diarist decides about it.

A box ticked here is written at once (no Save): pausing an app must stop it now, not when the
Settings dialog closes. What is shown afterwards is what the journal stored, so a failed write puts
the box back as it was."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QFrame, QLabel, QVBoxLayout

from memoir_desktop.core.apps.connected_apps import UNNAMED
from memoir_desktop.ui.shared.formatting import date_time, short_date

log = logging.getLogger(__name__)


class AppRow(QFrame):
    def __init__(self, backend, app: dict, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.app = app
        self.setObjectName("appRow")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        self.name = QLabel(self.tr("An app that gave no name") if app["name"] == UNNAMED else app["name"])
        self.name.setTextFormat(Qt.PlainText)  # the name is the app's own words, never markup
        self.name.setObjectName("appName")
        layout.addWidget(self.name)
        self.seen = QLabel(self.tr("First connected {first} · last asked {last}").format(
            first=short_date(app["first_seen"]), last=date_time(app["last_seen"])))
        self.seen.setObjectName("muted")
        self.seen.setWordWrap(True)
        layout.addWidget(self.seen)
        self.allowed = QCheckBox(self.tr("Allowed (untick to pause it: every request is refused)"))
        self.read_entries = QCheckBox(self.tr("May read journal entries"))
        self.write_directly = QCheckBox(self.tr("May add memories directly (otherwise it only suggests them)"))
        for box, grant in ((self.allowed, "allowed"), (self.read_entries, "read_entries"),
                           (self.write_directly, "write_directly")):
            box.setAccessibleDescription(app["name"])
            box.toggled.connect(lambda on, g=grant: self._set(g, on))
            layout.addWidget(box)
        self.problem = QLabel()
        self.problem.setObjectName("opDelete")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)
        self._show(app)

    def _show(self, app: dict) -> None:
        self.app = app
        for box, on in ((self.allowed, app["allowed"]), (self.read_entries, app["read_entries"]),
                        (self.write_directly, app["write_directly"])):
            box.blockSignals(True)
            box.setChecked(bool(on))
            box.blockSignals(False)

    def _set(self, grant: str, on: bool) -> None:
        self.problem.hide()
        name = self.app["name"]
        if grant == "allowed":
            self.backend.change(lambda m: m.apps.pause_app(name, not on), self._show, self._failed)
        else:
            self.backend.change(lambda m: m.apps.set_app_grant(name, grant, on), self._show, self._failed)

    def _failed(self, exc: BaseException) -> None:
        log.warning("a connected app's permission was not changed: %s", exc)
        self._show(self.app)
        self.problem.setText(self.tr("This change could not be saved. Try again."))
        self.problem.show()
