"""`StatsPage`: the journal at a glance — a writing calendar, the streak, entries and words per week,
memories added and changed per week, and the themes of each month. (The engine's timings moved to
Help → Diagnostics.) Every chart has readable axes, and its legend sits under it, never over the data."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QDate, QLocale
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from memoir_desktop.ui.reflection.writing_calendar import WritingCalendar
from memoir_desktop.ui.shared.qt_compat import listen
from memoir_desktop.ui.shared.refresh import RefreshWhenShown
from memoir_desktop.viewmodels.journal_stats import JournalStats, journal_stats

REFRESH_DELAY_MS = 1_500
BLUE, ORANGE, GREEN = "#3b82d0", "#e07b39", "#1e8a4c"


def _legend(items: list[tuple[str, str]]) -> QLabel:
    label = QLabel("&nbsp;&nbsp;&nbsp;".join(f"<span style='color:{color}'>■</span> {text}" for color, text in items))
    label.setObjectName("muted")
    return label


class StatsPage(QWidget):
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.data = JournalStats()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.NoFrame)
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

        grid = QGridLayout()
        grid.setHorizontalSpacing(16)
        self.entries_plot = self._plot(self.tr("Entries per week"))
        self.words_plot = self._plot(self.tr("Words per week"))
        self.memories_plot = self._plot(self.tr("Memories per week"))
        grid.addWidget(self.entries_plot, 0, 0)
        grid.addWidget(self.words_plot, 0, 1)
        grid.addWidget(self.memories_plot, 0, 2)
        grid.addWidget(_legend([(BLUE, self.tr("Entries"))]), 1, 0)
        grid.addWidget(_legend([(GREEN, self.tr("Words"))]), 1, 1)
        grid.addWidget(_legend([(BLUE, self.tr("Added")), (ORANGE, self.tr("Corrected or forgotten"))]), 1, 2)
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
        layout.addStretch(1)

        self.refresh = RefreshWhenShown(self, self._load, REFRESH_DELAY_MS)
        listen(backend.changed, self, lambda changes: self.refresh.changed() if changes.entries or changes.memories
                                else None)

    def _plot(self, title: str) -> pg.PlotWidget:
        fg = self.palette().color(QPalette.WindowText)
        widget = pg.PlotWidget()
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

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.refresh.shown()

    def reload(self) -> None:
        self.refresh.run()

    def _load(self) -> None:
        self.backend.read(journal_stats, self.show_stats)

    def _bars(self, widget: pg.PlotWidget, series: list[tuple[list[int], str]]) -> None:
        plot = widget.getPlotItem()
        plot.clear()
        weeks = self.data.week_starts
        width = 0.8 / len(series)
        for k, (values, color) in enumerate(series):
            xs = [i - 0.4 + width * (k + 0.5) for i in range(len(values))]
            plot.addItem(pg.BarGraphItem(x=xs, height=values, width=width * 0.9, brush=color, pen=None))
        # Week labels as dates ("3/9"), every other week so they never run into each other.
        ticks = [(i, f"{w.month}/{w.day}") for i, w in enumerate(weeks) if (len(weeks) - 1 - i) % 2 == 0]
        plot.getAxis("bottom").setTicks([ticks, []])
        top = max([max(v) if v else 0 for v, _ in series] + [1])
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
        self._bars(self.entries_plot, [(data.entries_per_week, BLUE)])
        self._bars(self.words_plot, [(data.words_per_week, GREEN)])
        self._bars(self.memories_plot, [(data.added_per_week, BLUE), (data.changed_per_week, ORANGE)])
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
        plot.plot([i for i, _ in points], [m for _, m in points], pen=pg.mkPen(BLUE, width=2), symbol="o",
                  symbolSize=7, symbolBrush=BLUE, symbolPen=None)
        names = {1: self.tr("bad"), 2: self.tr("low"), 3: self.tr("okay"), 4: self.tr("good"), 5: self.tr("great")}
        plot.getAxis("left").setTicks([list(names.items()), []])
        weeks = data.week_starts
        plot.getAxis("bottom").setTicks([[(i, f"{w.month}/{w.day}") for i, w in enumerate(weeks)
                                          if (len(weeks) - 1 - i) % 2 == 0], []])
        plot.setYRange(0.6, 5.4, padding=0)
        plot.setXRange(-0.6, len(weeks) - 0.4, padding=0)

    def _month(self, month) -> str:
        return QLocale().toString(QDate(month.year, month.month, 1), self.tr("MMMM yyyy"))
