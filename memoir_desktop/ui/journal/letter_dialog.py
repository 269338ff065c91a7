"""`LetterDialog`: a weekly or monthly letter from memoir, to read, and to have written again (once an
AI companion is connected, say). The letter is also on its last day's page, like an entry."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QTextBrowser, QVBoxLayout

from memoir_desktop.viewmodels.markdown import to_safe_html


class LetterDialog(QDialog):
    def __init__(self, backend, letter: dict, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.letter = letter
        self.setWindowTitle(self.tr("A letter from memoir"))
        self.resize(620, 560)
        layout = QVBoxLayout(self)
        self.body = QTextBrowser()
        self.body.setOpenLinks(False)
        self.body.setAccessibleName(self.tr("Letter"))
        self.body.document().setDocumentMargin(18)
        font = self.body.font()
        font.setPointSizeF(font.pointSizeF() + 1)
        self.body.setFont(font)
        layout.addWidget(self.body, 1)
        self.note = QLabel()
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.again_button = QPushButton(self.tr("Write it again"))
        self.again_button.setToolTip(self.tr("Write this letter again from the period's entries and memories. "
                                             "The current text stays in the letter's history."))
        buttons.addButton(self.again_button, QDialogButtonBox.ActionRole)
        self.again_button.clicked.connect(self.write_again)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.show_letter(letter)

    def show_letter(self, letter: dict) -> None:
        self.letter = letter
        self.body.setHtml(to_safe_html(letter["content"]))

    def write_again(self) -> None:
        self.again_button.setEnabled(False)
        self.note.setText(self.tr("Writing the letter again…"))

        def done(entry: dict) -> None:
            self.again_button.setEnabled(True)
            self.note.setText("")
            self.show_letter(entry)

        def failed(exc: BaseException) -> None:
            self.again_button.setEnabled(True)
            self.note.setText(self.tr("The letter could not be written again: {error}").format(error=exc))

        self.backend.regenerate_letter(self.letter["id"], done, failed)


def open_letter(parent, backend, letter: dict) -> LetterDialog:
    dialog = LetterDialog(backend, letter, parent)
    dialog.setAttribute(Qt.WA_DeleteOnClose)
    dialog.open()
    return dialog
