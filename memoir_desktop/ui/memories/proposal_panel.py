"""`ProposalPanel`: changes the AI wanted to make but held for you (your edits, or too many at once)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from memoir_desktop.ui.shared.a11y import short
from memoir_desktop.ui.shared.theme import colour


class ProposalPanel(QFrame):
    resolve = Signal(int, bool)  # proposal id, accept

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("proposalPanel")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self.title = QLabel()
        self.title.setObjectName("opsTitle")
        self._layout.addWidget(self.title)
        self._rows: list[QWidget] = []
        self.proposals: list[dict] = []
        self.hide()

    def _reason(self, reason: str) -> str:
        return {"user-edited memory": self.tr("you edited this memory"),
                "over the per-turn invalidation limit": self.tr("many memories changed at once")}.get(reason, reason)

    def set_proposals(self, proposals: list[dict]) -> None:
        self.proposals = proposals
        for row in self._rows:
            row.deleteLater()
        self._rows = []
        self.setVisible(bool(proposals))
        self.title.setText(self.tr("The AI is waiting for your OK on %n change(s)", None, len(proposals)))
        for p in proposals:
            row = QWidget()
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 2, 0, 2)
            if p.get("event") == "DELETE":
                what = self.tr("Forget: {old}").format(old=html.escape(p.get("memory", "")))
            else:
                what = self.tr("Change: <s>{old}</s> → {new}").format(
                    old=html.escape(p.get("memory", "")), new=html.escape(p.get("proposed") or ""))
            why = html.escape(self._reason(p.get("reason", "")))
            label = QLabel(f"{what} <span style='color:{colour('muted').name()}'>({why})</span>")
            label.setTextFormat(Qt.RichText)
            label.setWordWrap(True)
            line.addWidget(label, 1)
            accept = QPushButton(self.tr("Accept"))
            about = short(p.get("memory", ""))
            accept.setAccessibleName(self.tr("Accept the AI's change: {text}").format(text=about))
            accept.clicked.connect(lambda _=False, pid=p["id"]: self.resolve.emit(pid, True))
            reject = QPushButton(self.tr("Keep mine"))
            reject.setAccessibleName(self.tr("Keep mine: {text}").format(text=about))
            reject.clicked.connect(lambda _=False, pid=p["id"]: self.resolve.emit(pid, False))
            line.addWidget(accept)
            line.addWidget(reject)
            self._layout.addWidget(row)
            self._rows.append(row)
