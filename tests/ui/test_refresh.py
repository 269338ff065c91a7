"""Pages reload when shown after a change, or shortly after a change while shown — not otherwise."""

from PySide6.QtWidgets import QWidget

from memoir_desktop.ui.shared.refresh import RefreshWhenShown


def test_a_hidden_page_waits_for_being_shown_and_a_burst_reloads_once(qtbot):
    page = QWidget()
    qtbot.addWidget(page)
    loads = []
    refresh = RefreshWhenShown(page, lambda: loads.append(1), delay_ms=20)
    for _ in range(5):
        refresh.changed()  # hidden: nothing happens yet
    qtbot.wait(60)
    assert loads == []
    page.show()
    refresh.shown()
    assert loads == [1]
    refresh.shown()  # shown again with nothing new: no reload
    assert loads == [1]
    for _ in range(5):
        refresh.changed()
    qtbot.waitUntil(lambda: len(loads) == 2, timeout=2000)
    qtbot.wait(60)
    assert loads == [1, 1]
