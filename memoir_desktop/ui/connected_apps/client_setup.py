"""`ClientSetup`: copy the text Claude Desktop, Cursor or VS Code needs to start memoir's server for
itself, and say where that app reads it.

The text names this journal's folder only when it is not the usual one: the other app starts the
server without memoir's surroundings, and would otherwise open (or make) an empty journal.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from memoir_desktop.core import config
from memoir_desktop.core.apps import app_access


def journal_folder_to_name(home) -> Path | None:
    """`home`, unless it is the folder memoir opens when nothing says otherwise."""
    usual = Path(platformdirs.user_data_dir(config.APP_NAME, appauthor=False)).expanduser()
    try:
        same = Path(home).resolve() == usual.resolve()
    except OSError:
        same = False
    return None if same else Path(home)


class ClientSetup(QGroupBox):
    def __init__(self, backend, parent=None):
        super().__init__(self.tr("Connect an app"), parent)
        self.backend = backend
        layout = QVBoxLayout(self)
        about = QLabel(self.tr("memoir copies the configuration the app needs. Paste it where the app reads "
                               "it, then restart the app: it appears above the first time it asks something."))
        about.setWordWrap(True)
        layout.addWidget(about)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Copy the configuration for")))
        self.buttons: dict[str, QPushButton] = {}
        for client in app_access.CLIENTS:
            button = QPushButton(client)
            button.setAccessibleName(self.tr("Copy the configuration for {app}").format(app=client))
            button.clicked.connect(lambda _=False, c=client: self.copy(c))
            row.addWidget(button)
            self.buttons[client] = button
        row.addStretch(1)
        layout.addLayout(row)
        self.copied = QLabel()
        self.copied.setWordWrap(True)
        self.copied.hide()
        layout.addWidget(self.copied)
        self.passphrase_note = QLabel(self._passphrase_note())
        self.passphrase_note.setObjectName("muted")
        self.passphrase_note.setWordWrap(True)
        self.passphrase_note.setVisible(bool(self.passphrase_note.text()))
        layout.addWidget(self.passphrase_note)

    def _passphrase_note(self) -> str:
        """Why the other app may find the journal locked, when it will (an empty text otherwise)."""
        if not getattr(self.backend, "encrypted", False):
            return ""
        if not getattr(self.backend, "keyring_keeps_key", False):
            return self.tr("This computer's keyring does not hold your journal's key, so another app can open "
                           "your journal only when it is started with your passphrase, which the copied "
                           "configuration does not contain.")
        if self.backend.settings.lock_at_start:
            return self.tr("memoir asks for your passphrase when it starts, so another app can open your journal "
                           "only when it is started with your passphrase, which the copied configuration does "
                           "not contain.")
        return ""

    def copy(self, client: str) -> str:
        text = app_access.client_config(client, app_access.server_command(),
                                        journal_folder_to_name(self.backend.home))
        QGuiApplication.clipboard().setText(text)
        self.copied.setText(self.tr("Copied the configuration for {app}. {app} reads it from: {place}. If "
                                    "other tools are listed there already, add memoir beside them.").format(
            app=client, place=app_access.CONFIG_PLACES[client]))
        self.copied.show()
        return text
