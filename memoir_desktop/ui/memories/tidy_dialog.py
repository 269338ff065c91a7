"""`TidyDialog`: memories that say the same thing, shown as merges the user makes one by one.

The merges are found on the reads pool (similar memories, maybe an AI writing the joined text);
each Merge runs on the background writer and can be undone from its row. Nothing changes
until the user clicks Merge.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.shared.reasons import reason as _reason


class TidyRow(QFrame):
    """One merge: the memories it joins, the text it keeps, Merge / Skip, then Undo."""

    def __init__(self, proposal, dialog: TidyDialog):
        super().__init__()
        self.proposal, self.dialog = proposal, dialog
        self.merged_id: str | None = None
        self.setObjectName("tidyRow")
        self.setFrameShape(QFrame.StyledPanel)
        box = QVBoxLayout(self)
        joined = "\n".join(f"• {m.text}" for m in proposal.members)
        self.members_label = QLabel(joined)
        self.members_label.setWordWrap(True)
        box.addWidget(self.members_label)
        self.keeps_label = QLabel(self.tr("Keeps: “{text}”").format(text=proposal.merged_text))
        self.keeps_label.setWordWrap(True)
        box.addWidget(self.keeps_label)
        row = QHBoxLayout()
        self.state_label = QLabel()
        self.state_label.setObjectName("muted")
        self.state_label.setWordWrap(True)
        row.addWidget(self.state_label, 1)
        self.merge_button = QPushButton(self.tr("Merge"))
        self.merge_button.clicked.connect(self.merge)
        self.skip_button = QPushButton(self.tr("Skip"))
        self.skip_button.clicked.connect(self.skip)
        self.undo_button = QPushButton(self.tr("Undo"))
        self.undo_button.setAccessibleName(self.tr("Undo this merge"))
        self.undo_button.clicked.connect(self.undo)
        self.undo_button.hide()
        for b in (self.merge_button, self.skip_button, self.undo_button):
            row.addWidget(b)
        box.addLayout(row)

    def merge(self) -> None:
        self._busy(self.tr("Merging…"))
        self.dialog.backend.change(lambda m: m.memories.apply_tidy(self.proposal), self._merged, self._failed)

    def _merged(self, result) -> None:
        if result.refused:
            # A memory changed while the list was open: say so in the diarist's words, not core's.
            self.state_label.setText(self.tr("Not merged: one of these memories changed or was forgotten "
                                             "meanwhile."))
            return
        self.merged_id = result.merged_id
        self.state_label.setText(self.tr("Merged."))
        self.undo_button.show()
        self.undo_button.setEnabled(True)

    def undo(self) -> None:
        if self.merged_id is None:
            return
        self._busy(self.tr("Undoing…"))
        merged = self.merged_id
        self.dialog.backend.change(lambda m: m.memories.undo_consolidation(merged), self._undone, self._failed)

    def _undone(self, _restored) -> None:
        self.merged_id = None
        self.state_label.setText(self.tr("Undone: the memories are back as they were."))

    def skip(self) -> None:
        self.hide()
        self.dialog.row_closed()

    def _busy(self, text: str) -> None:
        self.state_label.setText(text)
        for b in (self.merge_button, self.skip_button, self.undo_button):
            b.setEnabled(False)
        self.merge_button.hide()
        self.skip_button.hide()

    def _failed(self, exc: BaseException) -> None:
        self.state_label.setText(self.tr("Could not save: {error}").format(error=_reason(exc)))


class TidyDialog(QDialog):
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.rows: list[TidyRow] = []
        self._generation = 0  # a late answer to an earlier question (the box ticked again) is dropped
        self.setWindowTitle(self.tr("Tidy up similar memories"))
        self.resize(640, 520)
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr("These memories say the same thing. Merge keeps one text for them; the others "
                               "are forgotten, and Undo brings them back."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.include_edited = QCheckBox(self.tr("Also memories I wrote or edited myself"))
        self.include_edited.toggled.connect(self.find)
        layout.addWidget(self.include_edited)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy: how long finding takes is not known in advance
        self.progress.setTextVisible(False)
        layout.addWidget(self.progress)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setFocusPolicy(Qt.NoFocus)  # the merges' buttons take the keyboard; the area scrolls to them
        canvas = QWidget()
        self._rows_layout = QVBoxLayout(canvas)
        self._rows_layout.addStretch(1)
        self.scroll.setWidget(canvas)
        layout.addWidget(self.scroll, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.find()

    def find(self) -> None:
        self._generation += 1
        generation = self._generation
        for row in self.rows:
            row.deleteLater()
        self.rows = []
        self.status.setText(self.tr("Looking for memories that say the same thing…"))
        self.progress.show()

        def found(proposals: list) -> None:
            if generation == self._generation:
                self.show_proposals(proposals)

        edited = self.include_edited.isChecked()
        self.backend.read(lambda m: m.memories.tidy_proposals(include_user_edited=edited), found, self._failed)

    def show_proposals(self, proposals: list) -> None:
        self.progress.hide()
        for p in proposals:
            row = TidyRow(p, self)
            self._rows_layout.insertWidget(self._rows_layout.count() - 1, row)
            self.rows.append(row)
        self.row_closed()

    def row_closed(self) -> None:
        left = sum(1 for r in self.rows if not r.isHidden())
        self.status.setText(self.tr("%n merges to look at.", None, left) if left else
                            self.tr("Nothing to tidy: no two memories say the same thing."))

    def _failed(self, exc: BaseException) -> None:
        self.progress.hide()
        self.status.setText(self.tr("Could not look for similar memories: {error}").format(error=_reason(exc)))

