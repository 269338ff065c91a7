"""`DayNavigator`: a calendar (days with entries in bold), the list of past days, and the trash."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QDate, Qt, Signal
from PySide6.QtGui import QFont, QTextCharFormat
from PySide6.QtWidgets import QCalendarWidget, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from memoir_desktop.ui.shared.formatting import long_date
from memoir_desktop.ui.shared.resources import icon


def _qdate(day: date) -> QDate:
    return QDate(day.year, day.month, day.day)


class DayNavigator(QWidget):
    day_selected = Signal(object)  # datetime.date
    trash_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        self.today_button = QPushButton(icon("today"), self.tr("Today"))
        self.today_button.setToolTip(self.tr("Go to today (Ctrl+N)"))
        self.today_button.setAccessibleName(self.tr("Go to today"))
        self.today_button.clicked.connect(lambda: self.select(date.today(), emit=True))
        layout.addWidget(self.today_button)
        self.calendar = QCalendarWidget()
        self.calendar.setGridVisible(False)
        self.calendar.setVerticalHeaderFormat(QCalendarWidget.NoVerticalHeader)
        self.calendar.setMaximumDate(QDate.currentDate())
        self.calendar.setAccessibleName(self.tr("Journal calendar"))
        self.calendar.clicked.connect(lambda qd: self.day_selected.emit(qd.toPython()))
        layout.addWidget(self.calendar)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Days with entries"))
        self.list.itemActivated.connect(self._list_pick)
        self.list.itemClicked.connect(self._list_pick)
        layout.addWidget(self.list, 1)
        self.trash_button = QPushButton()
        self.trash_button.setObjectName("cardAction")
        self.trash_button.setToolTip(self.tr("Entries you moved to the trash: restore them or delete them forever"))
        self.trash_button.clicked.connect(self.trash_requested)
        layout.addWidget(self.trash_button)
        self.trash_count = 0
        self.set_trash_count(0)
        self._days: list[date] = []

    def set_days(self, days: list[date]) -> None:
        bold = QTextCharFormat()
        bold.setFontWeight(QFont.Bold)
        plain = QTextCharFormat()
        for old in self._days:
            self.calendar.setDateTextFormat(_qdate(old), plain)
        for day in days:
            self.calendar.setDateTextFormat(_qdate(day), bold)
        self._days = list(days)
        self.list.clear()
        for day in days:
            item = QListWidgetItem(long_date(day))
            item.setData(Qt.UserRole, day)
            self.list.addItem(item)

    def set_trash_count(self, count: int) -> None:
        self.trash_count = count
        self.trash_button.setText(self.tr("Trash ({count})").format(count=count))
        self.trash_button.setAccessibleName(self.tr("Trash, {count} entries").format(count=count))

    def select(self, day: date, emit: bool = False) -> None:
        self.calendar.setMaximumDate(QDate.currentDate())  # the app may stay open past midnight
        self.calendar.setSelectedDate(_qdate(day))
        for i in range(self.list.count()):
            item = self.list.item(i)
            item.setSelected(item.data(Qt.UserRole) == day)
        if emit:
            self.day_selected.emit(day)

    def _list_pick(self, item: QListWidgetItem) -> None:
        self.day_selected.emit(item.data(Qt.UserRole))
