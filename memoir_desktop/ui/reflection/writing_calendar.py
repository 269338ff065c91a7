"""`WritingCalendar`: the days written as a heatmap (weeks across, Monday to Sunday down), with its
month labels above and its legend below, so the legend never covers a day. Its shades are the theme's;
for a screen reader it is a stop that says how many days were written (the table under the charts has
the weeks in numbers)."""

from __future__ import annotations

from datetime import date, timedelta

from PySide6.QtCore import QLocale, QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from memoir_desktop.ui.shared.theme import colour

CELL, GAP, LEFT, TOP, BOTTOM = 16, 3, 34, 20, 28
SHADES = ("shade_0", "shade_1", "shade_2", "shade_3", "shade_4")  # the theme's, for 0, 1, 2, 3, 4+ entries



def month_labels(first: date, weeks: int, today: date) -> list[tuple[int, int]]:
    """(column, month) for each month the calendar shows: the first column, then the column that
    holds the month's 1st. Labelling by a column's Monday left out the current month until its
    first Monday (on 3 December the calendar ended at "Nov")."""
    out = [(0, first.month)]
    for week in range(weeks):
        for weekday in range(7):
            d = first + timedelta(weeks=week, days=weekday)
            if d.day == 1 and d <= today and week > 0:
                out.append((week, d.month))
    if len(out) > 1 and out[1][0] == 1:
        out.pop(0)  # two labels side by side would print over each other
    return out

class WritingCalendar(QWidget):
    def __init__(self, weeks: int = 26, parent=None):
        super().__init__(parent)
        self.weeks = weeks
        self.days: dict[date, int] = {}
        self.today = date.today()
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self.setFocusPolicy(Qt.TabFocus)
        self.setAccessibleName(self.tr("Writing calendar"))

    def set_days(self, days: dict[date, int], today: date) -> None:
        self.days, self.today = days, today
        written = sum(1 for d in days if self.first <= d <= today)
        self.setAccessibleDescription(self.tr("%n day(s) written in the last six months", None, written))
        self.update()

    @property
    def first(self) -> date:
        return self.today - timedelta(days=self.today.weekday()) - timedelta(weeks=self.weeks - 1)

    def sizeHint(self) -> QSize:
        return QSize(LEFT + self.weeks * (CELL + GAP) + 8, TOP + 7 * (CELL + GAP) + BOTTOM)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def cell_rect(self, d: date) -> QRectF:
        week = (d - self.first).days // 7
        return QRectF(LEFT + week * (CELL + GAP), TOP + d.weekday() * (CELL + GAP), CELL, CELL)

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        fg = colour("muted")
        p.setPen(fg)
        locale = QLocale()
        font = p.font()
        font.setPointSizeF(max(7.5, font.pointSizeF() - 1.5))
        p.setFont(font)
        for row, name in ((0, locale.dayName(1, QLocale.ShortFormat)), (2, locale.dayName(3, QLocale.ShortFormat)),
                          (4, locale.dayName(5, QLocale.ShortFormat))):
            p.drawText(QRectF(0, TOP + row * (CELL + GAP) - 2, LEFT - 6, CELL + 4),
                       Qt.AlignRight | Qt.AlignVCenter, name)
        labels = dict(month_labels(self.first, self.weeks, self.today))
        for week in range(self.weeks):
            monday = self.first + timedelta(weeks=week)
            if week in labels:
                p.setPen(fg)
                x = LEFT + week * (CELL + GAP)
                # The newest column's label would run past the edge: end it there instead.
                rect = QRectF(x, 0, 60, TOP - 2) if x + 60 <= self.width() else QRectF(self.width() - 60, 0, 60, TOP - 2)
                align = Qt.AlignLeft if x + 60 <= self.width() else Qt.AlignRight
                p.drawText(rect, align | Qt.AlignBottom, locale.monthName(labels[week], QLocale.ShortFormat))
            for weekday in range(7):
                d = monday + timedelta(days=weekday)
                if d > self.today:
                    continue
                n = self.days.get(d, 0)
                p.setPen(Qt.NoPen)
                p.setBrush(colour(SHADES[min(n, len(SHADES) - 1)]))
                p.drawRoundedRect(self.cell_rect(d), 3, 3)
        # The legend, under the calendar.
        y = TOP + 7 * (CELL + GAP) + 6
        x = LEFT + self.weeks * (CELL + GAP) - (len(SHADES) * (CELL + GAP)) - 60
        p.setPen(fg)
        p.drawText(QRectF(x - 70, y - 1, 64, CELL + 2), Qt.AlignRight | Qt.AlignVCenter, self.tr("Fewer"))
        for i, shade in enumerate(SHADES):
            p.setPen(Qt.NoPen)
            p.setBrush(colour(shade))
            p.drawRoundedRect(QRectF(x + i * (CELL + GAP), y, CELL, CELL), 3, 3)
        p.setPen(fg)
        p.drawText(QRectF(x + len(SHADES) * (CELL + GAP) + 4, y - 1, 70, CELL + 2), Qt.AlignLeft | Qt.AlignVCenter,
                   self.tr("More entries"))
        if self.hasFocus():  # the keyboard is here: the same ring as every other control
            p.setPen(QPen(colour("focus"), 2))
            p.setBrush(Qt.NoBrush)
            p.drawRoundedRect(QRectF(self.rect()).adjusted(1, 1, -1, -1), 4, 4)
        p.end()
