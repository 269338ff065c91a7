"""`SuggestionPanel`: memories other apps (Claude Desktop, Cursor…) asked memoir to remember, waiting
for the diarist's yes or no. Nothing an app suggests becomes a memory before that."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from memoir_desktop.ui.shared.a11y import short


class SuggestionPanel(QFrame):
    decide = Signal(int, bool)  # suggestion id, accept

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("suggestionPanel")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self.title = QLabel()
        self.title.setObjectName("opsTitle")
        self._layout.addWidget(self.title)
        self._rows: list[QWidget] = []
        self.suggestions: list[dict] = []
        self.hide()

    def set_suggestions(self, suggestions: list[dict]) -> None:
        self.suggestions = suggestions
        for row in self._rows:
            row.deleteLater()
        self._rows = []
        self.setVisible(bool(suggestions))
        self.title.setText(self.tr("%n memory(ies) suggested by other apps: kept only if you accept",
                                   None, len(suggestions)))
        for s in suggestions:
            row = QWidget()
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 2, 0, 2)
            # Plain text: the words come from another program and are shown, never interpreted.
            label = QLabel(self.tr("{app} suggests remembering: {text}").format(app=s["app"], text=s["text"]))
            label.setTextFormat(Qt.PlainText)
            label.setWordWrap(True)
            line.addWidget(label, 1)
            accept = QPushButton(self.tr("Accept"))
            accept.setAccessibleName(self.tr("Remember what {app} suggests: {text}").format(
                app=s["app"], text=short(s["text"])))
            accept.clicked.connect(lambda _=False, sid=s["id"], r=row: self._decide(sid, True, r))
            reject = QPushButton(self.tr("Reject"))
            reject.setAccessibleName(self.tr("Do not remember what {app} suggests: {text}").format(
                app=s["app"], text=short(s["text"])))
            reject.clicked.connect(lambda _=False, sid=s["id"], r=row: self._decide(sid, False, r))
            line.addWidget(accept, 0, Qt.AlignTop)
            line.addWidget(reject, 0, Qt.AlignTop)
            self._layout.addWidget(row)
            self._rows.append(row)

    def _decide(self, suggestion_id: int, accept: bool, row: QWidget) -> None:
        # Its buttons go quiet at once: a second click would decide a suggestion already decided.
        for button in row.findChildren(QPushButton):
            button.setEnabled(False)
        self.decide.emit(suggestion_id, accept)
