"""Work-arounds for defects of specific Qt for Python releases, applied once at start-up."""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QPointF


def guard_none_refcount() -> None:
    """PySide6 6.12.0 on CPython < 3.12 returns None from a void method, and True from a signal's
    emit(), without a new reference (6.11.3 does not): every call (setPos, each QPainter call in a
    paint, each emit) takes one of the ~40k references, and a few seconds of animated canvas bring
    one to zero, which aborts the interpreter ("none_dealloc" / "bool_dealloc"). When the leak is
    measured here, None, True and False get references they cannot run out of, as 3.12's immortal
    singletons have anyway. pyproject.toml excludes 6.12.0; this guards installs that have it anyway."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return
    probe = QPointF()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setX(0.0)
    if before - sys.getrefcount(None) >= 32:
        for singleton in (None, True, False):
            ctypes.c_ssize_t.from_address(id(singleton)).value += 1 << 40

