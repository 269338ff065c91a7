"""`MemoryCard`: one remembered fact, its dates, where it came from, and what can be done to it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from memoir_desktop.core.temporal import recurring
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.shared.formatting import short_date


class MemoryCard(QFrame):
    edit_requested = Signal(dict)
    forget_requested = Signal(dict)
    restore_requested = Signal(dict)
    history_requested = Signal(dict)
    source_requested = Signal(dict)

    def __init__(self, memory: dict, parent=None):
        super().__init__(parent)
        self.memory = memory
        self.setObjectName("memoryCard")
        forgotten = memory.get("state") != "active"
        self.setProperty("forgotten", forgotten)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 8)
        layout.setSpacing(4)

        top = QHBoxLayout()
        self.text = QLabel(memory.get("memory", ""))
        self.text.setObjectName("cardText")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        top.addWidget(self.text, 1)
        if forgotten:
            top.addWidget(self._badge(self.tr("Forgotten"), "badgeForgotten"), 0, Qt.AlignTop)
        if memory.get("user_edited"):
            badge = self._badge(self.tr("Protected"), "badge")
            badge.setToolTip(self.tr("You wrote or edited this memory, so memoir will not change it or merge it "
                                     "with others on its own: the AI asks you first."))
            badge.setAccessibleDescription(badge.toolTip())
            top.addWidget(badge, 0, Qt.AlignTop)
        if memory.get("memory_type") == "procedural":
            top.addWidget(self._badge(self.tr("Procedure"), "badge"), 0, Qt.AlignTop)
        layout.addLayout(top)

        meta = QHBoxLayout()
        meta.setSpacing(6)
        self.meta = QLabel(self._dates())
        self.meta.setObjectName("cardMeta")
        meta.addWidget(self.meta)
        if memory.get("source_entry_id") is not None:
            source = QPushButton(self.tr("From your journal of {day} ›").format(
                day=short_date(memory.get("created_at"))))
            source.setObjectName("linkButton")
            source.setCursor(Qt.PointingHandCursor)
            source.setToolTip(self.tr("Open the journal entry this memory came from"))
            source.setAccessibleName(self.tr("Open source entry"))
            source.clicked.connect(lambda: self.source_requested.emit(self.memory))
            meta.addWidget(source)
        else:
            meta_data = memory.get("metadata") or {}
            if meta_data.get("suggested_by"):  # another app suggested it and the diarist accepted
                said = self.tr("Suggested by {app}").format(app=meta_data["suggested_by"])
            elif meta_data.get("added_by"):  # an app allowed to add memories directly
                said = self.tr("Added by {app}").format(app=meta_data["added_by"])
            else:
                said = self.tr("Added directly")
            origin = QLabel(said)
            origin.setTextFormat(Qt.PlainText)  # an app's name is its own words, never markup
            origin.setObjectName("cardMeta")
            meta.addWidget(origin)
        meta.addStretch(1)
        layout.addLayout(meta)

        actions = QHBoxLayout()
        actions.setSpacing(6)
        self.edit_button = self._action(self.tr("Edit"), self.tr("Edit this memory"), self.edit_requested)
        self.edit_button.setEnabled(not forgotten)
        if forgotten:
            self.state_button = self._action(self.tr("Restore"), self.tr("Restore this memory"),
                                             self.restore_requested)
        else:
            self.state_button = self._action(self.tr("Forget"), self.tr("Forget this memory"),
                                             self.forget_requested)
        self.history_button = self._action(self.tr("History"), self.tr("Show the history of this memory"),
                                           self.history_requested)
        for button in (self.edit_button, self.state_button, self.history_button):
            actions.addWidget(button)
        actions.addStretch(1)
        layout.addLayout(actions)

    def _dates(self) -> str:
        m = self.memory
        parts = [self.tr("Recorded {date}").format(date=short_date(m.get("created_at")))]
        if m.get("updated_at") and m.get("updated_at") != m.get("created_at"):
            parts.append(self.tr("Changed {date}").format(date=short_date(m.get("updated_at"))))
        about = m.get("about")
        if about:
            span = about[0] if about[0] == about[1] else f"{about[0]} ~ {about[1]}"
            parts.append(self.tr("About {span}").format(span=span))
        if m.get("recurrence"):
            # A habit: it repeats, it did not happen once on the day it was recorded.
            parts.append(self.tr("Repeats {when}").format(when=recurring.describe(m["recurrence"], i18n.current())))
        return " · ".join(parts)

    def _badge(self, text: str, name: str) -> QLabel:
        badge = QLabel(text)
        badge.setObjectName(name)
        return badge

    def _action(self, text: str, accessible: str, signal) -> QPushButton:
        button = QPushButton(text)
        button.setAccessibleName(accessible)
        button.setToolTip(accessible)
        button.setObjectName("cardAction")
        button.setCursor(Qt.PointingHandCursor)
        button.clicked.connect(lambda: signal.emit(self.memory))
        return button
