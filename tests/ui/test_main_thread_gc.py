"""Cycles holding Qt objects are freed on the UI thread, never on a pool thread (ui/shared/qt_compat.py)."""

from __future__ import annotations

import gc
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
    assert freed_on == []  # the pool thread allocated plenty, and still did not collect
    # The UI thread's timer collects it in time; once it is promoted to an older generation that time
    # can be long, so the test collects on the UI thread itself.
    qtbot.wait(50)
    gc.collect()
    assert freed_on == [threading.main_thread().name]
