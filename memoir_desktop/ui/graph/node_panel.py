"""`NodePanel`: one node of the memory graph, every relation it has had (with dates), its sources.

Invalid relations stay listed, struck through, with when the fact held and when the journal learned
and dropped it: the graph keeps history, and this is where the user reads it.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from memoir_desktop.ui.graph.canvas import type_color
from memoir_desktop.ui.shared.formatting import short_date


def type_name(type_: str) -> str:
    names = {"person": QCoreApplication.translate("NodePanel", "Person"),
             "place": QCoreApplication.translate("NodePanel", "Place"),
             "organization": QCoreApplication.translate("NodePanel", "Organization"),
             "food": QCoreApplication.translate("NodePanel", "Food"),
             "activity": QCoreApplication.translate("NodePanel", "Activity"),
             "preference": QCoreApplication.translate("NodePanel", "Preference"),
             "pet": QCoreApplication.translate("NodePanel", "Pet"),
             "event": QCoreApplication.translate("NodePanel", "Event"),
             "thing": QCoreApplication.translate("NodePanel", "Thing"),
             "tag": QCoreApplication.translate("NodePanel", "Tag")}
    return names.get(type_, type_)


class NodePanel(QFrame):
    openEntryRequested = Signal(int)  # journal entry id
    nodeRequested = Signal(int)  # a neighbour's name was clicked

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("nodePanel")
        self.setMinimumWidth(260)
        self.detail: dict | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # rows wrap instead
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # its links and buttons take the keyboard; it scrolls to them
        outer.addWidget(scroll)
        body = QWidget()
        scroll.setWidget(body)
        self.body = QVBoxLayout(body)
        self.body.setContentsMargins(12, 10, 12, 10)
        self.body.setSpacing(8)
        self.clear()

    def _reset(self) -> None:
        while self.body.count():
            item = self.body.takeAt(0)
            if item.widget() is not None:
                item.widget().hide()  # gone at once, not when the event loop next deletes it
                item.widget().deleteLater()
        self.rows: list[QLabel] = []

    def clear(self) -> None:
        self.detail = None
        self._reset()
        hint = QLabel(self.tr("Click a node to see what the journal knows about it."))
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        self.body.addWidget(hint)
        self.body.addStretch(1)

    def show_detail(self, detail: dict | None) -> None:
        if detail is None:
            self.clear()
            return
        self.detail = detail
        self._reset()
        node = detail["node"]
        title = QLabel(html.escape(node["name"]))
        title.setObjectName("placeholderTitle")
        title.setWordWrap(True)
        title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.addWidget(title)
        colour = type_color(node["type"]).name()
        meta = QLabel(f"<span style='color:{colour}'>●</span> {html.escape(type_name(node['type']))} · "
                      + html.escape(self.tr("mentioned {count}× · since {date}").format(
                          count=node.get("mentions", 1), date=short_date(node.get("created_at")))))
        meta.setObjectName("muted")
        self.body.addWidget(meta)

        edges = sorted(detail["edges"], key=lambda e: not e["valid"])  # current facts first, then history
        heading = QLabel(self.tr("Relations ({count})").format(count=len(edges)))
        heading.setObjectName("dayHeader")
        self.body.addWidget(heading)
        for edge in edges:
            self.body.addWidget(self._edge_row(edge, node["id"]))

        sources = detail.get("source_entry_ids") or []
        if sources:
            heading = QLabel(self.tr("Source entries"))
            heading.setObjectName("dayHeader")
            self.body.addWidget(heading)
            dates = detail.get("entry_dates") or {}
            for entry_id in sources:
                text = (self.tr("Open the entry of {date}").format(date=short_date(dates[entry_id]))
                        if entry_id in dates else self.tr("Open entry #{id}").format(id=entry_id))
                self.body.addWidget(self._entry_button(entry_id, text))
        self.body.addStretch(1)

    def edge_texts(self) -> list[str]:
        """The relation rows as plain text (for tests and screen readers)."""
        return [row.accessibleDescription() for row in self.rows]

    def _edge_row(self, e: dict, node_id: int) -> QFrame:
        if e.get("kind") == "mention":
            return self._mention_row(e, node_id)
        frame = QFrame()
        frame.setObjectName("memoryCard")
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)

        def end(name: str, nid: int) -> str:
            text = html.escape(name)
            return f"<b>{text}</b>" if nid == node_id else f"<a href='node:{nid}'>{text}</a>"

        relation = html.escape(e["relation"])
        if not e["valid"]:
            relation = f"<s>{relation}</s>"
        line = QLabel(f"{end(e['source'], e['source_id'])} —{relation}→ {end(e['target'], e['target_id'])}")
        line.setWordWrap(True)
        _keyboard_links(line)
        line.linkActivated.connect(lambda href: self.nodeRequested.emit(int(href.split(":", 1)[1])))
        layout.addWidget(line)

        state = self.tr("still true") if e["valid"] else self.tr("no longer true")
        start, end = short_date(e.get("valid_from")), short_date(e.get("valid_to"))
        if start and end:
            held = self.tr("true from {start} to {end}").format(start=start, end=end)
        elif end:
            held = self.tr("true until {end}").format(end=end)
        else:
            held = self.tr("true since {start}").format(start=start or "?")
        known = self.tr("recorded {date}").format(date=short_date(e.get("recorded_at")))
        if e.get("expired_at"):
            known += " · " + self.tr("invalidated {date}").format(date=short_date(e["expired_at"]))
        # Fact time is mostly unknown (the text rarely says): then one line is enough.
        told = e.get("valid_from") or e.get("valid_to")
        dates = QLabel(f"{state} · {held}\n{known}" if told or e.get("expired_at") else f"{state} · {known}")
        dates.setObjectName("muted" if e["valid"] else "opDelete")
        dates.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(dates, 1)
        if e.get("source_entry_id") is not None:
            row.addWidget(self._entry_button(e["source_entry_id"], self.tr("Open source entry")),
                          0, Qt.AlignmentFlag.AlignBottom)
        layout.addLayout(row)
        plain = f"{e['source']} -[{e['relation']}]-> {e['target']} · {state} · {held} · {known}"
        line.setAccessibleDescription(plain)
        frame.setAccessibleName(plain)
        self.rows.append(line)
        return frame

    def _mention_row(self, e: dict, node_id: int) -> QFrame:
        """Two names one or more entries mention together: no fact, so no dates of truth, only how often."""
        frame = QFrame()
        frame.setObjectName("memoryCard")
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        other, other_id = (e["target"], e["target_id"]) if e["source_id"] == node_id else (e["source"], e["source_id"])
        line = QLabel(f"<a href='node:{other_id}'>{html.escape(other)}</a> · {html.escape(e['relation'])}")
        line.setWordWrap(True)
        _keyboard_links(line)
        line.linkActivated.connect(lambda href: self.nodeRequested.emit(int(href.split(":", 1)[1])))
        layout.addWidget(line)
        count = QLabel(self.tr("in %n entry(ies)", None, int(e.get("entries", 1))))
        count.setObjectName("muted")
        layout.addWidget(count)
        plain = f"{other} · {e['relation']} · {count.text()}"
        line.setAccessibleDescription(plain)
        frame.setAccessibleName(plain)
        self.rows.append(line)
        return frame

    def _entry_button(self, entry_id: int, text: str) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName("linkButton")
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(lambda: self.openEntryRequested.emit(entry_id))
        return button


def _keyboard_links(label: QLabel) -> None:
    """A name in a row opens that node from the keyboard too (Tab to it, Enter), and a screen reader
    reads the row."""
    label.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                  | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
    label.setAccessibleName(html.unescape(re.sub(r"<[^>]+>", "", label.text())))
