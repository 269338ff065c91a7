"""`CallLogTable`: what the connected apps asked, newest first, in words.

The journal keeps only the time, the app, the tool, how many items went out and how it ended, never
a question or an answer; so this table can show everything it is given."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from memoir_desktop.core.apps.connected_apps import UNNAMED
from memoir_desktop.ui.shared.formatting import date_time, parse, short_time

VISIBLE_ROWS = 7  # a glance at the latest calls; the table scrolls for the rest


class CallLogTable(QTableWidget):
    def __init__(self, parent=None):
        super().__init__(0, 5, parent)
        self.setHorizontalHeaderLabels([self.tr("When"), self.tr("App"), self.tr("What it did"),
                                        self.tr("Items sent"), self.tr("Result")])
        self.setAccessibleName(self.tr("What the connected apps asked"))
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setWordWrap(False)
        # Never sideways: the one stretching column gives up room (its words elide, whole in the tooltip).
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        header = self.horizontalHeader()
        for column in range(5):
            header.setSectionResizeMode(column, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.Stretch)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self._fit_rows(1)

    def _fit_rows(self, rows: int) -> None:
        """As tall as the calls there are, up to VISIBLE_ROWS: a short log leaves no empty box behind."""
        shown = max(1, min(rows, VISIBLE_ROWS))
        self.setFixedHeight(self.horizontalHeader().sizeHint().height()
                            + self.verticalHeader().defaultSectionSize() * shown + 2 * self.frameWidth())

    @staticmethod
    def when_words(at: str) -> str:
        """Today's calls by their time alone: it leaves the room to what was done."""
        when = parse(at)
        return short_time(when) if when is not None and when.date() == date.today() else date_time(when)

    def tool_words(self, tool: str) -> str:
        return {"search_memories": self.tr("searched memories"),
                "list_memories": self.tr("listed memories"),
                "get_memory": self.tr("read one memory"),
                # Said for both ways it ends: a suggestion, or (when allowed) a memory added at once.
                "add_memory": self.tr("sent a memory to remember"),
                "on_this_day": self.tr("looked at this day in past years"),
                "recent_entries": self.tr("read recent entries"),
                "profile": self.tr("read what memoir knows about you")}.get(tool, tool)

    def outcome_words(self, outcome: str) -> str:
        return {"answered": self.tr("answered"), "refused": self.tr("refused"),
                "failed": self.tr("failed")}.get(outcome, outcome)

    def set_calls(self, calls: list[dict]) -> None:
        self.setRowCount(len(calls))
        self._fit_rows(len(calls))
        for row, call in enumerate(calls):
            app = self.tr("An app that gave no name") if call["app"] == UNNAMED else call["app"]
            cells = (self.when_words(call["at"]), app, self.tool_words(call["tool"]), str(call["items"]),
                     self.outcome_words(call["outcome"]))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column == 3:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.setItem(row, column, item)
