"""`GraphPage`: the Graph tab. Filters and the date slider on top, the canvas, the node panel.

Threading rule: the snapshot read and node details run on the backend's reads pool, the
layout on `LayoutEngine`'s worker; both come back by signal. Filtering is done on the UI thread over
the in-memory snapshot (see viewmodels/graph_view.py), so it needs neither the database nor a new layout: one
layout of the whole graph keeps every node in place whatever is filtered out.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.graph.canvas import GraphCanvas, type_color
from memoir_desktop.ui.graph.layout_worker import LayoutEngine
from memoir_desktop.ui.graph.node_panel import NodePanel, type_name
from memoir_desktop.ui.shared.a11y import announce
from memoir_desktop.ui.shared.formatting import short_date
from memoir_desktop.ui.shared.splitter import KeyboardSplitter
from memoir_desktop.viewmodels.graph_view import (
    MENTION,
    MENTIONED,
    TOGETHER,
    Filters,
    GraphSnapshot,
    GraphView,
    best_match,
    end_of_day,
    filter_view,
    load_snapshot,
    with_mentions,
)

log = logging.getLogger(__name__)

FILTER_DELAY_MS = 40  # typing and slider drags coalesce into one redraw
REFRESH_DELAY_MS = 1_000  # a burst of finished jobs reloads the graph once
FRAME_WITH_LINKS = 30  # a name's matches and their links framed together up to this many nodes

def _dot(color: QColor) -> QIcon:
    pix = QPixmap(12, 12)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(color)
    p.setPen(Qt.PenStyle.NoPen)
    p.drawEllipse(1, 1, 10, 10)
    p.end()
    return QIcon(pix)


class TypeLegend(QFrame):
    """A colour and a checkbox per entity type: the legend is the type filter."""

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.boxes: dict[str, QCheckBox] = {}
        self.hidden: set[str] = set()  # kept across reloads, so a new type does not undo a choice
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(12, 8, 12, 4)
        self._layout.setSpacing(2)

    def set_types(self, counts: dict[str, int], order: list[str]) -> None:
        while self._layout.count():
            item = self._layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.boxes = {}
        title = QLabel(self.tr("Types"))
        title.setObjectName("dayHeader")
        self._layout.addWidget(title)
        for t in order:
            box = QCheckBox(f"{type_name(t)} ({counts.get(t, 0)})")
            box.setIcon(_dot(type_color(t)))
            box.setChecked(t not in self.hidden)
            box.toggled.connect(lambda on, t=t: self._toggle(t, on))
            self.boxes[t] = box
            self._layout.addWidget(box)

    def _toggle(self, type_: str, on: bool) -> None:
        (self.hidden.discard if on else self.hidden.add)(type_)
        self.changed.emit()


class GraphPage(QWidget):
    openEntryRequested = Signal(int)  # journal entry id behind a node or relation
    layoutSettled = Signal()  # the drawing came to rest (tests, screenshots)
    open_settings = Signal()  # "Connect an AI…" under the empty graph of a journal without one

    def __init__(self, backend, user_id: str = "me", parent=None):
        """`backend`: the UI's `AsyncMemoir`; the graph reloads when a change touched it."""
        super().__init__(parent)
        self.backend = backend
        self.user_id = user_id
        self.snapshot = GraphSnapshot()
        self.selected: int | None = None
        self._say_opened: int | None = None  # a node opened from the name filter, told when its detail comes
        self._loaded_once = False
        self._loading = False
        self._reload_again = False
        self._dirty = True
        self._auto_fit = True
        self._pending: tuple[int, GraphSnapshot] | None = None  # a graph waiting for its first positions
        self._canvas_gen = 0
        self._frame: tuple[int, np.ndarray] | None = None
        self._fit_ids: set[int] | None = None  # what fitting the view frames (None: all shown)
        self._day0 = None

        self.engine = LayoutEngine(self)
        self.engine.positions.connect(self._on_positions)
        self.engine.settled.connect(self._on_settled)
        self._build()
        self._filter_timer = self._timer(FILTER_DELAY_MS, self.apply_filters)
        self._refresh_timer = self._timer(REFRESH_DELAY_MS, self.refresh)
        backend.changed.connect(self._on_changed)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    def _timer(self, ms: int, slot) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(ms)
        timer.timeout.connect(slot)
        return timer

    # -- widgets -------------------------------------------------------------------------------

    def _build(self) -> None:
        self.stack = QStackedWidget()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)

        message = QWidget()
        col = QVBoxLayout(message)
        col.addStretch(1)
        self.message_title = QLabel()
        self.message_title.setObjectName("placeholderTitle")
        self.message_text = QLabel()
        self.message_text.setObjectName("muted")
        self.message_text.setWordWrap(True)
        for label in (self.message_title, self.message_text):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            col.addWidget(label)
        self.connect_button = QPushButton(self.tr("Connect an AI…"))
        self.connect_button.setAccessibleName(self.tr("Open settings to connect an AI companion"))
        self.connect_button.clicked.connect(self.open_settings)
        self.connect_button.hide()
        col.addWidget(self.connect_button, 0, Qt.AlignmentFlag.AlignHCenter)
        col.addStretch(1)
        self.stack.addWidget(message)

        graph = QWidget()
        layout = QVBoxLayout(graph)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addLayout(self._build_filters())
        layout.addLayout(self._build_time_bar())
        # What the names without an AI's relations are, in one line (shown when there are some).
        self.note = QLabel()
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        self.note.hide()
        layout.addWidget(self.note)
        self.canvas = GraphCanvas()
        self.canvas.setObjectName("graphCanvas")  # the style sheet's focus ring
        self.canvas.nodeClicked.connect(self.select_node)
        self.canvas.backgroundClicked.connect(self.clear_selection)
        self.canvas.nodeMoved.connect(lambda nid, x, y: self.engine.pin(str(nid), (x, y)))
        self.canvas.nodeReleased.connect(lambda nid: self.engine.pin(str(nid), None))
        self.canvas.userMovedView.connect(self._user_moved_view)
        self.legend = TypeLegend()
        self.legend.changed.connect(self._filters_changed)
        self.panel = NodePanel()
        self.panel.openEntryRequested.connect(self.openEntryRequested)
        self.panel.nodeRequested.connect(self.select_node)
        side = QWidget()
        side_col = QVBoxLayout(side)
        side_col.setContentsMargins(0, 0, 0, 0)
        side_col.addWidget(self.legend)
        side_col.addWidget(self.panel, 1)
        self.splitter = KeyboardSplitter(Qt.Orientation.Horizontal, self.tr("Width of the details beside the graph"))
        self.splitter.addWidget(self.canvas)
        self.splitter.addWidget(side)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setSizes([760, 320])
        layout.addWidget(self.splitter, 1)
        self.stack.addWidget(graph)
        self._show_message(self.tr("Loading the graph…"), "")

    def _build_filters(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Filter by name… (Enter opens it)"))
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName(self.tr("Filter nodes by name"))
        self.search.textChanged.connect(self._filters_changed)
        self.search.returnPressed.connect(self._open_match)
        row.addWidget(self.search, 1)
        self.show_invalid = QCheckBox(self.tr("Show invalid relations"))
        self.show_invalid.setChecked(True)
        self.show_invalid.setToolTip(self.tr("Relations a later entry contradicted, drawn dashed"))
        self.show_invalid.toggled.connect(self._filters_changed)
        row.addWidget(self.show_invalid)
        self.local = QCheckBox(self.tr("Local graph"))
        self.local.setToolTip(self.tr("Only the selected node and its neighbours"))
        self.local.toggled.connect(self._local_toggled)
        row.addWidget(self.local)
        self.depth = QSpinBox()
        self.depth.setRange(1, 3)
        self.depth.setPrefix(self.tr("depth "))
        self.depth.setAccessibleName(self.tr("Local graph depth"))
        self.depth.setEnabled(False)
        self.depth.valueChanged.connect(lambda _v: self.apply_filters(refit=True))
        row.addWidget(self.depth)
        fit = QPushButton(self.tr("Fit"))
        fit.setToolTip(self.tr("Show the whole graph (0)"))
        fit.clicked.connect(self.fit)
        row.addWidget(fit)
        refresh = QPushButton(self.tr("Refresh"))
        refresh.clicked.connect(self.refresh)
        row.addWidget(refresh)
        return row

    def _build_time_bar(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("As of")))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setAccessibleName(self.tr("Show the graph as it stood on a date"))
        self.slider.valueChanged.connect(self._slider_moved)
        row.addWidget(self.slider, 1)
        self.date_label = QLabel(self.tr("Now"))
        self.date_label.setMinimumWidth(90)
        row.addWidget(self.date_label)
        self.count_label = QLabel()
        self.count_label.setObjectName("muted")
        row.addWidget(self.count_label)
        return row

    def _show_message(self, title: str, text: str, *, offer_connect: bool = False) -> None:
        self.message_title.setText(title)
        self.message_text.setText(text)
        self.connect_button.setVisible(offer_connect)
        self.stack.setCurrentIndex(0)

    # -- loading -------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the graph from the store (on a worker); the drawing grows in place."""
        self._dirty = False
        if self._loading:
            self._reload_again = True
            return
        self._loading = True
        user_id = self.user_id
        # The AI's relations, and the names the journal mentions in entries no AI has read (without an
        # AI: all of them), so the page is never empty while the journal names someone.
        self.backend.read(lambda m: with_mentions(load_snapshot(m.graph.store, user_id), m.graph.mentions(user_id)),
                          self._loaded, self._load_failed)

    def _loaded(self, snap: GraphSnapshot) -> None:
        self._loading = False
        if self._reload_again:
            self._reload_again = False
            self.refresh()
        self.snapshot = snap
        self._loaded_once = True
        if snap.empty and not self.backend.llm_configured:
            # Nothing named yet, and no AI: say what will appear, and what an AI adds.
            self._show_message(self.tr("No names yet"), self.tr(
                "The people, places and tags your entries name will appear here as you write. An AI adds "
                "how they relate; your journal, search and memories you add yourself work without one."),
                offer_connect=True)
            self.canvas.clear_graph()
            return
        if snap.empty:
            self._show_message(self.tr("No graph yet"), self.tr(
                "As your entries are read, the people, places and things in your journal, and how "
                "they connect, will appear here."))
            self.canvas.clear_graph()
            return
        self.legend.set_types(snap.type_counts(), snap.types())
        self._set_note(snap)
        self._set_time_range(snap)
        self._pending = (self.engine.set_graph(*snap.layout_input()), snap)

    def _set_note(self, snap: GraphSnapshot) -> None:
        if not snap.has_mentions:
            self.note.hide()
            return
        if self.backend.llm_configured:
            self.note.setText(self.tr("Thin lines join names your entries mention together, from entries the "
                                      "AI has not read yet; the AI adds how they relate when it reads them."))
        else:
            self.note.setText(self.tr("The people, places and tags your entries name, joined when an entry "
                                      "mentions them together. An AI adds how they relate."))
        self.note.show()

    def _load_failed(self, exc: BaseException) -> None:
        self._loading = False
        log.warning("graph not loaded: %s", exc)
        message = self.tr("Could not load the graph: {error}").format(error=exc)
        if self.stack.currentIndex() == 0:
            self._show_message(message, "")
        else:
            self.count_label.setText(message)

    def settings_changed(self) -> None:
        """An AI connected or disconnected: what an empty graph says changes with it."""
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def _on_changed(self, changes) -> None:
        if not (changes.graph or changes.entries):
            return  # memories or settings moved: the graph did not (an entry may name someone new)
        self._dirty = True
        if self.isVisible():
            self._refresh_timer.start()

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        if self._dirty or not self._loaded_once:
            self.refresh()

    # -- layout frames -------------------------------------------------------------------------

    def _on_positions(self, gen: int, xy: np.ndarray) -> None:
        # Frames queue up faster than they can be drawn on a big graph: draw only the newest.
        if gen < self._canvas_gen:
            return
        scheduled = self._frame is not None
        self._frame = (gen, xy)
        if not scheduled:
            QTimer.singleShot(0, self._draw_frame)

    def _draw_frame(self) -> None:
        if self._frame is None:
            return
        gen, xy = self._frame
        self._frame = None
        if self._pending is not None and self._pending[0] == gen:
            snap = self._pending[1]
            self._pending = None
            self._canvas_gen = gen
            nodes = [(n.id, n.name, n.type) for n in snap.nodes.values()]
            # Mentions are drawn faint and unlabelled: the same words on every line would bury the names
            # (the note above says what the lines are, the node panel names each).
            edges = [(e.id, e.source, e.target, "" if e.kind == MENTION else e.relation, e.valid, e.kind == MENTION)
                     for e in snap.edges]
            self.canvas.set_graph(nodes, edges, xy)
            self.stack.setCurrentIndex(1)
            if self.selected is not None and self.selected not in snap.nodes:
                self.clear_selection()
            self.canvas.set_selected(self.selected)
            self.apply_filters()
        elif gen == self._canvas_gen:
            self.canvas.set_moving(True)
            self.canvas.set_positions(xy)
            if self._auto_fit:
                self.canvas.fit(self._fit_ids)

    def _on_settled(self, gen: int) -> None:
        self._draw_frame()  # the last frame may still wait for its turn
        if gen == self._canvas_gen and self._pending is None:
            self.canvas.set_moving(False)
            self.layoutSettled.emit()

    def _relation(self, relation: str, kind: str) -> str:
        """An AI's relation as it wrote it; a mention in the UI's words."""
        if kind != MENTION:
            return relation
        return {MENTIONED: self.tr("mentioned"), TOGETHER: self.tr("mentioned together")}.get(relation, relation)

    def _user_moved_view(self) -> None:
        self._auto_fit = False

    def fit(self) -> None:
        self._auto_fit = True
        self.canvas.fit(self._fit_ids)

    # -- filters -------------------------------------------------------------------------------

    def _set_time_range(self, snap: GraphSnapshot) -> None:
        span = snap.span()
        at_now = self.slider.value() == self.slider.maximum()
        old = self.as_of()
        self._day0 = span[0] if span else None
        days = (span[1] - span[0]).days if span else 0
        self.slider.blockSignals(True)
        self.slider.setRange(0, days)
        if at_now or old is None:
            self.slider.setValue(days)
        else:
            self.slider.setValue(min(max((old.date() - self._day0).days, 0), days))
        self.slider.blockSignals(False)
        self.slider.setEnabled(days > 0)
        self._update_date_label()

    def as_of(self):
        """The date the graph is shown as of (end of that day), or None for now."""
        if self._day0 is None or self.slider.value() >= self.slider.maximum():
            return None
        return end_of_day(self._day0 + timedelta(days=self.slider.value()))

    def set_as_of(self, day) -> None:
        """Move the slider to a date (None: now)."""
        if day is None or self._day0 is None:
            self.slider.setValue(self.slider.maximum())
        else:
            self.slider.setValue(min(max((day - self._day0).days, 0), self.slider.maximum()))

    def _update_date_label(self) -> None:
        when = self.as_of()
        self.date_label.setText(self.tr("Now") if when is None else short_date(when))

    def _slider_moved(self, _value: int) -> None:
        self._update_date_label()
        self._filters_changed()

    def _filters_changed(self, *_args) -> None:
        self._filter_timer.start()

    def _local_toggled(self, on: bool) -> None:
        self.depth.setEnabled(on)
        self.apply_filters(refit=True)

    def filters(self) -> Filters:
        local = self.local.isChecked() and self.selected is not None
        return Filters(text=self.search.text(), hidden_types=frozenset(self.legend.hidden),
                       show_invalid=self.show_invalid.isChecked(), as_of=self.as_of(),
                       focus=self.selected if local else None, depth=self.depth.value() if local else 0)

    def apply_filters(self, refit: bool = False) -> GraphView | None:
        """The filters applied to the canvas; what they show (None before the graph is drawn)."""
        self._filter_timer.stop()
        if self._canvas_gen == 0:
            return None
        f = self.filters()
        view = filter_view(self.snapshot, f)
        self.canvas.set_filter(view.nodes, view.edges, view.matched)
        self.count_label.setText(self.tr("{shown} of {total} nodes").format(
            shown=len(view.nodes), total=len(self.snapshot.nodes)))
        self._fit_ids = (view.matched or view.nodes) if f.text or f.depth else None
        if f.text and view.matched and len(view.nodes) <= FRAME_WITH_LINKS:
            # A name is framed with what it is linked to (the filter keeps those): "지수" alone filled
            # the view and left 나, the one it is linked to, outside it. Not for a hub ("나").
            self._fit_ids = view.nodes
        if refit or self._auto_fit or self._fit_ids is not None:
            self.canvas.fit(self._fit_ids)
        return view

    # -- selection -----------------------------------------------------------------------------

    def select_node(self, node_id: int) -> None:
        """Select a node (as a click does): highlight it, and show its relations in the panel."""
        self.selected = node_id
        self.canvas.set_selected(node_id)
        self.canvas.center_on(node_id)
        if self.local.isChecked():
            self.apply_filters(refit=True)
        snap = self.snapshot

        def shown(detail) -> None:
            if self.selected == node_id:
                detail = snap.mention_detail(node_id, detail)
                for edge in (detail or {}).get("edges", []):
                    if edge.get("kind") == MENTION:
                        edge["relation"] = self._relation(edge["relation"], MENTION)
                self.panel.show_detail(detail)
                if self._say_opened == node_id and detail:
                    announce(self.search, self.tr("{name}: {count} relations").format(
                        name=detail["node"]["name"], count=len(detail.get("edges", []))))
            self._say_opened = None

        if node_id < 0:  # a name the journal mentions, which no AI has made a node of
            shown(None)
            return
        self.backend.read(lambda m: m.graph.node_detail(self.user_id, node_id), shown, self._load_failed)

    def _open_match(self) -> None:
        """Enter in the name filter: the best match is selected and its relations shown in the panel."""
        view = self.apply_filters()
        if view is None:
            return
        node = best_match(self.snapshot, view, self.search.text())
        if node is None:
            announce(self.search, self.tr("No name matches."))
            return
        self._say_opened = node  # the panel is out of the keyboard's way: say what opened
        self.select_node(node)

    def clear_selection(self) -> None:
        self.selected = None
        self.canvas.set_selected(None)
        self.panel.clear()
        if self.local.isChecked():
            self.apply_filters(refit=True)

    # -- lifetime ------------------------------------------------------------------------------

    def shutdown(self, msecs: int = 3_000) -> None:
        """Stop the layout (call before the Memoir closes; the backend stops the reads)."""
        self.engine.stop(msecs)

    def closeEvent(self, ev) -> None:
        self.shutdown()
        super().closeEvent(ev)
