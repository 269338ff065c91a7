"""`TidyHint`: one quiet line on the Memories page when several memories say the same thing.

Checked once a session (finding similar memories embeds them all: not for every refresh), shown
only from HINT_AT merges up — one or two duplicates are ordinary and not worth interrupting for;
several mean the journal has been repeating itself for a while. Dismissed, it stays away.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

HINT_AT = 3


class TidyHint(QFrame):
    tidy = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("tidyHint")
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 4, 8, 4)
        self.label = QLabel(self.tr("Some memories say the same thing."))
        self.label.setObjectName("muted")
        row.addWidget(self.label, 1)
        self.button = QPushButton(self.tr("Tidy up…"))
        self.button.clicked.connect(self.tidy)
        row.addWidget(self.button)
        self.close_button = QPushButton("×")
        self.close_button.setAccessibleName(self.tr("Dismiss"))
        self.close_button.setFlat(True)
        self.close_button.clicked.connect(self.dismiss)
        row.addWidget(self.close_button)
        self._checked = self._dismissed = False
        self.hide()

    def wants_check(self) -> bool:
        if self._checked or self._dismissed:
            return False
        self._checked = True
        return True

    def set_proposals(self, proposals: list) -> None:
        self.setVisible(not self._dismissed and len(proposals) >= HINT_AT)

    def dismiss(self) -> None:
        self._dismissed = True
        self.hide()
