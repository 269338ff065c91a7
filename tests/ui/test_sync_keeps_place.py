"""A sync round that brings something from another computer redraws the day, and the diarist reading
the middle of a long day stays where they were: the page neither jumps to the top (the reflection
cards above the entries) nor to the bottom."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from memoir_desktop.core.sync.report import SyncReport


def _pump(qapp, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        qapp.processEvents()
        time.sleep(0.01)


def test_a_sync_round_keeps_the_place_in_a_long_day(mem, window, backend, qapp, qtbot):
    now = datetime.now().replace(second=0, microsecond=0)
    year_ago = now.replace(year=now.year - 1) if not (now.month == 2 and now.day == 29) else now - timedelta(days=365)
    mem.journal.write("A year ago today we moved into the flat by the river", timestamp=year_ago)  # On This Day
    start = now.replace(hour=0, minute=1)
    for i in range(24):
        mem.journal.write(f"Line {i} of a long day: " + "the rain kept on and I kept writing. " * 6,
                          timestamp=start + timedelta(minutes=i))
    page = window.journal
    page.show_day(now.date())
    qtbot.waitUntil(lambda: backend.idle and len(page.chat.bubbles) >= 24, timeout=15_000)
    _pump(qapp, 0.5)
    bar = page.chat.verticalScrollBar()
    assert bar.maximum() > 400, "the day must be longer than the window for this test to mean anything"
    middle = bar.maximum() // 2
    bar.setValue(middle)
    _pump(qapp, 0.2)

    window._synced_in(SyncReport(url="file:///elsewhere", device="other", pulled=3))
    qtbot.waitUntil(lambda: backend.idle, timeout=15_000)
    _pump(qapp, 1.0)
    assert abs(bar.value() - middle) <= 4, (bar.value(), middle, bar.maximum())
    assert len(page.chat.bubbles) >= 24
