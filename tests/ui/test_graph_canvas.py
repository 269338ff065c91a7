"""The Graph tab: loading, clicking a node, the date slider, filters, keyboard zoom, dragging.

The demo graph is written straight through the store (no LLM): the canvas only reads it.

    python -m tests.ui.test_graph_canvas resources/screenshots/graph.png   renders the demo graph page
"""

from __future__ import annotations

import time
from datetime import date, datetime

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QPushButton
from sqlmodel import Session

from memoir_desktop.core.storage.graph_store import GraphEdge, GraphNode
from memoir_desktop.core.storage.models import Entry
from memoir_desktop.viewmodels.graph_view import GraphSnapshot

T1, T2, T3, T4 = datetime(2025, 1, 10, 9), datetime(2025, 4, 2, 21), datetime(2025, 9, 15, 8), datetime(2025, 11, 20, 22)
NODES = [("나", "person", T1), ("서울", "place", T1), ("성수동", "place", T1), ("오로라랩스", "organization", T1),
         ("아메리카노", "food", T1), ("고양이 보리", "pet", T2), ("러닝", "activity", T2), ("한강", "place", T2),
         ("디카페인 커피", "food", T3), ("지수", "person", T4)]
EDGES = [("나", "산다", "서울", T1), ("나", "다닌다", "오로라랩스", T1), ("오로라랩스", "있다", "성수동", T1),
         ("성수동", "속한다", "서울", T1), ("나", "마신다", "아메리카노", T1), ("나", "키운다", "고양이 보리", T2),
         ("나", "좋아한다", "러닝", T2), ("러닝", "달리는 곳", "한강", T2), ("한강", "흐른다", "서울", T2),
         ("나", "마신다", "디카페인 커피", T3), ("나", "동생", "지수", T4)]


def build_demo_graph(mem, user_id: str = "me") -> dict[str, int]:
    """The demo graph with one contradiction: decaf (T3) replaced the americano (T1). Returns name -> id."""
    store = mem.graph.store
    with Session(mem.engine) as s:
        entries = {}
        for when in (T1, T2, T3, T4):
            entry = Entry(user_id=user_id, role="user", content=f"일기 {when:%Y-%m-%d}", created_at=when)
            s.add(entry)
            s.flush()
            entries[when] = entry.id
        ids = {}
        for name, type_, when in NODES:
            ids[name] = store.add_node(s, GraphNode(user_id=user_id, name=name, type=type_, created_at=when,
                                                    source_entry_id=entries[when])).id
        edge_ids = {}
        for src, rel, dst, when in EDGES:
            edge = store.add_edge(s, GraphEdge(user_id=user_id, source_id=ids[src], relation=rel, target_id=ids[dst],
                                               recorded_at=when, source_entry_id=entries[when]))
            edge_ids[(src, rel, dst)] = edge.id
        store.invalidate_edge(s, user_id, edge_ids[("나", "마신다", "아메리카노")], expired_at=T3,
                              valid_to=datetime(2025, 9, 1), invalidated_by=edge_ids[("나", "마신다", "디카페인 커피")])
        s.commit()
    mem.graph.after_commit(user_id)
    return ids


@pytest.fixture
def page(mem, backend, qtbot):
    from memoir_desktop.ui.graph.graph_page import GraphPage

    ids = build_demo_graph(mem)
    p = GraphPage(backend)
    p.engine.frame_interval = 0  # no pacing: tests need the result, not the animation
    qtbot.addWidget(p)
    p.resize(1100, 700)
    with qtbot.waitSignal(p.layoutSettled, timeout=10_000):
        p.show()
    p.ids = ids
    yield p
    p.shutdown()


def edge_between(page, src: str, rel: str, dst: str) -> int:
    c, ids = page.canvas, page.ids
    return next(eid for j, eid in enumerate(c.edge_ids)
                if c.ids[c.src[j]] == ids[src] and c.ids[c.dst[j]] == ids[dst] and c.relations[j] == rel)


def shown_edges(page) -> dict[int, bool]:
    c = page.canvas
    return {c.edge_ids[j]: bool(c.edge_ok[j]) for j in np.flatnonzero(c.edge_shown)}


def viewport_point(page, node_id: int) -> QPoint:
    c = page.canvas
    return c.mapFromScene(c.scene_pos_of(node_id))


def test_loads_the_graph_and_draws_every_node(page):
    assert sorted(page.canvas.shown_ids()) == sorted(page.ids.values())
    assert len(page.canvas.scatter.data) == len(NODES)
    assert len(page.canvas.shown_edge_ids()) == len(EDGES)  # the invalid one too, dashed
    assert np.isfinite(page.canvas.xy).all()
    assert page.count_label.text()  # "10 / 10"


def test_empty_graph_shows_a_calm_message(backend, qtbot):
    from memoir_desktop.ui.graph.graph_page import GraphPage

    p = GraphPage(backend)
    qtbot.addWidget(p)
    p.show()
    qtbot.waitUntil(lambda: p._loaded_once, timeout=15_000)
    assert p.stack.currentIndex() == 0 and p.message_title.text() == "아직 그래프가 없습니다"
    p.shutdown()


def test_click_on_a_node_shows_its_relations_with_dates(page, qtbot):
    americano = page.ids["아메리카노"]
    with qtbot.waitSignal(page.canvas.nodeClicked, timeout=2_000) as clicked:
        qtbot.mouseClick(page.canvas.viewport(), Qt.MouseButton.LeftButton, pos=viewport_point(page, americano))
    assert clicked.args == [americano]
    qtbot.waitUntil(lambda: page.panel.detail is not None, timeout=15_000)
    assert page.panel.detail["node"]["name"] == "아메리카노"
    [row] = page.panel.edge_texts()
    assert "나 -[마신다]-> 아메리카노" in row and "2025-01-10에 알게 됨" in row and "2025-09-15부터 사실이 아님" in row
    assert "2025-09-01까지 사실" in row  # the fact's end (valid_to); its start is unknown

    opened = []
    page.openEntryRequested.connect(opened.append)
    from PySide6.QtWidgets import QPushButton

    buttons = [b for b in page.panel.findChildren(QPushButton) if b.objectName() == "linkButton"]
    buttons[0].click()
    assert opened and isinstance(opened[0], int)
    qtbot.mouseClick(page.canvas.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(5, 5))  # background
    assert page.selected is None and page.panel.detail is None


def test_date_slider_shows_the_graph_as_it_stood(page, qtbot):
    americano = edge_between(page, "나", "마신다", "아메리카노")
    pet = edge_between(page, "나", "키운다", "고양이 보리")
    assert shown_edges(page)[americano] is False  # now: invalid (dashed)

    page.set_as_of(date(2025, 3, 1))
    qtbot.waitUntil(lambda: pet not in shown_edges(page), timeout=2_000)
    assert shown_edges(page)[americano] is True  # invalidated later: valid back then
    assert page.ids["고양이 보리"] not in page.canvas.shown_ids()  # the node came later too
    assert page.date_label.text() == "2025-03-01"

    page.set_as_of(date(2025, 10, 1))
    qtbot.waitUntil(lambda: pet in shown_edges(page), timeout=2_000)
    assert shown_edges(page)[americano] is False
    assert page.ids["지수"] not in page.canvas.shown_ids()

    page.set_as_of(None)
    qtbot.waitUntil(lambda: page.ids["지수"] in page.canvas.shown_ids(), timeout=2_000)
    assert page.date_label.text() == "현재"


def test_type_filter_invalid_toggle_and_local_depth(page, qtbot):
    places = {page.ids[n] for n in ("서울", "성수동", "한강")}
    page.legend.boxes["place"].setChecked(False)
    page.apply_filters()
    assert not places & set(page.canvas.shown_ids())
    page.legend.boxes["place"].setChecked(True)

    americano = edge_between(page, "나", "마신다", "아메리카노")
    page.show_invalid.setChecked(False)
    page.apply_filters()
    assert americano not in shown_edges(page)
    page.show_invalid.setChecked(True)
    page.apply_filters()
    assert americano in shown_edges(page)

    page.select_node(page.ids["서울"])
    page.local.setChecked(True)
    depth1 = {n for n, i in page.ids.items() if i in page.canvas.shown_ids()}
    assert depth1 == {"서울", "나", "성수동", "한강"}
    page.depth.setValue(2)
    depth2 = {n for n, i in page.ids.items() if i in page.canvas.shown_ids()}
    assert depth1 < depth2 and {"오로라랩스", "러닝", "아메리카노"} <= depth2

    page.search.setText("커피")
    page.apply_filters()
    page.local.setChecked(False)
    shown = {n for n, i in page.ids.items() if i in page.canvas.shown_ids()}
    assert shown == {"디카페인 커피", "나"}  # the match and its neighbour
    rect = page.canvas.view.viewRect()  # both in view: the match is framed with what it is linked to
    assert all(rect.contains(QPointF(*page.canvas.xy[page.canvas.row[page.ids[n]]])) for n in shown), rect


def test_hover_highlights_the_neighbours(page, qtbot):
    """The pointer's last stop decides the highlight, however fast it got there. (The scene drops
    moves closer than 10 ms apart; QTest's own move is not delivered reliably after other windows
    came and went, so the moves are sent as the window system would.)"""
    c = page.canvas
    vp = c.viewport()

    def move(pos: QPoint) -> None:
        ev = QMouseEvent(QMouseEvent.Type.MouseMove, QPointF(pos), QPointF(vp.mapToGlobal(pos)),
                         Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(vp, ev)

    seen = []
    c.hoveredChanged.connect(seen.append)
    move(QPoint(2, 2))  # an empty corner, then straight onto the node: two moves within a millisecond
    move(viewport_point(page, page.ids["서울"]))
    assert seen == [page.ids["서울"]]
    assert {c.ids[r] for r in c._near} == {page.ids[n] for n in ("서울", "나", "성수동", "한강")}
    assert len(c._edge_sets["valid_hi"]) == 3  # 산다, 속한다, 흐른다
    move(QPoint(2, 2))
    assert seen == [page.ids["서울"], None] and c._near is None


def test_keyboard_zoom_and_pan_change_the_view(page, qtbot):
    c = page.canvas
    c.setFocus()
    width = lambda: c.view.viewRange()[0][1] - c.view.viewRange()[0][0]  # noqa: E731
    before = width()
    qtbot.keyClick(c, Qt.Key.Key_Plus)
    assert width() < before * 0.9
    qtbot.keyClick(c, Qt.Key.Key_Minus)
    qtbot.keyClick(c, Qt.Key.Key_Minus)
    assert width() > before * 1.1
    left = c.view.viewRange()[0][0]
    qtbot.keyClick(c, Qt.Key.Key_Right)
    assert c.view.viewRange()[0][0] > left
    assert page._auto_fit is False  # the user moved the view: frames no longer refit it


def test_dragging_a_node_pins_it_where_dropped(page, qtbot):
    seoul = page.ids["서울"]
    vp = page.canvas.viewport()
    start = viewport_point(page, seoul)
    end = start + QPoint(60, 40)

    def send(kind, pos, buttons):
        ev = QMouseEvent(kind, QPointF(pos), QPointF(vp.mapToGlobal(pos)), Qt.MouseButton.LeftButton, buttons,
                         Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(vp, ev)

    send(QMouseEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton)
    for k in range(1, 7):
        send(QMouseEvent.Type.MouseMove, start + (end - start) * (k / 6), Qt.MouseButton.LeftButton)
    send(QMouseEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)
    dropped = page.canvas.view.mapSceneToView(page.canvas.mapToScene(end))
    page.engine.wait()
    qtbot.waitUntil(lambda: not page.engine.busy(), timeout=15_000)
    assert page.engine.layout.is_pinned(str(seoul))
    x, y = page.engine.layout.positions[str(seoul)]
    assert (x, y) == pytest.approx((dropped.x(), dropped.y()), abs=1e-6)


def test_graph_grows_in_place(page, qtbot, mem):
    before = dict(zip(page.canvas.ids, page.canvas.xy.tolist()))
    with Session(mem.engine) as s:
        node = mem.graph.store.add_node(s, GraphNode(user_id="me", name="부산", type="place",
                                                     created_at=datetime(2025, 12, 1)))
        mem.graph.store.add_edge(s, GraphEdge(user_id="me", source_id=page.ids["나"], relation="여행",
                                              target_id=node.id, recorded_at=datetime(2025, 12, 1)))
        s.commit()
        busan = node.id
    mem.graph.after_commit("me")
    with qtbot.waitSignal(page.layoutSettled, timeout=10_000):
        page.refresh()
    assert busan in page.canvas.shown_ids()
    moved = [np.hypot(*(np.array(page.canvas.xy[page.canvas.row[i]]) - xy)) for i, xy in before.items()]
    assert np.median(moved) < 0.5  # about half an edge: the old drawing stayed, the new node joined it


OFFLINE_DAYS = [
    ("오늘 지수랑 부산에 갔다. 해운대에서 회를 먹었다. #여행", datetime(2026, 3, 1, 21, 0)),
    ("지수한테 전화했다. 다음 주에 민지랑 서울에서 만나기로 했다.", datetime(2026, 3, 2, 22, 0)),
    ("민지가 서울로 이사 간대. 성수동에 집을 구했다고 한다.", datetime(2026, 3, 3, 20, 0)),
]


def test_without_an_ai_the_graph_shows_who_and_what_the_journal_names(qtbot, tmp_path):
    from memoir_desktop.core import Memoir
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.graph.graph_page import GraphPage

    bare = Memoir.open(tmp_path / "bare", llm_base_url=None)
    ids = [bare.journal.write(text, timestamp=when) for text, when in OFFLINE_DAYS]
    backend = AsyncMemoir(bare)
    p = GraphPage(backend)
    p.engine.frame_interval = 0
    qtbot.addWidget(p)
    p.resize(1100, 700)
    try:
        assert not backend.llm_configured
        with qtbot.waitSignal(p.layoutSettled, timeout=15_000):
            p.show()
        assert p.stack.currentIndex() == 1  # the drawing, not "the graph needs an AI"
        names = dict(zip(p.canvas.names, p.canvas.types, strict=True))
        assert {"나": "person", "지수": "person", "부산": "place", "서울": "place", "#여행": "tag"}.items() <= names.items()
        # One line says what these are, and what an AI would add.
        assert p.note.isVisibleTo(p) and "AI" in p.note.text() and "관계" in p.note.text()
        assert p.legend.boxes["tag"].text().startswith("태그")
        # A name opens the entries that name it.
        jisoo = next(i for i, n in p.snapshot.nodes.items() if n.name == "지수")
        p.select_node(jisoo)
        qtbot.waitUntil(lambda: p.panel.detail is not None, timeout=5_000)
        assert p.panel.detail["source_entry_ids"] == ids[:2]
        assert any("함께" in t for t in p.panel.edge_texts())
        opened = []
        p.openEntryRequested.connect(opened.append)
        buttons = [b for b in p.panel.findChildren(QPushButton) if b.text().endswith("일기 열기")]
        buttons[0].click()
        assert opened == [ids[0]]
        # A new entry that names someone new: drawn without a refresh asked for.
        with qtbot.waitSignal(p.layoutSettled, timeout=15_000):
            backend.change(lambda m: m.journal.commit("수진이랑 강릉에 갔다.", user_id="me",
                                                       timestamp=datetime(2026, 3, 4, 20, 0)))
        assert {"수진", "강릉"} <= set(p.canvas.names)
    finally:
        p.shutdown()
        backend.shutdown(5_000)
        bare.close()


def render_screenshot(mem, path, qtbot=None) -> None:
    """The demo graph page with the user's own node selected, at rest, saved as PNG."""
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.graph.graph_page import GraphPage

    build_demo_graph(mem)
    backend = AsyncMemoir(mem)
    page = GraphPage(backend)
    page.engine.frame_interval = 0
    page.resize(1280, 820)
    page.show()
    app = QApplication.instance()
    settled = []
    page.layoutSettled.connect(lambda: settled.append(True))

    def wait_for(done) -> None:
        deadline = time.monotonic() + 15
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError("the graph page did not settle")
            app.processEvents()
            time.sleep(0.005)

    wait_for(lambda: settled)
    page.select_node(next(i for i, n in page.snapshot.nodes.items() if n.name == "나"))
    wait_for(lambda: page.panel.detail is not None)
    page.canvas.hover = None
    page.fit()
    for _ in range(5):  # the panel's rows are laid out over a few passes of the event loop
        app.processEvents()
    page.grab().save(str(path))
    page.shutdown()
    page.close()
    backend.shutdown(5_000)


def test_screenshot_renders(mem, tmp_path, qtbot):
    path = tmp_path / "graph.png"
    render_screenshot(mem, path)
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert image.width() >= 1000 and not image.isNull()


# Two weeks of a Korean journal written with no AI connected: the README's "graph without an AI".
KOREAN_JOURNAL = [
    ("오늘 지수랑 부산에 갔다. 해운대에서 회를 먹었다. #여행", ["가족"], datetime(2026, 3, 1, 21, 0)),
    ("지수한테 전화했다. 다음 주에 민지랑 서울에서 만나기로 했다.", [], datetime(2026, 3, 2, 22, 0)),
    ("민지가 서울로 이사 간대. 성수동에 집을 구했다고 한다.", [], datetime(2026, 3, 3, 20, 0)),
    ("저녁에 한강에서 5km를 달렸다. #러닝", [], datetime(2026, 3, 4, 21, 30)),
    ("엄마랑 통화했다. 지수 졸업식에 같이 가기로 했다.", ["가족"], datetime(2026, 3, 5, 20, 0)),
    ("회사 동료 Grace랑 성수동 카페에서 점심을 먹었다.", [], datetime(2026, 3, 6, 13, 0)),
    ("고양이 모카가 새벽 5시에 또 깨웠다.", [], datetime(2026, 3, 7, 7, 0)),
    ("민지랑 강릉으로 여행 가서 바다를 봤다. #여행", [], datetime(2026, 3, 8, 22, 0)),
    ("한강에서 러닝 7km. 민지도 같이 뛰었다. #러닝", [], datetime(2026, 3, 10, 21, 0)),
    ("엄마랑 지수랑 제주도 가족 여행을 계획했다.", ["가족", "여행"], datetime(2026, 3, 12, 21, 0)),
    ("부산에서 돌아오는 KTX에서 책을 읽었다.", [], datetime(2026, 3, 13, 19, 0)),
]


def render_offline_screenshot(home, path, select: str = "지수") -> None:
    """The Graph page of KOREAN_JOURNAL, no AI connected, `select` selected, at rest, saved as PNG."""
    from memoir_desktop.core import Memoir
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.graph.graph_page import GraphPage

    mem = Memoir.open(home, encrypt=False, llm_base_url=None)
    for text, tags, when in KOREAN_JOURNAL:
        mem.journal.commit(text, user_id="me", timestamp=when, tags=tags)
    backend = AsyncMemoir(mem)
    page = GraphPage(backend)
    page.engine.frame_interval = 0
    page.resize(1280, 820)
    app = QApplication.instance()
    settled = []
    page.layoutSettled.connect(lambda: settled.append(True))
    page.show()

    def wait_for(done) -> None:
        deadline = time.monotonic() + 20
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError("the graph page did not settle")
            app.processEvents()
            time.sleep(0.005)

    try:
        wait_for(lambda: settled)
        page.select_node(next(i for i, n in page.snapshot.nodes.items() if n.name == select))
        wait_for(lambda: page.panel.detail is not None)
        page.canvas.hover = None
        page.fit()
        for _ in range(5):
            app.processEvents()
        page.grab().save(str(path))
    finally:
        page.shutdown()
        page.close()
        backend.shutdown(5_000)
        mem.close()


def test_offline_screenshot_renders(tmp_path, qtbot):
    from PySide6.QtGui import QImage

    render_offline_screenshot(tmp_path / "home", tmp_path / "graph-no-ai.png")
    image = QImage(str(tmp_path / "graph-no-ai.png"))
    assert image.width() >= 1000 and not image.isNull()


if __name__ == "__main__":
    # python -m tests.ui.test_graph_canvas graph.png [--offline] [--lang en]
    import sys
    import tempfile
    from pathlib import Path

    from memoir_desktop.core import Memoir
    from memoir_desktop.ui.shared import i18n
    from memoir_desktop.ui.shared.theme import apply_theme

    app = QApplication.instance() or QApplication(sys.argv[:1])
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    i18n.install("en" if "--lang" in sys.argv and sys.argv[sys.argv.index("--lang") + 1] == "en" else "ko")
    apply_theme(app, "light")
    out = Path(args[0] if args else "graph.png")
    with tempfile.TemporaryDirectory() as home:
        if "--offline" in sys.argv:
            render_offline_screenshot(Path(home) / "home", out)
        else:
            m = Memoir.open(Path(home) / "home")
            render_screenshot(m, out)
            m.close()


def test_enter_in_the_name_filter_opens_the_node_it_names(page, qtbot, monkeypatch):
    """The keyboard's way to a node: type a name, press Enter, and its relations show as a click's do;
    a screen reader is told what opened, or that no name matched."""
    from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent

    said: list[str] = []
    real = QAccessible.updateAccessibility
    monkeypatch.setattr(QAccessible, "updateAccessibility", staticmethod(
        lambda ev: (said.append(ev.message()) if isinstance(ev, QAccessibleAnnouncementEvent) else None, real(ev))))
    page.search.setFocus()
    page.search.setText("커피")  # as typed (QTest cannot type Hangul key by key)
    qtbot.keyClick(page.search, Qt.Key.Key_Return)
    assert page.selected == page.ids["디카페인 커피"]
    qtbot.waitUntil(lambda: page.panel.detail is not None, timeout=15_000)
    assert page.panel.detail["node"]["name"] == "디카페인 커피"
    qtbot.waitUntil(lambda: any("디카페인 커피" in s for s in said), timeout=5_000)
    page.search.setText("no such name")
    qtbot.keyClick(page.search, Qt.Key.Key_Return)
    assert page.selected == page.ids["디카페인 커피"]  # nothing matched: the selection stays
    assert said[-1] == "맞는 이름이 없습니다."


def test_a_typed_name_means_the_node_of_that_name_first():
    from memoir_desktop.viewmodels.graph_view import GraphView, NodeInfo, best_match

    names = {1: "김지수", 2: "지수 엄마", 3: "지수", 4: "지수네 카페"}
    snap = GraphSnapshot(nodes={i: NodeInfo(i, n, "person") for i, n in names.items()})
    view = GraphView(nodes=set(names), edges={}, matched=set(names))
    assert best_match(snap, view, "지수") == 3  # the name itself
    assert best_match(snap, view, "지수 ") == 3  # spaces and width do not count
    assert best_match(snap, GraphView(set(names), {}, {1, 2, 4}), "지수") == 2  # then what starts with it, shortest
    assert best_match(snap, GraphView(set(names), {}, {1}), "지수") == 1  # then what has it
    assert best_match(snap, GraphView(set(names), {}, set()), "지수") is None
