"""`GraphCanvas`: the memory graph drawn with pyqtgraph; zoom, pan, hover, click and drag.

It draws what it is given (nodes, edges, positions, what is shown) and reports what the user does
by signals; it never reads the store or runs the layout. Positions are in layout units (about one
edge length), so zoom levels are comparable between graphs.

Speed: one scatter for all nodes and five `connect="pairs"` curves for the edges (light mentions,
valid / invalid, plain / highlighted); a new frame only rewrites coordinates, and labels exist only for
the nodes that can show one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontDatabase, QPalette, QPen

from memoir_desktop.ui.shared.qt_compat import guard_none_refcount
from memoir_desktop.ui.shared.theme import CATEGORY_COLOURS, SPARE_CATEGORY_COLOURS, colour

# Readable on light and dark backgrounds (Tableau 10, kept with the theme's colours); unknown types take
# the spare ones in turn.
TYPE_COLORS = CATEGORY_COLOURS
_SPARE_COLORS = SPARE_CATEGORY_COLOURS
ZOOM_STEP = 1.25
ARROW_MIN_ZOOM = 40  # pixels per layout unit below which arrowheads are too small to read
ARROW_PX = (7.0, 3.5)  # arrowhead length and half-width, pixels
AA_MAX_EDGES = 1500  # antialiased lines cost ~4x: above this many, or while moving, draw them plain
_FULL_SIZE_ZOOM = 35.0  # pixels per layout unit from which nodes get their full size
_SIZE_STEPS = (0.4, 0.55, 0.7, 0.85, 1.0)
PAN_STEP = 0.1  # of the visible width per arrow key
_KOREAN_FAMILIES = ("Noto Sans CJK KR", "Noto Sans KR", "Apple SD Gothic Neo", "Malgun Gothic", "NanumGothic")


guard_none_refcount()


def type_color(type_: str) -> QColor:
    if type_ in TYPE_COLORS:
        return QColor(TYPE_COLORS[type_])
    return QColor(_SPARE_COLORS[sum(map(ord, type_)) % len(_SPARE_COLORS)])


def label_font(point_size: float = 9.0) -> QFont:
    """A font with Hangul: Qt's fallback usually finds one, but picking it keeps the metrics (and the
    label boxes) right on systems whose default font has no Korean glyphs."""
    font = QFont()
    available = set(QFontDatabase.families(QFontDatabase.WritingSystem.Korean))
    family = next((f for f in _KOREAN_FAMILIES if f in available), None)
    if family:
        font.setFamilies([family, *font.families()])
    font.setPointSizeF(point_size)
    return font


def node_sizes(degree: np.ndarray, zoom: float = 1e9) -> np.ndarray:
    """Pixel diameter by degree (sqrt: a hub stands out without hiding its neighbours), shrunk in
    steps when zoomed out so a dense graph is not a carpet of overlapping discs."""
    scale = max([s for s in _SIZE_STEPS if s * _FULL_SIZE_ZOOM <= zoom], default=_SIZE_STEPS[0])
    # Whole pixels: the scatter renders one symbol per distinct size, brush and pen.
    return np.round(np.clip(9.0 + 3.4 * np.sqrt(degree), 9.0, 36.0) * scale)


def _ramp(zoom: float, lo: float, hi: float) -> float:
    return float(np.clip((zoom - lo) / (hi - lo), 0.0, 1.0))


class LabelLayer:
    """Node and relation names as TextItems, made only when first needed (thousands of items would
    cost more than the whole drawing). Which show depends on the zoom: names fade in as the user
    zooms in, hubs first; above `ALL_MAX` shown nodes only the hubs and the names in view get one.
    A Qt setter is called only when its value changes: most frames change none of them."""

    ALL_MAX = 300
    HUBS = 40
    IN_VIEW_MAX = 250
    RELATIONS_MAX = 80  # all relation names when zoomed in on a graph this small
    NEAR_MAX = 40  # names shown around a highlighted node

    def __init__(self, view: pg.ViewBox, font: QFont):
        self.view, self.font = view, font
        self.set_colors(colour("text"), colour("base"))  # the canvas sets its own at once
        self.reset([])

    def set_colors(self, fg: QColor, bg: QColor) -> None:
        self.fg = QColor(fg)
        self.fill = QColor(bg)
        self.fill.setAlpha(170)  # a soft halo keeps a name readable where edges cross it
        self.muted = QColor(fg)
        self.muted.setAlpha(170)
        if getattr(self, "names", None):
            self.reset(self.names)  # labels are remade, in the new colours, when next shown

    def reset(self, names: list[str]) -> None:
        for item in (*getattr(self, "nodes", {}).values(), *getattr(self, "edges", {}).values()):
            self.view.removeItem(item)
        self.nodes: dict[int, pg.TextItem] = {}
        self.edges: dict[int, pg.TextItem] = {}
        self.state: dict[int, list] = {}  # id(item) -> [visible, opacity, anchor]
        self.names = names

    def _item(self, text: str, color: QColor, z: float) -> pg.TextItem:
        item = pg.TextItem(text, color=color, fill=pg.mkBrush(self.fill))
        item.setFont(self.font)
        item.setZValue(z)
        item.setVisible(False)
        self.view.addItem(item)
        self.state[id(item)] = [False, None, None]
        return item

    def _show(self, item: pg.TextItem, opacity: float, pos, anchor=None) -> None:
        st = self.state[id(item)]
        visible = opacity > 0.02
        if visible:
            if anchor is not None and anchor != st[2]:
                item.setAnchor(anchor)
                st[2] = anchor
            opacity = round(opacity, 2)
            if opacity != st[1]:
                item.setOpacity(opacity)
                st[1] = opacity
            if not st[0]:
                item.setPos(*pos)  # hidden labels are not moved with the frames
        if visible != st[0]:
            item.setVisible(visible)
            st[0] = visible

    def update(self, rows, degree, sizes, zoom, in_view, focus, near, dim, hi_edges, shown_edges, relations, xy,
               src, dst):
        """`near`: the nodes highlighted around `focus` (None: no highlight); other names are scaled by `dim`."""
        want: dict[int, float] = {}
        if len(rows) <= self.ALL_MAX:
            cut = max(3.0, float(np.percentile(degree[rows], 90))) if len(rows) else 0.0
            for r in rows.tolist():
                # Hangul names are ~50 px wide: below ~60 px between nodes they only overlap.
                want[r] = _ramp(zoom, 18, 32) if degree[r] >= cut else _ramp(zoom, 50, 80)
        else:
            hubs = rows[np.argsort(-degree[rows], kind="stable")[: self.HUBS]]
            want = dict.fromkeys(hubs.tolist(), _ramp(zoom, 2, 5))
            visible = rows[in_view[rows]]
            if zoom >= 30 and len(visible) <= self.IN_VIEW_MAX:
                for r in visible.tolist():
                    want[r] = max(want.get(r, 0.0), _ramp(zoom, 30, 50))
        if near is not None:
            if len(near) > self.NEAR_MAX:  # a hub's hundreds of neighbours: name the biggest
                near = {focus, *sorted(near, key=lambda r: -degree[r])[: self.NEAR_MAX]}
                hi_edges = [j for j in hi_edges if src[j] in near and dst[j] in near]
            want = {r: (1.0 if r in near else dim * o) for r, o in want.items()}
            want.update(dict.fromkeys(near, 1.0))
        for r, item in self.nodes.items():
            if r not in want:
                self._show(item, 0.0, None)
        for r, opacity in want.items():
            item = self.nodes.get(r)
            if item is None and opacity > 0.02:
                item = self.nodes[r] = self._item(self.names[r], self.fg, 20)
            if item is not None:
                # Below the node: the anchor is a fraction of the label's height.
                lift = (sizes.get(r, 10.0) / 2 - 2) / max(item.boundingRect().height(), 1.0)
                self._show(item, opacity, xy[r], (0.5, -round(lift, 3)))

        rel = {}
        if len(shown_edges) <= self.RELATIONS_MAX:
            rel = dict.fromkeys(shown_edges.tolist(), _ramp(zoom, 60, 90) * (1.0 if near is None else dim))
        rel.update(dict.fromkeys(hi_edges, 1.0))
        rel = {j: o for j, o in rel.items() if relations[j]}  # an edge given no words gets no label
        for j, item in self.edges.items():
            if j not in rel:
                self._show(item, 0.0, None)
        for j, opacity in rel.items():
            item = self.edges.get(j)
            if item is None and opacity > 0.02:
                item = self.edges[j] = self._item(relations[j], self.muted, 15)
            if item is not None:
                self._show(item, opacity, (xy[src[j]] + xy[dst[j]]) / 2, (0.5, 0.5))

    def move(self, xy, src, dst) -> None:
        for r, item in self.nodes.items():
            if self.state[id(item)][0]:
                item.setPos(*xy[r])
        for j, item in self.edges.items():
            if self.state[id(item)][0]:
                item.setPos(*((xy[src[j]] + xy[dst[j]]) / 2))


class _Nodes(pg.ScatterPlotItem):
    def mouseClickEvent(self, ev):
        ev.ignore()  # the view box hit-tests clicks itself, with the same reach as hover and drag


class _NodeViewBox(pg.ViewBox):
    """Left-drag on a node moves the node; anywhere else it pans. Clicks go to the canvas."""

    def __init__(self, canvas: GraphCanvas):
        super().__init__(lockAspect=True, enableMenu=False)
        self._canvas = canvas
        self._dragging: int | None = None

    def mouseDragEvent(self, ev, axis=None):
        if ev.button() == Qt.MouseButton.LeftButton:
            if ev.isStart():
                self._dragging = self._canvas.row_at(ev.buttonDownScenePos())
                if self._dragging is not None:
                    self._canvas.userMovedView.emit()  # a view that refits would slide under the drag
            if self._dragging is not None:
                ev.accept()
                p = self.mapSceneToView(ev.scenePos())
                self._canvas._drag(self._dragging, p.x(), p.y())
                if ev.isFinish():
                    self._dragging = None
                return
        super().mouseDragEvent(ev, axis)

    def mouseClickEvent(self, ev):
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self._canvas._click(self._canvas.row_at(ev.scenePos()), ev.double())
            return
        super().mouseClickEvent(ev)


class GraphCanvas(pg.GraphicsView):
    nodeClicked = Signal(int)  # node id
    backgroundClicked = Signal()
    nodeMoved = Signal(int, float, float)  # node id, where it was dragged to (layout units)
    nodeReleased = Signal(int)  # double-click on a node: let the layout move it again
    hoveredChanged = Signal(object)  # node id or None
    userMovedView = Signal()  # zoomed or panned by mouse or keys: stop fitting the view for the user

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName(self.tr("Memory graph"))
        self.view = _NodeViewBox(self)
        self.view.setMouseEnabled(True, True)
        self.setCentralItem(self.view)

        self.moving = False
        self.curves = {name: pg.PlotCurveItem(connect="pairs", antialias=False, skipFiniteCheck=True)
                       for name in ("light", "valid", "invalid", "valid_hi", "invalid_hi")}
        for z, curve in enumerate(self.curves.values()):
            curve.setZValue(z)
            self.view.addItem(curve)
        self.scatter = _Nodes(pxMode=True, antialias=True)
        self.scatter.setZValue(10)
        self.view.addItem(self.scatter)
        self.labels = LabelLayer(self.view, label_font())
        self._apply_palette()
        self.view.sigRangeChanged.connect(lambda *_: self._view_changed())
        self.view.sigResized.connect(lambda *_: self._update_labels())
        self.view.sigRangeChangedManually.connect(lambda *_: self.userMovedView.emit())

        self.clear_graph()

    def _apply_palette(self) -> None:
        pal = self.palette()
        self.bg, self.fg = pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Text)
        self.accent = pal.color(QPalette.ColorRole.Highlight)
        self.setBackground(self.bg)
        self.labels.set_colors(self.fg, self.bg)
        # Made once per palette: the scatter's symbol atlas keys on the pen and brush objects, so
        # new ones on every hover would re-render every symbol.
        self._pens = {"outline": pg.mkPen(self.bg, width=1.5), "match": pg.mkPen(self.accent, width=2),
                      "selected": pg.mkPen(self.accent, width=3)}

    def changeEvent(self, ev) -> None:
        super().changeEvent(ev)
        if ev.type() == QEvent.Type.PaletteChange and hasattr(self, "labels"):  # the theme changed
            self._apply_palette()
            self._restyle()

    def leaveEvent(self, ev) -> None:
        if self.hover is not None:  # the pointer left without crossing the background
            self.hover = None
            self._restyle()
            self.hoveredChanged.emit(None)
        super().leaveEvent(ev)

    # -- data in -------------------------------------------------------------------------------

    def clear_graph(self) -> None:
        self.set_graph([], [], np.zeros((0, 2)))

    def set_graph(self, nodes: Sequence[tuple[int, str, str]], edges: Sequence[tuple[int, int, int, str, bool]],
                  xy: np.ndarray) -> None:
        """nodes: (id, name, type); edges: (id, source id, target id, relation, valid[, light]); xy: N x 2.
        A light edge (two names one entry mentions, no stated relation) is drawn faint, without an arrow."""
        self.ids = [n[0] for n in nodes]
        self.row = {nid: i for i, nid in enumerate(self.ids)}
        self.names = [n[1] for n in nodes]
        self.types = [n[2] for n in nodes]
        kept = [e for e in edges if e[1] in self.row and e[2] in self.row]
        self.edge_ids = [e[0] for e in kept]
        self.edge_row = {eid: i for i, eid in enumerate(self.edge_ids)}
        self.src = np.array([self.row[e[1]] for e in kept], dtype=np.intp)
        self.dst = np.array([self.row[e[2]] for e in kept], dtype=np.intp)
        self.relations = [e[3] for e in kept]
        self.edge_valid_now = np.array([bool(e[4]) for e in kept], dtype=bool)
        self.edge_light = np.array([len(e) > 5 and bool(e[5]) for e in kept], dtype=bool)
        self.xy = np.asarray(xy, dtype=float).reshape(len(self.ids), 2).copy()
        self.hover: int | None = None
        self.selected: int | None = None
        self.labels.reset(self.names)
        self.set_filter()

    def set_moving(self, moving: bool) -> None:
        """While the layout moves, frames are drawn fast; at rest, smooth."""
        self.moving = moving
        smooth = not moving and int(self.edge_shown.sum()) <= AA_MAX_EDGES
        for curve in self.curves.values():
            if curve.opts["antialias"] != smooth:
                curve.opts["antialias"] = smooth
                curve.update()

    def set_positions(self, xy: np.ndarray) -> None:
        if len(xy) != len(self.ids):
            return  # a frame of a graph that has just been replaced
        self.xy = np.array(xy, dtype=float)
        self._draw_positions()

    def set_filter(self, nodes: Iterable[int] | None = None, edges: dict[int, bool] | None = None,
                   matched: Iterable[int] = ()) -> None:
        """Show these node ids and edge ids (id -> valid at the time shown); None shows all."""
        n, m = len(self.ids), len(self.edge_ids)
        if nodes is None:
            self.node_shown = np.ones(n, dtype=bool)
        else:
            self.node_shown = np.zeros(n, dtype=bool)
            self.node_shown[[self.row[i] for i in nodes if i in self.row]] = True
        self.edge_shown = np.zeros(m, dtype=bool)
        self.edge_ok = self.edge_valid_now.copy()
        if edges is None:
            self.edge_shown[:] = True
        else:
            for eid, ok in edges.items():
                j = self.edge_row.get(eid)
                if j is not None:
                    self.edge_shown[j], self.edge_ok[j] = True, ok
        self.edge_shown &= self.node_shown[self.src] & self.node_shown[self.dst]
        self.degree = (np.bincount(self.src[self.edge_shown], minlength=n)
                       + np.bincount(self.dst[self.edge_shown], minlength=n))
        self.matched = {self.row[i] for i in matched if i in self.row}
        if self.hover is not None and not self.node_shown[self.hover]:
            self.hover = None
        self._restyle()

    def set_selected(self, node_id: int | None) -> None:
        self.selected = self.row.get(node_id) if node_id is not None else None
        self._restyle()

    # -- view ----------------------------------------------------------------------------------

    def shown_ids(self) -> list[int]:
        return [self.ids[i] for i in np.flatnonzero(self.node_shown)]

    def shown_edge_ids(self) -> list[int]:
        return [self.edge_ids[j] for j in np.flatnonzero(self.edge_shown)]

    def fit(self, node_ids: Iterable[int] | None = None) -> None:
        rows = (np.flatnonzero(self.node_shown) if node_ids is None
                else np.array([self.row[i] for i in node_ids if i in self.row], dtype=np.intp))
        if len(rows) == 0:
            return
        lo, hi = self.xy[rows].min(axis=0), self.xy[rows].max(axis=0)
        pad = max(0.7, 0.1 * float((hi - lo).max()))  # a lone node still gets some room (and labels)
        self.view.setRange(QRectF(QPointF(*(lo - pad)), QPointF(*(hi + pad))), padding=0)

    def center_on(self, node_id: int) -> None:
        i = self.row.get(node_id)
        if i is not None and not self.view.viewRect().contains(QPointF(*self.xy[i])):
            self.view.translateBy(QPointF(*self.xy[i]) - self.view.viewRect().center())

    def zoom(self, factor: float) -> None:
        """factor > 1 zooms in."""
        self.view.scaleBy((1 / factor, 1 / factor))

    def pan(self, dx: float, dy: float) -> None:
        """Move the view by fractions of its size (positive: right / up)."""
        r = self.view.viewRect()
        self.view.translateBy((dx * r.width(), dy * r.height()))

    def keyPressEvent(self, ev) -> None:
        key = ev.key()
        moves = {Qt.Key.Key_Left: (-PAN_STEP, 0), Qt.Key.Key_Right: (PAN_STEP, 0),
                 Qt.Key.Key_Up: (0, PAN_STEP), Qt.Key.Key_Down: (0, -PAN_STEP)}
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(ZOOM_STEP)
        elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            self.zoom(1 / ZOOM_STEP)
        elif key in moves:
            self.pan(*moves[key])
        elif key in (Qt.Key.Key_0, Qt.Key.Key_Home):
            self.fit()
            ev.accept()
            return
        elif key == Qt.Key.Key_Escape:
            self.backgroundClicked.emit()
            ev.accept()
            return
        else:
            super().keyPressEvent(ev)
            return
        ev.accept()
        self.userMovedView.emit()

    # -- hit testing and mouse -----------------------------------------------------------------

    def row_at(self, scene_pos) -> int | None:
        """The shown node under a scene point (the topmost, i.e. nearest its centre), or None."""
        rows = np.flatnonzero(self.node_shown)
        if len(rows) == 0:
            return None
        p = self.view.mapSceneToView(scene_pos)
        px, py = self.view.viewPixelSize()
        dx = (self.xy[rows, 0] - p.x()) / px
        dy = (self.xy[rows, 1] - p.y()) / py
        d2 = dx * dx + dy * dy
        reach = (self._px[rows] / 2 + 3) ** 2
        best = int(np.argmin(d2 - reach))
        return int(rows[best]) if d2[best] <= reach[best] else None

    def scene_pos_of(self, node_id: int) -> QPointF:
        return self.view.mapViewToScene(QPointF(*self.xy[self.row[node_id]]))

    def mouseMoveEvent(self, ev) -> None:
        # Hover is read from every move, not from the scene's sigMouseMoved: that one drops moves
        # closer than 10 ms apart, so a pointer that stopped on a node right after a fast move
        # would leave the highlight where it was.
        self._mouse_moved(self.mapToScene(ev.position().toPoint()))
        super().mouseMoveEvent(ev)

    def _mouse_moved(self, scene_pos) -> None:
        row = self.row_at(scene_pos)
        if row != self.hover:
            self.hover = row
            self.setCursor(Qt.CursorShape.PointingHandCursor if row is not None else Qt.CursorShape.ArrowCursor)
            self._restyle()
            self.hoveredChanged.emit(None if row is None else self.ids[row])

    def _click(self, row: int | None, double: bool) -> None:
        if row is None:
            self.backgroundClicked.emit()
        elif double:
            self.nodeReleased.emit(self.ids[row])
        else:
            self.nodeClicked.emit(self.ids[row])

    def _drag(self, row: int, x: float, y: float) -> None:
        self.xy[row] = (x, y)
        self._draw_positions()
        self.nodeMoved.emit(self.ids[row], x, y)

    # -- drawing -------------------------------------------------------------------------------

    def _focus(self) -> int | None:
        return self.hover if self.hover is not None else self.selected

    def _neighbourhood(self, row: int | None) -> tuple[set[int] | None, np.ndarray]:
        if row is None:
            return None, np.zeros(len(self.edge_ids), dtype=bool)
        touching = self.edge_shown & ((self.src == row) | (self.dst == row))
        return {row, *self.src[touching].tolist(), *self.dst[touching].tolist()}, touching

    def _restyle(self) -> None:
        """Colours, sizes and which edges are highlighted: after a filter, hover or selection change."""
        near, touching = self._neighbourhood(self._focus())
        # Hover asks "what is this connected to?": fade the rest strongly. A selection stays while
        # the user reads the panel, so the rest of the graph only recedes.
        hovering = self.hover is not None
        self._near, self._dim = near, (0.2 if hovering else 0.55)
        rows = np.flatnonzero(self.node_shown)
        self._rows = rows
        fade = 0.2 if hovering else 0.45
        full = {t: _brush(type_color(t)) for t in set(self.types)}
        # Opaque faded colours, not alpha: edges must not show through a faded node.
        faded = {t: _brush(_blend(type_color(t), self.bg, fade)) for t in full}
        brushes = [full[self.types[r]] if near is None or r in near else faded[self.types[r]]
                   for r in rows.tolist()]
        pens = [self._pens["outline"]] * len(rows)
        marked = dict.fromkeys(self.matched, self._pens["match"])
        if self.selected is not None:
            marked[self.selected] = self._pens["selected"]
        if marked:
            pos = {r: k for k, r in enumerate(rows.tolist())}
            for r, pen in marked.items():
                if r in pos:
                    pens[pos[r]] = pen
        self._px = node_sizes(self.degree, self._zoom())
        sizes = self._px[rows]
        self.scatter.setData(x=self.xy[rows, 0], y=self.xy[rows, 1], size=sizes, brush=brushes, pen=pens)
        self._sizes = dict(zip(rows.tolist(), sizes.tolist()))

        base = self.edge_shown & ~touching
        self._edge_sets = {"light": np.flatnonzero(base & self.edge_ok & self.edge_light),
                           "valid": np.flatnonzero(base & self.edge_ok & ~self.edge_light),
                           "invalid": np.flatnonzero(base & ~self.edge_ok),
                           "valid_hi": np.flatnonzero(touching & self.edge_ok),
                           "invalid_hi": np.flatnonzero(touching & ~self.edge_ok)}
        line = QColor(self.fg)
        # Thousands of crossing lines at full strength merge into one dark mass: thin them out.
        base_alpha = int(np.clip(95 * np.sqrt(500 / max(int(self.edge_shown.sum()), 1)), 40, 95))
        line.setAlpha(base_alpha if near is None else 30 if hovering else 55)
        grey = colour("faded")
        grey.setAlpha(170 if near is None else 45 if hovering else 90)
        # Whole-pixel widths: a fractional cosmetic pen makes the raster engine stroke ~4x slower.
        self.curves["valid"].setPen(pg.mkPen(line, width=1))
        faint = QColor(line)
        faint.setAlpha(max(line.alpha() // 2, 20))
        self.curves["light"].setPen(pg.mkPen(faint, width=1))
        self.curves["invalid"].setPen(_dashed(grey, 1))
        strong = QColor(self.fg)
        strong.setAlpha(210)
        self.curves["valid_hi"].setPen(pg.mkPen(strong, width=2.0))
        self.curves["invalid_hi"].setPen(_dashed(colour("faded"), 2.0))
        self._draw_edges()
        self._update_labels()
        self.set_moving(self.moving)

    def _draw_positions(self) -> None:
        rows = self._rows
        if len(rows) and len(self.scatter.data) == len(rows):
            # Rewrite coordinates in place: setData would rebuild every spot for each frame.
            self.scatter.data["x"] = self.xy[rows, 0]
            self.scatter.data["y"] = self.xy[rows, 1]
            self.scatter.prepareGeometryChange()
            self.scatter.bounds = [None, None]
            self.scatter.informViewBoundsChanged()
            self.scatter.invalidate()
        self._draw_edges()
        self.labels.move(self.xy, self.src, self.dst)

    def _draw_edges(self) -> None:
        px = self.view.viewPixelSize()[0]
        arrows = px > 0 and 1.0 / px >= ARROW_MIN_ZOOM
        size = self._px
        for name, idx in self._edge_sets.items():
            starts, ends = [self.xy[self.src[idx]]], [self.xy[self.dst[idx]]]
            pointed = idx[~self.edge_light[idx]]  # a mention has no direction: no arrowhead
            if arrows and len(pointed):
                # Two short strokes just outside the target node; sizes are pixels, turned into
                # layout units at the current zoom (so they are redrawn when the zoom changes).
                a, b = self.xy[self.src[pointed]], self.xy[self.dst[pointed]]
                d = b - a
                u = d / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-12)[:, None]
                tip = b - u * ((size[self.dst[pointed]] / 2 + 1.5) * px)[:, None]
                back = tip - u * (ARROW_PX[0] * px)
                side = np.column_stack((-u[:, 1], u[:, 0])) * (ARROW_PX[1] * px)
                starts += [tip, tip]
                ends += [back + side, back - side]
            pts = np.stack((np.concatenate(starts), np.concatenate(ends)), axis=1).reshape(-1, 2)
            self.curves[name].setData(pts[:, 0], pts[:, 1], connect="pairs")

    def _zoom(self) -> float:
        px = self.view.viewPixelSize()[0]
        return 1.0 / px if px > 0 else 0.0  # pixels per layout unit (about one edge)

    def _view_changed(self) -> None:
        if not hasattr(self, "_rows"):
            return
        if len(self._px) and node_sizes(self.degree, self._zoom()).max() != self._px.max():
            self._restyle()  # the node size step changed
        else:
            self._draw_edges()
            self._update_labels()

    def _update_labels(self) -> None:
        if not hasattr(self, "_rows"):
            return
        zoom = self._zoom()
        r = self.view.viewRect()
        in_view = ((self.xy[:, 0] >= r.left()) & (self.xy[:, 0] <= r.right())
                   & (self.xy[:, 1] >= r.top()) & (self.xy[:, 1] <= r.bottom()))
        self.labels.update(self._rows, self.degree, self._sizes, zoom, in_view, self._focus(), self._near, self._dim,
                           self._edge_sets["valid_hi"].tolist() + self._edge_sets["invalid_hi"].tolist(),
                           np.flatnonzero(self.edge_shown), self.relations, self.xy, self.src, self.dst)


_brushes: dict[int, QBrush] = {}


def _brush(color: QColor) -> QBrush:
    # One QBrush per colour: the scatter's symbol atlas keys on the brush, so sharing keeps it small.
    key = color.rgba()
    if key not in _brushes:
        _brushes[key] = QBrush(color)
    return _brushes[key]


def _blend(color: QColor, background: QColor, amount: float) -> QColor:
    """`amount` of `color` over `background`."""
    return QColor.fromRgbF(*(amount * a + (1 - amount) * b for a, b in zip(color.getRgbF()[:3],
                                                                           background.getRgbF()[:3], strict=True)))


def _dashed(color: QColor, width: float) -> QPen:
    return pg.mkPen(color, width=width, style=Qt.PenStyle.DashLine)  # mkPen: cosmetic (width in pixels)
