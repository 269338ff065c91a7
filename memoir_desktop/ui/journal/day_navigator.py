"""`DayNavigator`: a calendar (days with entries in bold), the list of past days, and the trash."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QDate, QEvent, Qt, Signal
from PySide6.QtGui import QFont, QTextCharFormat
from PySide6.QtWidgets import (
    QCalendarWidget,
    QFrame,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.shared.formatting import long_date
from memoir_desktop.ui.shared.resources import icon
from memoir_desktop.ui.shared.theme import colour


def _qdate(day: date) -> QDate:
    return QDate(day.year, day.month, day.day)


class DayNavigator(QWidget):
    day_selected = Signal(object)  # datetime.date
    trash_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        self.today_button = QPushButton(icon("today", colour("accent")), self.tr("Today"))
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
        # Arrow keys move through the days; Enter opens the one chosen (as a click does).
        self.calendar.activated.connect(lambda qd: self.day_selected.emit(qd.toPython()))
        self._weekend_colours()
        # The calendar draws no focus of its own: a frame around it takes the focus ring while its days
        # have the keyboard.
        self.calendar_frame = QFrame()
        self.calendar_frame.setObjectName("calendarFrame")
        framed = QVBoxLayout(self.calendar_frame)
        framed.setContentsMargins(0, 0, 0, 0)
        framed.addWidget(self.calendar)
        days = self.calendar.findChild(QTableView)
        if days is not None:  # the part of the calendar that takes the keyboard
            days.installEventFilter(self)
            days.setAccessibleName(self.tr("Journal calendar"))
            days.setAccessibleDescription(self.tr("Days in bold have entries. Arrow keys move between days; "
                                                  "Enter opens one."))
        layout.addWidget(self.calendar_frame)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Days with entries"))
        self.list.setMinimumHeight(40)
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

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.StyleChange, QEvent.PaletteChange):  # the theme changed: so do these
            self.today_button.setIcon(icon("today", colour("accent")))
            self._weekend_colours()

    def _weekend_colours(self) -> None:
        """Saturday and Sunday in the theme's red, which reads at 4.5:1 (Qt's own red does not)."""
        weekend = QTextCharFormat()
        weekend.setForeground(colour("delete"))
        for day in (Qt.Saturday, Qt.Sunday):
            self.calendar.setWeekdayTextFormat(day, weekend)

    def eventFilter(self, obj, event) -> bool:
        if event.type() in (QEvent.FocusIn, QEvent.FocusOut):
            self.calendar_frame.setProperty("focused", event.type() == QEvent.FocusIn)
            self.calendar_frame.style().unpolish(self.calendar_frame)
            self.calendar_frame.style().polish(self.calendar_frame)
        return False

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
