"""Privacy on screen: the passphrase prompt, the recovery key shown once, and the words that say
what leaves the machine (the lock itself is in app_lock.py).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
)

from memoir_desktop.core.keys.crypto import MIN_PASSPHRASE
from memoir_desktop.core.keys.private_files import write_private
from memoir_desktop.core.llm.disclosure import Disclosure
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.shared.fit import grow_to_fit
from memoir_desktop.ui.shared.folders import in_documents
from memoir_desktop.ui.shared.key_field import key_field
from memoir_desktop.ui.shared.reasons import reason as _reason


class PassphraseDialog(QDialog):
    """Asks for the passphrase (or the recovery key); `creating` asks twice and checks the length.
    `offer_join`: a new journal's question also offers to bring the journal kept on another computer
    (the dialog then ends with JOIN; ui/sync/join_flow.py)."""

    JOIN = 2

    def __init__(self, reason: str, *, creating: bool = False, offer_join: bool = False, parent=None):
        super().__init__(parent)
        self.creating = creating
        self.setWindowTitle(self.tr("Choose a passphrase") if creating else self.tr("Open your journal"))
        layout = QVBoxLayout(self)
        self.reason = QLabel(reason)
        self.reason.setWordWrap(True)
        layout.addWidget(self.reason)
        form = QFormLayout()
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.Password)
        self.field.setAccessibleName(self.tr("Passphrase"))
        form.addRow(self.tr("Passphrase") if creating else self.tr("Passphrase or recovery key"), self.field)
        self.confirm = QLineEdit()
        self.confirm.setEchoMode(QLineEdit.Password)
        self.confirm.setAccessibleName(self.tr("Passphrase again"))
        if creating:
            form.addRow(self.tr("Again"), self.confirm)
        layout.addLayout(form)
        self.error = QLabel()
        self.error.setObjectName("opDelete")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        self.join_button: QPushButton | None = None
        if offer_join:
            self.join_button = QPushButton(self.tr("I already keep my journal on another computer…"))
            self.join_button.setAutoDefault(False)  # Enter in the passphrase field is still OK
            self.join_button.clicked.connect(lambda: self.done(self.JOIN))
            row = QHBoxLayout()
            row.addWidget(self.join_button)
            row.addStretch(1)
            layout.addLayout(row)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        buttons.button(QDialogButtonBox.Ok).setDefault(True)  # in the dialog now, where a default counts

    def passphrase(self) -> str:
        return self.field.text()

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()
        grow_to_fit(self)  # else the explanation above is squeezed to a line by the error's

    def accept(self) -> None:
        text = self.field.text()
        if not text:
            self.show_error(self.tr("Enter the passphrase."))
            return
        if self.creating:
            if len(text) < MIN_PASSPHRASE:
                self.show_error(self.tr("A passphrase needs at least {n} characters.").format(n=MIN_PASSPHRASE))
                return
            if text != self.confirm.text():
                self.show_error(self.tr("The two passphrases differ."))
                return
        super().accept()


class RecoveryKeyDialog(QDialog):
    """The recovery key, shown once: to write down, copy or save where the journal is not. Escape or the
    window's close button ask first whether it was kept: it cannot be shown again."""

    def __init__(self, key: str, parent=None):
        super().__init__(parent)
        self.key = key
        self.question: QMessageBox | None = None
        self.setWindowTitle(self.tr("Your recovery key"))
        layout = QVBoxLayout(self)
        # True with a keychain or without one: the key stands in for the passphrase, nothing else.
        note = QLabel(self.tr("Your journal is encrypted. This recovery key opens it if the passphrase is "
                              "forgotten or lost, on this computer or another. It is shown only now: print it "
                              "or keep it somewhere safe, not beside the journal."))
        note.setWordWrap(True)
        layout.addWidget(note)
        self.field = key_field(key, self.tr("Recovery key"))
        layout.addWidget(self.field)
        row = QHBoxLayout()
        copy = QPushButton(self.tr("Copy"))
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.key))
        save = QPushButton(self.tr("Save to a file…"))
        save.clicked.connect(self.save)
        row.addWidget(copy)
        row.addWidget(save)
        row.addStretch(1)
        layout.addLayout(row)
        done = QDialogButtonBox()
        done.addButton(self.tr("I have kept it"), QDialogButtonBox.AcceptRole)
        done.accepted.connect(self.accept)
        layout.addWidget(done)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Escape:
            event.accept()
            self.ask_before_closing()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event) -> None:
        if event.spontaneous():  # the window's close button: the diarist's, so asked
            event.ignore()
            self.ask_before_closing()
            return
        super().closeEvent(event)  # the app closing its windows (a quit): nothing to ask

    def ask_before_closing(self) -> QMessageBox:
        """"Have you kept it?": I have kept it closes the key's window, Show it again (the default, and
        Escape) leaves it open."""
        if self.question is not None and self.question.isVisible():
            return self.question
        box = QMessageBox(QMessageBox.Question, self.tr("Your recovery key"),
                          self.tr("Have you kept your recovery key? It is shown only now: once this window "
                                  "closes, it cannot be shown again."), QMessageBox.NoButton, self)
        kept = box.addButton(self.tr("I have kept it"), QMessageBox.AcceptRole)
        again = box.addButton(self.tr("Show it again"), QMessageBox.RejectRole)
        box.setDefaultButton(again)
        box.setEscapeButton(again)
        box.finished.connect(lambda _result: self.accept() if box.clickedButton() is kept else None)
        self.question = box
        box.open()
        return box

    def save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the recovery key"),
                                              in_documents("memoir-recovery-key.txt"))
        if not path:
            return
        try:
            # Owner-only, like the journal's own files: the key opens the journal without a passphrase.
            write_private(path, self.tr("memoir recovery key") + "\n" + self.key + "\n")
        except OSError as exc:
            QMessageBox.warning(self, self.tr("Save the recovery key"),
                                self.tr("The key could not be saved there ({reason}). Choose another "
                                        "place, or copy it.").format(reason=_reason(exc)))


def disclosure_text(d: Disclosure) -> str:
    """What leaves the machine, in the UI's language: generated from the registered purposes
    (core/llm/purposes.py), so it lists every feature that calls the LLM."""
    return d.text(i18n.current(), bullet="•")
