"""`ConflictNoticeCard`: above the journal page's day, the one quiet notice that an entry was edited on two
computers before they synced. Nothing was lost: both versions are kept, one is the entry's text and the
other is in its history (which one is core/sync's rule: the edit stamped last, and an edit is stamped by
the round that sends it, so "the later one" would not always be the one typed later). Show opens the
entry's day and its history; both Show and Dismiss mark the notice seen (core/sync:
`dismiss_sync_notice`), so it is told once."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout


class ConflictNoticeCard(QFrame):
    show_requested = Signal(object)  # the Notice of the entry to show
    dismiss_requested = Signal(list)  # every Notice on the card

    def __init__(self, notices: list, parent=None):
        super().__init__(parent)
        self.notices = notices
        self.setObjectName("reflectionCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(6)
        title = QLabel(self.tr("Changed on two computers"))
        title.setObjectName("reflectionTitle")
        layout.addWidget(title)
        if len(notices) == 1:
            said = self.tr("An entry was changed on two of your computers before they synced. Both versions "
                           "are kept: one is shown, and the other is in the entry's history.")
        else:
            said = self.tr("%n entries were changed on two of your computers before they synced. Both "
                           "versions of each are kept: one is shown, and the other is in the entry's "
                           "history.", None, len(notices))
        self.message = QLabel(said)
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.message)
        row = QHBoxLayout()
        self.show_button = QPushButton(self.tr("Show the entry") if len(notices) == 1
                                       else self.tr("Show the first entry"))
        self.show_button.setObjectName("cardAction")
        self.show_button.setToolTip(self.tr("Open its day and its history, where the other version is"))
        self.show_button.clicked.connect(lambda: self.show_requested.emit(self.notices[0]))
        self.dismiss_button = QPushButton(self.tr("Dismiss"))
        self.dismiss_button.setObjectName("cardAction")
        self.dismiss_button.setToolTip(
            self.tr("Both versions stay in the history; this notice is not shown again"))
        self.dismiss_button.clicked.connect(lambda: self.dismiss_requested.emit(list(self.notices)))
        row.addWidget(self.show_button)
        row.addWidget(self.dismiss_button)
        row.addStretch(1)
        layout.addLayout(row)
