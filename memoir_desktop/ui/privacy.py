"""Privacy on screen: the passphrase prompt, the recovery key shown once, and the words that say
what leaves the machine (the lock itself is in app_lock.py).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from memoir_desktop.core.crypto import MIN_PASSPHRASE
from memoir_desktop.core.disclosure import Disclosure


class PassphraseDialog(QDialog):
    """Asks for the passphrase (or the recovery key); `creating` asks twice and checks the length."""

    def __init__(self, reason: str, *, creating: bool = False, parent=None):
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
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def passphrase(self) -> str:
        return self.field.text()

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()

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
    """The recovery key, shown once: to write down, copy or save where the journal is not."""

    def __init__(self, key: str, parent=None):
        super().__init__(parent)
        self.key = key
        self.setWindowTitle(self.tr("Your recovery key"))
        layout = QVBoxLayout(self)
        note = QLabel(self.tr("Your journal is encrypted. This recovery key opens it if the system keyring and "
                              "the passphrase are lost (another computer, a reinstalled system). It is shown "
                              "only now: print it or keep it somewhere safe, not beside the journal."))
        note.setWordWrap(True)
        layout.addWidget(note)
        self.field = QLineEdit(key)
        self.field.setReadOnly(True)
        self.field.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.field.setAccessibleName(self.tr("Recovery key"))
        # The whole key in view, never scrolled: it is read once and copied by hand.
        m = self.field.textMargins()
        self.field.setMinimumWidth(self.field.fontMetrics().horizontalAdvance(key + "  ") + m.left() + m.right() + 16)
        self.field.setCursorPosition(0)
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

    def save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the recovery key"), "memoir-recovery-key.txt")
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.tr("memoir recovery key") + "\n" + self.key + "\n")


def disclosure_text(d: Disclosure, tr: Callable[[str], str]) -> str:
    """What leaves the machine, in the UI's language (`tr` of the widget showing it)."""
    head = {
        "none": tr("No AI companion is set: nothing is sent anywhere. Entries are journaled and searched on "
                   "this computer."),
        "this_machine": tr("The AI companion runs on this computer ({host}): what it is sent stays on this "
                           "machine."),
        "local_network": tr("The AI companion runs on another computer of your local network ({host}): what it "
                            "is sent leaves this computer but not your network."),
        "cloud": tr("The AI companion is a cloud service ({host}): what it is sent leaves this computer and is "
                    "handled under that provider's terms."),
    }[d.where].format(host=d.host)
    sent = {
        "entry": tr("Each entry you write (not private ones), after you save it, with the few entries before it "
                    "and the running summary, to find the facts worth remembering."),
        "memories": tr("Existing memories similar to those facts, to decide what to add, update or forget."),
        "summary": tr("Every few entries, the latest entries and the previous summary, to update the summary."),
        "chat": tr("When you send or ask: your message, recent entries, the summary and the memories retrieved "
                   "for it, to write the answer."),
        "graph": tr("With the memory graph on: the facts of each entry, to name people, places and relations."),
    }
    never = {
        "private": tr("Private entries: they are only journaled and found by local search."),
        "search": tr("Searching, browsing and editing: these run on this computer."),
        "keys": tr("The journal's keys, passphrase and files."),
    }
    lines = [head]
    if d.sent:
        lines += ["", tr("Sent:")] + [f"• {sent[k]}" for k, _ in d.sent if k in sent]
    lines += ["", tr("Never sent:")] + [f"• {never[k]}" for k, _ in d.not_sent if k in never]
    return "\n".join(lines)
