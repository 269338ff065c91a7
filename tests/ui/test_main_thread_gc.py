"""Cycles holding Qt objects are freed on the UI thread, never on a pool thread (ui/qt_compat.py)."""

from __future__ import annotations

import threading
import weakref

from PySide6.QtCore import QObject


def test_a_cycle_dropped_on_a_pool_thread_is_freed_on_the_ui_thread(qtbot):
    freed_on: list[str] = []

    def drop_a_cycle():
        holder = type("Holder", (), {})()
        holder.qt = QObject()
        holder.me = holder  # a cycle: only the collector frees it
        weakref.finalize(holder, lambda: freed_on.append(threading.current_thread().name))
        del holder
        junk = [[i] for i in range(50_000)]  # enough allocation for the collector to run here if it may
        del junk

    worker = threading.Thread(target=drop_a_cycle, name="pool")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(freed_on), timeout=10_000)
    assert freed_on == [threading.main_thread().name]
