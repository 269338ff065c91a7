"""`StatsPage`: the journal at a glance — a writing calendar, the streak, entries and words per week,
memories added and changed per week, and the themes of each month. (The engine's timings moved to
Help → Diagnostics.) Every chart has readable axes, and its legend sits under it, never over the data.

For the keyboard and a screen reader each chart is a stop whose name is its title and whose description
says what it shows in numbers; "Show as a table" puts the same weeks in a table. Two series in one chart
differ by their fill's pattern as well as its colour, and the legend shows both. Colours are the theme's."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QDate, QEvent, QLocale, QRect, Qt
from PySide6.QtGui import QBrush, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.reflection.writing_calendar import WritingCalendar
from memoir_desktop.ui.shared.qt_compat import listen
from memoir_desktop.ui.shared.refresh import RefreshWhenShown
from memoir_desktop.ui.shared.theme import colour
from memoir_desktop.viewmodels.journal_stats import JournalStats, journal_stats

REFRESH_DELAY_MS = 1_500
SOLID, HATCHED = Qt.SolidPattern, Qt.BDiagPattern  # the first and the second series of one chart


def _brush(name: str, pattern: Qt.BrushStyle) -> QBrush:
    return QBrush(colour(name), pattern)


def _swatch(name: str, pattern: Qt.BrushStyle) -> QPixmap:
    """The legend's sample of a series: its colour and its pattern, edged."""
    pixmap = QPixmap(14, 14)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setPen(colour(name))
    painter.setBrush(_brush(name, pattern))
    painter.drawRect(QRect(0, 0, 13, 13))
    painter.end()
    return pixmap


def _legend(items: list[tuple[str, Qt.BrushStyle, str]]) -> QWidget:
    holder = QWidget()
    row = QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 0, 0)
    holder.swatches = []
    for name, pattern, text in items:
        sample = QLabel()
        sample.setPixmap(_swatch(name, pattern))
        holder.swatches.append((sample, name, pattern))
        row.addWidget(sample)
        words = QLabel(text)
        words.setObjectName("muted")
        row.addWidget(words)
        row.addSpacing(10)
    row.addStretch(1)
    return holder


class StatsPage(QWidget):
    # Long: the page built in reading order (totals, then each chart with its text alternative).
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.data = JournalStats()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.NoFrame)
        scroll.setFocusPolicy(Qt.NoFocus)  # the charts take the keyboard; the area scrolls to them
        outer.addWidget(scroll)
        body = QWidget()
        scroll.setWidget(body)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(10)
        self.summary = QLabel()
        self.summary.setObjectName("welcomeTitle")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.streak = QLabel()
        self.streak.setObjectName("muted")
        layout.addWidget(self.streak)
        self.top_row = QHBoxLayout()
        self.calendar = WritingCalendar()
        self.top_row.addWidget(self.calendar)
        self.top_row.addSpacing(24)
        layout.addLayout(self.top_row)

        self.table_button = QPushButton(self.tr("Show as a table"))
        self.table_button.setCheckable(True)
        self.table_button.setToolTip(self.tr("The weeks of the charts, in numbers"))
        self.table_button.toggled.connect(self._show_table)
        table_row = QHBoxLayout()
        table_row.addStretch(1)
        table_row.addWidget(self.table_button)
        layout.addLayout(table_row)

        grid = QGridLayout()
        grid.setHorizontalSpacing(16)
        self.entries_plot = self._plot(self.tr("Entries per week"))
        self.words_plot = self._plot(self.tr("Words per week"))
        self.memories_plot = self._plot(self.tr("Memories per week"))
        grid.addWidget(self.entries_plot, 0, 0)
        grid.addWidget(self.words_plot, 0, 1)
        grid.addWidget(self.memories_plot, 0, 2)
        self.legends = [_legend([("series_a", SOLID, self.tr("Entries"))]),
                        _legend([("series_c", SOLID, self.tr("Words"))]),
                        _legend([("series_a", SOLID, self.tr("Added")),
                                 ("series_b", HATCHED, self.tr("Corrected or forgotten"))])]
        for column, legend in enumerate(self.legends):
            grid.addWidget(legend, 1, column)
        self.charts = grid
        # Mood, when the user turned mood notes on (Settings → Memory) and some were noted.
        self.mood_plot = self._plot(self.tr("Mood by week"))
        self.mood_plot.hide()
        grid.addWidget(self.mood_plot, 2, 0, 1, 3)
        themes_box = QVBoxLayout()
        heading = QLabel(self.tr("Themes by month"))
        heading.setObjectName("reflectionTitle")
        themes_box.addWidget(heading)
        self.themes = QLabel()
        self.themes.setWordWrap(True)
        themes_box.addWidget(self.themes)
        themes_box.addStretch(1)
        self.top_row.addLayout(themes_box, 1)
        layout.addLayout(grid)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels([self.tr("Week of"), self.tr("Entries"), self.tr("Words"),
                                              self.tr("Added"), self.tr("Corrected or forgotten")])
        self.table.setAccessibleName(self.tr("Entries, words and memories per week"))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.table.setMinimumHeight(240)
        self.table.hide()
        layout.addWidget(self.table)
        layout.addStretch(1)

        self.refresh = RefreshWhenShown(self, self._load, REFRESH_DELAY_MS)
        listen(backend.changed, self, lambda changes: self.refresh.changed() if changes.entries or changes.memories
                                else None)

    def _plot(self, title: str) -> pg.PlotWidget:
        fg = self.palette().color(QPalette.WindowText)
        widget = pg.PlotWidget()
        widget.setObjectName("chart")  # the style sheet's focus ring
        widget.setFocusPolicy(Qt.TabFocus)  # a stop that says the chart in words (its description)
        widget.setAccessibleName(title)
        widget.setBackground(self.palette().color(QPalette.Base))
        widget.setFixedHeight(230)
        widget.setMouseEnabled(x=False, y=False)
        widget.hideButtons()
        plot = widget.getPlotItem()
        plot.setTitle(title, color=fg.name(), size="10pt")
        plot.showGrid(y=True, alpha=0.2)
        for axis in ("left", "bottom"):
            plot.getAxis(axis).setTextPen(fg)
            plot.getAxis(axis).setPen(pg.mkPen(fg, width=1))
        return widget

    def reload(self) -> None:
        self.refresh.run()

    def _load(self) -> None:
        self.backend.read(journal_stats, self.show_stats)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.StyleChange:  # another theme: the series' colours are its own
            for legend in getattr(self, "legends", []):
                for sample, name, pattern in legend.swatches:
                    sample.setPixmap(_swatch(name, pattern))
            if self.data.week_starts:
                self.show_stats(self.data)

    def _show_table(self, on: bool) -> None:
        self.table.setVisible(on)
        self.table_button.setText(self.tr("Hide the table") if on else self.tr("Show as a table"))

    def _fill_table(self, data: JournalStats) -> None:
        rows = list(zip(data.week_starts, data.entries_per_week, data.words_per_week, data.added_per_week,
                        data.changed_per_week, strict=False))
        self.table.setRowCount(len(rows))
        for r, (week, *numbers) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(self._week(week)))
            for c, n in enumerate(numbers, 1):
                item = QTableWidgetItem(f"{n:,}")
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(r, c, item)

    def _week(self, week) -> str:
        return QLocale().toString(QDate(week.year, week.month, week.day), QLocale.ShortFormat)

    def _summary(self, what: str, values: list[int]) -> str:
        """One series in words: its total over the weeks shown, its busiest week, and this week."""
        weeks = self.data.week_starts
        if not values or not any(values):
            return self.tr("{what}: none in the last {n} weeks.").format(what=what, n=len(values))
        top = max(range(len(values)), key=lambda i: values[i])
        return self.tr("{what}: {total} in the last {n} weeks, most in the week of {week} ({most}); this week "
                       "{now}.").format(what=what, total=f"{sum(values):,}", n=len(values),
                                        week=self._week(weeks[top]), most=f"{values[top]:,}",
                                        now=f"{values[-1]:,}")

    def _bars(self, widget: pg.PlotWidget, series: list[tuple[list[int], str, Qt.BrushStyle]]) -> None:
        plot = widget.getPlotItem()
        plot.clear()
        weeks = self.data.week_starts
        width = 0.8 / len(series)
        for k, (values, name, pattern) in enumerate(series):
            xs = [i - 0.4 + width * (k + 0.5) for i in range(len(values))]
            plot.addItem(pg.BarGraphItem(x=xs, height=values, width=width * 0.9, brush=_brush(name, pattern),
                                         pen=pg.mkPen(colour(name), width=1)))
        # Week labels as dates ("3/9"), every other week so they never run into each other.
        ticks = [(i, f"{w.month}/{w.day}") for i, w in enumerate(weeks) if (len(weeks) - 1 - i) % 2 == 0]
        plot.getAxis("bottom").setTicks([ticks, []])
        top = max([max(v) if v else 0 for v, *_ in series] + [1])
        plot.setYRange(0, top * 1.15, padding=0)
        plot.setXRange(-0.6, len(weeks) - 0.4, padding=0)
        # Whole numbers on the count axis.
        step = max(1, round(top / 4))
        plot.getAxis("left").setTicks([[(v, f"{v:,}") for v in range(0, int(top * 1.15) + 1, step)], []])

    def show_stats(self, data: JournalStats) -> None:
        self.data = data
        self.calendar.set_days(data.days, data.today)
        if data.empty:
            self.summary.setText(self.tr("Nothing written yet. Your calendar fills in as you write."))
            self.streak.setText("")
        else:
            self.summary.setText(self.tr("{entries} entries on {days} days, {words} words in all").format(
                entries=f"{data.entries:,}", days=f"{len(data.days):,}", words=f"{data.words:,}"))
            self.streak.setText(self.tr("Written %n day(s) in a row", None, data.streak) + " · "
                                + self.tr("longest run: %n day(s)", None, data.longest))
        self._bars(self.entries_plot, [(data.entries_per_week, "series_a", SOLID)])
        self._bars(self.words_plot, [(data.words_per_week, "series_c", SOLID)])
        self._bars(self.memories_plot, [(data.added_per_week, "series_a", SOLID),
                                        (data.changed_per_week, "series_b", HATCHED)])
        self.entries_plot.setAccessibleDescription(self._summary(self.tr("Entries"), data.entries_per_week))
        self.words_plot.setAccessibleDescription(self._summary(self.tr("Words"), data.words_per_week))
        self.memories_plot.setAccessibleDescription(
            self._summary(self.tr("Added"), data.added_per_week) + " "
            + self._summary(self.tr("Corrected or forgotten"), data.changed_per_week))
        self._fill_table(data)
        self._moods(data)
        lines = [f"<b>{self._month(month)}</b>: "
                 + ", ".join(words) for month, words in reversed(data.themes_by_month) if words]
        self.themes.setText("<br>".join(lines) or self.tr("Themes appear once you have written a few entries."))

    def _moods(self, data: JournalStats) -> None:
        self.mood_plot.setVisible(data.has_moods)
        if not data.has_moods:
            return
        plot = self.mood_plot.getPlotItem()
        plot.clear()
        points = [(i, m) for i, m in enumerate(data.mood_per_week) if m is not None]
        plot.plot([i for i, _ in points], [m for _, m in points], pen=pg.mkPen(colour("series_a"), width=2),
                  symbol="o", symbolSize=7, symbolBrush=colour("series_a"), symbolPen=None)
        names = {1: self.tr("bad"), 2: self.tr("low"), 3: self.tr("okay"), 4: self.tr("good"), 5: self.tr("great")}
        plot.getAxis("left").setTicks([list(names.items()), []])
        weeks = data.week_starts
        plot.getAxis("bottom").setTicks([[(i, f"{w.month}/{w.day}") for i, w in enumerate(weeks)
                                          if (len(weeks) - 1 - i) % 2 == 0], []])
        plot.setYRange(0.6, 5.4, padding=0)
        plot.setXRange(-0.6, len(weeks) - 0.4, padding=0)
        self.mood_plot.setAccessibleDescription("; ".join(
            f"{self._week(weeks[i])}: {names[min(5, max(1, round(m)))]}" for i, m in points))

    def _month(self, month) -> str:
        return QLocale().toString(QDate(month.year, month.month, 1), self.tr("MMMM yyyy"))
