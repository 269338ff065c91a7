"""What a reader of a window cannot see: words cut off, widgets outside the window, sideways scrolling.

`clipped(window)` lists each problem in words a failing test can print. It measures what Qt itself
says a widget needs (size hints, height-for-width of wrapped text) against what it was given.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QLabel,
    QScrollArea,
    QTabBar,
    QWidget,
)

SLACK = 1  # a pixel of rounding between a hint and a geometry is not a cut word


def _name(w: QWidget) -> str:
    text = w.text() if hasattr(w, "text") and callable(w.text) else ""
    return f"{type(w).__name__}({text[:50]!r})" if text else type(w).__name__


def _inside_scroll_area(w: QWidget, top: QWidget) -> bool:
    p = w.parentWidget()
    while p is not None and p is not top:
        if isinstance(p, QScrollArea):
            return True
        p = p.parentWidget()
    return False


def clipped(top: QWidget) -> list[str]:
    problems: list[str] = []
    window_rect = top.rect()
    for w in top.findChildren(QWidget):
        if not w.isVisibleTo(top) or w.width() <= 0:
            continue
        if isinstance(w, QLabel) and w.text() and not w.pixmap():
            if w.wordWrap():
                need = w.heightForWidth(w.width())
                if need > w.height() + SLACK:
                    problems.append(f"{_name(w)} needs {need} px of height, has {w.height()}")
            elif w.sizeHint().width() > w.width() + SLACK:
                problems.append(f"{_name(w)} needs {w.sizeHint().width()} px of width, has {w.width()}")
        elif isinstance(w, QAbstractButton) and w.text():
            if w.sizeHint().width() > w.width() + SLACK:
                problems.append(f"{_name(w)} needs {w.sizeHint().width()} px of width, has {w.width()}")
        if isinstance(w, QTabBar):
            # A tab past the bar's end hides behind scroll arrows ("Conn◂▸"): a page nobody finds.
            for i in range(w.count()):
                if w.tabRect(i).left() < -SLACK or w.tabRect(i).right() > w.width() + SLACK or w.tabRect(i).width() < w.tabSizeHint(i).width() - SLACK:
                    problems.append(f"the tab {w.tabText(i)!r} is cut off or hidden ({w.tabRect(i)} in {w.width()} px)")
        if isinstance(w, QAbstractScrollArea) and w.horizontalScrollBar().isVisible():
            problems.append(f"{_name(w)} scrolls sideways")
        if not _inside_scroll_area(w, top):
            rect = QRect(w.mapTo(top, QPoint(0, 0)), w.size())
            if not window_rect.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(rect):
                problems.append(f"{_name(w)} lies outside the window ({rect} in {window_rect})")
    return problems
