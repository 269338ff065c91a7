"""`NetworkAccess`: apps that reach memoir over the network of this computer (not by starting it
themselves) need an access key; `AccessKeyDialog` shows a new one, once.

Only the key's fingerprint is kept in the journal, so it cannot be shown again: a lost key is
replaced, and the one before stops working at once.
"""

from __future__ import annotations

import logging
import shlex
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
)

from memoir_desktop.core.apps import app_access
from memoir_desktop.ui.shared.a11y import readable
from memoir_desktop.ui.shared.key_field import key_field

log = logging.getLogger(__name__)

EXAMPLE_ADDRESS = "127.0.0.1:8765"  # this computer only; the port is an example


def server_command_line() -> str:
    """The command that serves memoir over the network, by program name (no folder: it is read, and
    shown in screenshots)."""
    program, *args = app_access.server_command()
    return shlex.join([Path(program).name, *args, "--http", EXAMPLE_ADDRESS])


class AccessKeyDialog(QDialog):
    def __init__(self, key: str, parent=None):
        super().__init__(parent)
        self.key = key
        self.setWindowTitle(self.tr("Your new access key"))
        layout = QVBoxLayout(self)
        note = QLabel(self.tr("Give this access key to the app that connects over the network. It will not be "
                              "shown again, and it replaces the previous one, which stops working now."))
        note.setWordWrap(True)
        layout.addWidget(note)
        self.field = key_field(key, self.tr("Access key"))
        layout.addWidget(self.field)
        row = QHBoxLayout()
        copy = QPushButton(self.tr("Copy"))
        copy.clicked.connect(self.copy)
        row.addWidget(copy)
        self.copied = QLabel(self.tr("Copied."))
        self.copied.setObjectName("muted")
        self.copied.hide()
        row.addWidget(self.copied)
        row.addStretch(1)
        layout.addLayout(row)
        done = QDialogButtonBox()
        done.addButton(self.tr("Done"), QDialogButtonBox.AcceptRole)
        done.accepted.connect(self.accept)
        layout.addWidget(done)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.key)
        self.copied.show()


class NetworkAccess(QGroupBox):
    def __init__(self, backend, parent=None):
        super().__init__(self.tr("For apps that connect over the network on this computer"), parent)
        self.backend = backend
        self.has_key: bool | None = None
        self.key_dialog: AccessKeyDialog | None = None
        self.confirm_box: QMessageBox | None = None
        layout = QVBoxLayout(self)
        about = QLabel(self.tr("Some apps do not start memoir themselves: they connect to it over this "
                               "computer's network, with an access key. Start memoir's server for them with:"))
        about.setWordWrap(True)
        layout.addWidget(about)
        command_row = QHBoxLayout()
        self.command = QLabel(server_command_line())
        self.command.setObjectName("code")
        self.command.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.command.setTextFormat(Qt.PlainText)
        self.command.setContentsMargins(8, 4, 8, 4)
        readable(self.command)  # reached, read and copied from the keyboard too
        self.command.setAccessibleName(self.tr("The command to start memoir's server"))
        command_row.addWidget(self.command)
        copy_command = QPushButton(self.tr("Copy the command"))
        copy_command.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.command.text()))
        command_row.addWidget(copy_command)
        command_row.addStretch(1)
        layout.addLayout(command_row)
        port = QLabel(self.tr("The number at the end is an example: any free one will do."))
        port.setObjectName("muted")
        port.setWordWrap(True)
        layout.addWidget(port)
        key_row = QHBoxLayout()
        # Each app its own key (core/apps/connected_apps.py): its grants, pause and log follow the key.
        self.app_name = QLineEdit()
        self.app_name.setPlaceholderText(self.tr("The app's name, for example Cursor"))
        key_row.addWidget(self.app_name)
        self.new_key_button = QPushButton(self.tr("Make a new access key…"))
        self.new_key_button.clicked.connect(self.make_key)
        key_row.addWidget(self.new_key_button)
        self.state = QLabel()
        self.state.setWordWrap(True)
        key_row.addWidget(self.state, 1)
        layout.addLayout(key_row)

    def set_has_key(self, has_key: bool) -> None:
        self.has_key = has_key
        self.state.setText(self.tr("An access key exists. It is never shown again; make a new one if it is "
                                   "lost.") if has_key else self.tr("No access key yet."))

    def make_key(self) -> None:
        """A key for the app named here (its own; one it had before stops working), or for the unnamed
        "HTTP app", whose key in use is replaced only after a yes: the app using it stops reaching the journal."""
        if self.app_name.text().strip():
            self._make_key_now()
            return
        if not self.has_key:
            self._make_key_now()
            return
        box = QMessageBox(QMessageBox.Question, self.tr("Make a new access key?"),
                          self.tr("The app that uses the current access key will stop reaching your journal "
                                  "until it is given the new one."), QMessageBox.Cancel, self)
        make = box.addButton(self.tr("Make a new key"), QMessageBox.AcceptRole)
        box.setDefaultButton(QMessageBox.Cancel)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda clicked: self._make_key_now() if clicked is make else None)
        self.confirm_box = box
        box.open()

    def _make_key_now(self) -> None:
        self.new_key_button.setEnabled(False)
        name = self.app_name.text().strip()
        self.app_name.clear()
        self.backend.change(lambda m: m.apps.new_app_key(name) if name else m.apps.new_app_token(), self._show_key,
                            self._failed)

    def _show_key(self, key: str) -> None:
        self.new_key_button.setEnabled(True)
        self.set_has_key(True)
        self.key_dialog = AccessKeyDialog(key, self)
        self.key_dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.key_dialog.open()

    def _failed(self, exc: BaseException) -> None:
        log.warning("no new access key was made: %s", exc)
        self.new_key_button.setEnabled(True)
        self.state.setText(self.tr("No new access key was made. Try again."))
