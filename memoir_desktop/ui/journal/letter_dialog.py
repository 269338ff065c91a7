"""`LetterDialog`: a weekly or monthly letter from memoir, to read, and to have written again (once an
AI companion is connected, say). The letter is also on its last day's page, like an entry."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
)

from memoir_desktop.ui.journal import turns
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
        # Shown while the letter is being written again (an AI takes seconds to answer).
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.setMaximumHeight(6)
        self.busy.setAccessibleName(self.tr("Writing the letter again"))
        self.busy.hide()
        layout.addWidget(self.busy)
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
        """Have the letter written again, saying what happens: working, done, or why it stays as it is."""
        if not self.backend.llm_configured:
            # Without an AI the letter is the period's summary, and it would come out the same.
            self.note.setText(self.tr("The letter is kept as it is: no AI companion is connected, and without one "
                                      "it would be the same summary of the period again. Connect one in Settings, "
                                      "then write it again."))
            return
        self.again_button.setEnabled(False)
        self.busy.show()
        self.note.setText(self.tr("Writing the letter again…"))
        self._before = self.letter.get("content")
        turns.regenerate_letter(self.backend, self.letter["id"], self._written_again, self._not_written_again)

    def _written_again(self, entry: dict) -> None:
        self.busy.hide()
        self.again_button.setEnabled(True)
        self.show_letter(entry)
        if entry.get("content") == self._before:
            self.note.setText(self.tr("The letter was written again and reads the same as before."))
        else:
            self.note.setText(self.tr("The letter was written again. The earlier text stays in the letter's "
                                      "history."))

    def _not_written_again(self, exc: BaseException) -> None:
        self.busy.hide()
        self.again_button.setEnabled(True)
        self.note.setText(self.tr("The letter could not be written again, so it is kept as it is ({error}).")
                          .format(error=exc))


def open_letter(parent, backend, letter: dict) -> LetterDialog:
    dialog = LetterDialog(backend, letter, parent)
    dialog.setAttribute(Qt.WA_DeleteOnClose)
    dialog.open()
    return dialog
