"""Settings → Sync, "Your computers": the computers that share this journal, and "Remove this computer…" for
a lost or stolen one (core/sync Sync.remove_computer: a new key epoch the others get and it does not; it
keeps what it had already received). The journal's passphrase is asked for: it wraps the new key for the
next computer that joins, and a removal is not a click anyone passing by the screen should make."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from memoir_desktop.ui.sync import words
from memoir_desktop.ui.sync.address import kind_of

log = logging.getLogger(__name__)


class RemoveComputerDialog(QDialog):
    """What removing a computer does and does not do, the passphrase, and one button."""

    def __init__(self, name: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Remove this computer"))
        layout = QVBoxLayout(self)
        note = QLabel(self.tr("“{name}” will receive nothing written from now on, and cannot sync again. It keeps "
                              "what it had already received: if it was lost or stolen, that much may be read by "
                              "whoever has it. Your other computers go on as before.").format(name=name))
        note.setWordWrap(True)
        layout.addWidget(note)
        layout.addWidget(QLabel(self.tr("Your journal's passphrase")))
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        layout.addWidget(self.passphrase)
        self.problem = QLabel()
        self.problem.setObjectName("opDelete")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.remove_button = buttons.addButton(self.tr("Remove this computer"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.remove_button.setEnabled(False)
        self.passphrase.textChanged.connect(lambda text: self.remove_button.setEnabled(bool(text)))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


class ComputersBox(QGroupBox):
    """The list, read from what this computer's rounds have seen (no network)."""

    def __init__(self, backend, sync, parent=None):
        super().__init__(self.tr("Your computers"), parent)
        self.backend, self.sync = backend, sync
        self.dialog: RemoveComputerDialog | None = None
        self.rows: dict[str, QPushButton] = {}
        layout = QVBoxLayout(self)
        self.grid = QGridLayout()
        layout.addLayout(self.grid)
        self.said = QLabel()
        self.said.setWordWrap(True)
        self.said.hide()
        layout.addWidget(self.said)
        self.refresh()

    def refresh(self) -> None:
        self.backend.read(lambda m: m.sync.computers(), self._show, lambda _exc: self._show([]))

    def _show(self, computers: list[dict]) -> None:
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.rows.clear()
        self.setVisible(bool(computers))
        for row, c in enumerate(computers):
            name = QLabel(c["name"] + f"  ({c['id'][:6]})")
            name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.grid.addWidget(name, row, 0)
            if c["this"]:
                self.grid.addWidget(QLabel(self.tr("this computer")), row, 1)
            elif c["removed"]:
                self.grid.addWidget(QLabel(self.tr("removed")), row, 1)
            else:
                button = QPushButton(self.tr("Remove this computer…"))
                button.clicked.connect(lambda _=False, c=c: self.ask_remove(c))
                self.grid.addWidget(button, row, 1)
                self.rows[c["id"]] = button

    def ask_remove(self, computer: dict) -> None:
        dialog = RemoveComputerDialog(computer["name"], self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._remove(computer, dialog.passphrase.text()))
        self.dialog = dialog
        dialog.open()

    def _remove(self, computer: dict, passphrase: str) -> None:
        self.rows.get(computer["id"], QPushButton()).setEnabled(False)

        def done(report) -> None:
            text = self.tr("“{name}” was removed: it receives nothing written from now on.").format(
                name=computer["name"])
            if report is not None and not report.clean:
                text += " " + words.round_result(report)
            self.said.setText(text)
            self.said.show()
            self.refresh()

        def failed(exc: BaseException) -> None:
            log.info("a computer was not removed: %s", getattr(exc, "code", exc.__class__.__name__))
            if getattr(exc, "code", "") == "wrong":
                text = self.tr("That passphrase does not open this journal. Nothing was changed.")
            else:
                text = words.failure(exc, kind_of(self.sync.url)) + " " + self.tr(
                    "The removal is kept and made at the next sync.")
            self.said.setText(text)
            self.said.show()
            self.refresh()

        self.backend.change(lambda m: m.sync.remove_computer(computer["id"], passphrase), done, failed)
