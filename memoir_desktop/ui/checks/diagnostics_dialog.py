"""`DiagnosticsDialog` (Help → Diagnostics): how fast each stage of the memory engine is (p50 / p95 over
time) and how many tokens a turn costs. For whoever tunes the engine; the Stats tab is the diarist's."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from memoir_desktop.ui.shared.refresh import RefreshWhenShown
from memoir_desktop.ui.shared.theme import colour
from memoir_desktop.viewmodels.stats_series import CHART_STAGES, StatsData, build_stats

REFRESH_DELAY_MS = 1_500  # coalesce bursts of finished jobs into one redraw


class DiagnosticsDialog(QDialog):
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Diagnostics"))
        self.resize(1000, 680)
        self.backend = backend
        self.data = StatsData()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        top = QHBoxLayout()
        self.summary = QLabel()
        self.summary.setObjectName("muted")
        self.summary.setWordWrap(True)
        top.addWidget(self.summary, 1)
        refresh = QPushButton(self.tr("Refresh"))
        refresh.setAccessibleName(self.tr("Refresh statistics"))
        refresh.clicked.connect(self.reload)
        top.addWidget(refresh)
        layout.addLayout(top)

        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels([self.tr("Stage"), self.tr("Samples"), self.tr("p50 (ms)"),
                                              self.tr("p95 (ms)"), self.tr("AI usage")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.table.setMaximumHeight(190)
        self.table.setAccessibleName(self.tr("Latency per stage"))
        layout.addWidget(self.table)

        self.charts = pg.GraphicsLayoutWidget()
        self.charts.setObjectName("chart")  # the style sheet's focus ring
        self.charts.setAccessibleName(self.tr("Speed and AI usage charts"))
        self.charts.setAccessibleDescription(self.tr("The table above gives the same measurements in numbers."))
        layout.addWidget(self.charts, 1)
        self.plots: dict[str, pg.PlotItem] = {}
        self._build_plots()

        self.refresh = RefreshWhenShown(self, self._load, REFRESH_DELAY_MS)
        # A method of the dialog, not of its helper: Qt drops the connection when the dialog is
        # deleted (on close), so a job finishing later never calls into a deleted dialog.
        backend.job_finished.connect(self._job_finished)

    def _job_finished(self, _job: dict) -> None:
        self.refresh.changed()

    def _stage_name(self, stage: str) -> str:
        return {"extraction": self.tr("Extraction"), "update": self.tr("Update"), "search": self.tr("Search"),
                "answer": self.tr("Answer"), "embedding": self.tr("Embedding"), "summary": self.tr("Summary"),
                "graph": self.tr("Graph")}.get(stage, stage)

    def _build_plots(self) -> None:
        fg = self.palette().color(QPalette.WindowText)
        self.charts.setBackground(self.palette().color(QPalette.Base))
        titles = [(s, self.tr("{stage} latency (ms)").format(stage=self._stage_name(s))) for s in CHART_STAGES]
        titles.append(("tokens", self.tr("AI usage per entry")))
        for i, (key, title) in enumerate(titles):
            plot = self.charts.addPlot(row=i // 3, col=i % 3, title=title,
                                       axisItems={"bottom": pg.DateAxisItem()})
            plot.titleLabel.setText(title, color=fg.name(), size="10pt")
            plot.showGrid(x=True, y=True, alpha=0.2)
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTextPen(fg)
                plot.getAxis(axis).setPen(pg.mkPen(fg, width=1))
            if key != "tokens":
                plot.addLegend(offset=(-4, 4), labelTextColor=fg, labelTextSize="8pt")
            self.plots[key] = plot

    def _mark_empty(self, plot: pg.PlotItem, empty: bool) -> None:
        """An empty chart says so, instead of showing meaningless axes."""
        for axis in ("left", "bottom"):
            plot.getAxis(axis).setStyle(showValues=not empty)
        if empty:
            text = pg.TextItem(self.tr("No data yet"), color=self.palette().color(QPalette.PlaceholderText),
                               anchor=(0.5, 0.5))
            plot.addItem(text)
            text.setPos(0.5, 0.5)
            plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        else:
            plot.enableAutoRange()

    @staticmethod
    def _readable_time_range(plot: pg.PlotItem, xs: list[float]) -> None:
        """Samples a few seconds apart would get axis labels like "32.250": show ten minutes at least."""
        lo, hi = min(xs), max(xs)
        if hi - lo < 600:
            mid = (lo + hi) / 2
            plot.setXRange(mid - 300, mid + 300, padding=0)

    def reload(self) -> None:
        self.refresh.run()

    def _load(self) -> None:
        self.backend.read(lambda m: build_stats(m.metrics.rows()), self.show_stats)

    def show_stats(self, data: StatsData) -> None:
        self.data = data
        table = data.table
        self.table.setRowCount(len(table))
        for r, (stage, count, p50, p95, tokens) in enumerate(table):
            for c, value in enumerate((self._stage_name(stage), str(count), f"{p50:,.0f}", f"{p95:,.0f}",
                                       f"{tokens:,}")):
                self.table.setItem(r, c, QTableWidgetItem(value))
        self.table.setFixedHeight(self.table.horizontalHeader().height() + 4
                                  + self.table.verticalHeader().defaultSectionSize() * max(len(table), 1))
        for stage in CHART_STAGES:
            plot = self.plots[stage]
            plot.clear()
            xs, p50, p95 = data.latency.get(stage, ([], [], []))
            if xs:
                # Told apart by the line's pattern as well as its colour (the theme's).
                plot.plot(xs, p50, pen=pg.mkPen(colour("series_a"), width=2), name="p50")
                plot.plot(xs, p95, pen=pg.mkPen(colour("series_b"), width=2, style=pg.QtCore.Qt.DashLine),
                          name="p95")
            self._mark_empty(plot, not xs)
            if xs:
                self._readable_time_range(plot, xs)
        tokens = self.plots["tokens"]
        tokens.clear()
        xs, counts = data.tokens
        if xs:
            # Points, not a line: turns organized within one second share a time stamp.
            tokens.plot(xs, counts, pen=None, symbol="o", symbolSize=6, symbolBrush=colour("series_c"),
                        symbolPen=None)
        self._mark_empty(tokens, not xs)
        turns = len(xs)
        if not data.samples:
            self.summary.setText(self.tr("No measurements yet. They appear as you write and the AI answers."))
        else:
            average = sum(counts) / turns if turns else 0
            self.summary.setText(self.tr("{samples} measurements · {turns} entries organized · "
                                         "AI usage {tokens:,.0f} per entry on average")
                                 .format(samples=data.samples, turns=turns, tokens=average))
