"""`MemoryCard`: one remembered fact, its dates, where it came from, and what can be done to it.

For the keyboard and a screen reader the card is one item: Tab lands on it, its name is the memory's
words and its description the rest of the card (dates, source, marks); Up and Down go to the card
above or below. Its buttons say which memory they act on ("Forget: 고양이 이름은 보리다")."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from memoir_desktop.core.temporal import recurring
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.shared.a11y import focus_stop, short
from memoir_desktop.ui.shared.formatting import short_date


class MemoryCard(QFrame):
    edit_requested = Signal(dict)
    forget_requested = Signal(dict)
    restore_requested = Signal(dict)
    history_requested = Signal(dict)
    source_requested = Signal(dict)

    # Long: the card built in reading order (text, when, where from, actions).
    def __init__(self, memory: dict, parent=None):
        super().__init__(parent)
        self.memory = memory
        self.setObjectName("memoryCard")
        self.setFocusPolicy(Qt.TabFocus)
        forgotten = memory.get("state") != "active"
        self.setProperty("forgotten", forgotten)
        words = short(memory.get("memory", ""))
        marks: list[str] = []
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
            marks.append(self.tr("Forgotten"))
        if memory.get("user_edited"):
            badge = self._badge(self.tr("Protected"), "badge")
            badge.setToolTip(self.tr("You wrote or edited this memory, so memoir will not change it or merge it "
                                     "with others on its own: the AI asks you first."))
            badge.setAccessibleDescription(badge.toolTip())
            top.addWidget(badge, 0, Qt.AlignTop)
            marks.append(self.tr("Protected"))
        if memory.get("memory_type") == "procedural":
            top.addWidget(self._badge(self.tr("Procedure"), "badge"), 0, Qt.AlignTop)
            marks.append(self.tr("Procedure"))
        layout.addLayout(top)

        meta = QHBoxLayout()
        meta.setSpacing(6)
        self.meta = QLabel(self._dates())
        self.meta.setObjectName("cardMeta")
        meta.addWidget(self.meta)
        self.source_button: QPushButton | None = None
        origin_text = ""
        if memory.get("source_entry_id") is not None:
            source = QPushButton(self.tr("From your journal of {day} ›").format(
                day=short_date(memory.get("created_at"))))
            source.setObjectName("linkButton")
            source.setCursor(Qt.PointingHandCursor)
            source.setToolTip(self.tr("Open the journal entry this memory came from"))
            source.setAccessibleName(self.tr("Open the entry it came from: {text}").format(text=words))
            source.clicked.connect(lambda: self.source_requested.emit(self.memory))
            meta.addWidget(source)
            self.source_button = source
            origin_text = source.text().rstrip(" ›")
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
            origin_text = said
        meta.addStretch(1)
        layout.addLayout(meta)

        actions = QHBoxLayout()
        actions.setSpacing(6)
        self.edit_button = self._action(self.tr("Edit"), self.tr("Edit: {text}").format(text=words),
                                        self.tr("Edit this memory"), self.edit_requested)
        self.edit_button.setEnabled(not forgotten)
        if forgotten:
            self.state_button = self._action(self.tr("Restore"), self.tr("Restore: {text}").format(text=words),
                                             self.tr("Restore this memory"), self.restore_requested)
        else:
            self.state_button = self._action(self.tr("Forget"), self.tr("Forget: {text}").format(text=words),
                                             self.tr("Forget this memory"), self.forget_requested)
        self.history_button = self._action(self.tr("History"), self.tr("History: {text}").format(text=words),
                                           self.tr("Show the history of this memory"), self.history_requested)
        for button in (self.edit_button, self.state_button, self.history_button):
            actions.addWidget(button)
        actions.addStretch(1)
        layout.addLayout(actions)
        self.setAccessibleName(memory.get("memory", ""))
        self.setAccessibleDescription(" · ".join(p for p in (*marks, self._dates(), origin_text) if p))

    # -- the keyboard -----------------------------------------------------------------------------------

    def role_of(self, widget: QWidget | None) -> str:
        """Which part of the card `widget` is ("card", "edit", "state", "history", "source")."""
        for role, part in (("edit", self.edit_button), ("state", self.state_button),
                           ("history", self.history_button), ("source", self.source_button)):
            if part is not None and widget is part:
                return role
        return "card"

    def widget_for(self, role: str) -> QWidget:
        """The part of the card for `role`, or the card itself (a forgotten memory's Edit is disabled)."""
        part = {"edit": self.edit_button, "state": self.state_button, "history": self.history_button,
                "source": self.source_button}.get(role)
        return part if part is not None and part.isEnabled() else self

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key_Up, Qt.Key_Down):
            cards = [c for c in self.parentWidget().findChildren(MemoryCard) if c.isVisible()] \
                if self.parentWidget() is not None else []
            cards.sort(key=lambda c: c.y())
            i = cards.index(self) + (1 if event.key() == Qt.Key_Down else -1) if self in cards else -1
            if 0 <= i < len(cards):
                focus_stop(cards[i], event.key() == Qt.Key_Down)
            event.accept()
            return
        super().keyPressEvent(event)

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

    def _action(self, text: str, accessible: str, tip: str, signal) -> QPushButton:
        button = QPushButton(text)
        button.setAccessibleName(accessible)
        button.setToolTip(tip)
        button.setObjectName("cardAction")
        button.setCursor(Qt.PointingHandCursor)
        button.clicked.connect(lambda: signal.emit(self.memory))
        return button
