"""`HistoryDialog`: the full timeline of one memory (ADD → UPDATE → DELETE / RESTORE)."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout

from memoir_desktop.ui.shared.formatting import date_time
from memoir_desktop.ui.shared.glyphs import OP_SYMBOLS
from memoir_desktop.ui.shared.theme import colours

# Each event's colour is the theme's (4.5:1 on the timeline in both themes); its symbol and word say it too.
_COLOUR_NAMES = {"ADD": "add", "UPDATE": "update", "DELETE": "delete", "RESTORE": "accent", "CONSOLIDATE": "muted"}


class HistoryDialog(QDialog):
    def __init__(self, memory: dict, parent=None):
        super().__init__(parent)
        self.memory = memory
        self.rows: list[dict] = []
        self.setWindowTitle(self.tr("Memory history"))
        self.resize(560, 440)
        layout = QVBoxLayout(self)
        title = QLabel(memory.get("memory", ""))
        title.setObjectName("welcomeTitle")
        title.setWordWrap(True)
        layout.addWidget(title)
        self.timeline = QTextBrowser()
        self.timeline.setOpenLinks(False)
        self.timeline.setAccessibleName(self.tr("History timeline"))
        self.timeline.setPlainText(self.tr("Loading…"))
        layout.addWidget(self.timeline, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)

    def _event_label(self, event: str) -> str:
        return {"ADD": self.tr("Added"), "UPDATE": self.tr("Changed"), "DELETE": self.tr("Forgotten"),
                "RESTORE": self.tr("Restored"), "CONSOLIDATE": self.tr("Merged")}.get(event, event)

    def _actor_label(self, actor: str) -> str:
        return {"llm": self.tr("by the AI"), "user": self.tr("by you"),
                "system": self.tr("by the app")}.get(actor, actor)

    def set_rows(self, rows: list[dict]) -> None:
        self.rows = rows
        theme = colours()
        muted = theme["muted"]
        parts = []
        for row in rows:
            event = row.get("event", "")
            colour = theme[_COLOUR_NAMES.get(event, "muted")]
            head = (f"<span style='color:{colour}; font-weight:600'>{OP_SYMBOLS.get(event, '·')} "
                    f"{html.escape(self._event_label(event))}</span> &nbsp;"
                    f"<span style='color:{muted}'>{html.escape(date_time(row.get('created_at')))} · "
                    f"{html.escape(self._actor_label(row.get('actor', '')))}</span>")
            old, new = row.get("old_memory"), row.get("new_memory")
            if event == "UPDATE" and old and new:
                body = f"<s style='color:{muted}'>{html.escape(old)}</s><br>→ {html.escape(new)}"
            else:
                body = html.escape(new or old or "")
            extra = ""
            if row.get("note"):
                extra = f"<br><i style='color:{muted}'>{html.escape(row['note'])}</i>"
            if row.get("entry_id") is not None:
                extra += f"<br><span style='color:{muted}'>{html.escape(self.tr('from a journal entry'))}</span>"
            parts.append(f"<p style='margin-bottom:10px'>{head}<br>{body}{extra}</p>")
        self.timeline.setHtml("".join(parts) or html.escape(self.tr("No history.")))

    def show_error(self, message: str) -> None:
        self.timeline.setPlainText(message)
