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

    def _needs_passphrase(self) -> bool:
        """No keyring opens the journal for a server another app starts: none keeps its key here, or
        the app lock refuses the keyring (the server opens the journal as memoir does, core/memory.py)."""
        if not getattr(self.backend, "encrypted", False):
            return False
        return not getattr(self.backend, "keyring_keeps_key", False) or bool(self.backend.settings.lock_at_start)

    def _passphrase_note(self) -> str:
        """Why the other app may find the journal locked, when it will (an empty text otherwise)."""
        if not self._needs_passphrase():
            return ""
        if not getattr(self.backend, "keyring_keeps_key", False):
            return self.tr("This computer's keyring does not hold your journal's key, so another app can open "
                           "your journal only when it starts memoir with your passphrase. The copied "
                           "configuration has a place for it, which you fill in.")
        return self.tr("memoir asks for your passphrase when it starts, so another app can open your journal "
                       "only when it starts memoir with your passphrase. The copied configuration has a place "
                       "for it, which you fill in.")

    def copy(self, client: str) -> str:
        needs_passphrase = self._needs_passphrase()
        text = app_access.client_config(client, app_access.server_command(),
                                        journal_folder_to_name(self.backend.home), needs_passphrase=needs_passphrase)
        QGuiApplication.clipboard().setText(text)
        said = self.tr("Copied the configuration for {app}. {app} reads it from: {place}. If "
                       "other tools are listed there already, add memoir beside them.").format(
            app=client, place=app_access.CONFIG_PLACES[client])
        if needs_passphrase:
            # The passphrase is never copied: the clipboard is read by other programs, and the user
            # decides whether that file may hold it.
            said += " " + self.tr("In it, replace {placeholder} with your journal's passphrase. That file then "
                                  "keeps your passphrase as plain text: anyone who can read it can open your "
                                  "journal.").format(placeholder=app_access.PASSPHRASE_PLACEHOLDER)
        self.copied.setText(said)
        self.copied.show()
        return text
