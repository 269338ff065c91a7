"""`KeyboardSplitter`: a splitter whose handle the keyboard can reach and move (WCAG 2.1.1).

Tab lands on the handle between the two panes (a bar in the focus colour shows it); Left and Right
(Up and Down for a vertical one) move it by a step, with Shift by four, Home and End as far as it goes.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QSplitter, QSplitterHandle

from memoir_desktop.ui.shared.theme import colour

STEP = 24


class KeyboardHandle(QSplitterHandle):
    def __init__(self, orientation, parent: QSplitter):
        super().__init__(orientation, parent)
        self.setFocusPolicy(Qt.TabFocus)

    def keyPressEvent(self, event) -> None:
        horizontal = self.orientation() == Qt.Horizontal
        back, forth = (Qt.Key_Left, Qt.Key_Right) if horizontal else (Qt.Key_Up, Qt.Key_Down)
        step = STEP * (4 if event.modifiers() & Qt.ShiftModifier else 1)
        key = event.key()
        if key in (back, forth):
            self.nudge(step if key == forth else -step)
        elif key in (Qt.Key_Home, Qt.Key_End):
            self.nudge(-100_000 if key == Qt.Key_Home else 100_000)
        else:
            super().keyPressEvent(event)

    def nudge(self, by: int) -> None:
        """Move the handle `by` pixels (the panes' own minimum sizes still hold)."""
        splitter = self.splitter()
        i = splitter.indexOf(self)
        if i <= 0:
            return
        sizes = splitter.sizes()
        by = max(-sizes[i - 1], min(by, sizes[i]))
        sizes[i - 1] += by
        sizes[i] -= by
        splitter.setSizes(sizes)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        r = self.rect()
        horizontal = self.orientation() == Qt.Horizontal
        if self.hasFocus():
            bar = QRect(r.center().x() - 2, r.top(), 4, r.height()) if horizontal else \
                QRect(r.left(), r.center().y() - 2, r.width(), 4)
            painter.fillRect(bar, colour("focus"))
        else:
            line = QRect(r.center().x(), r.top(), 1, r.height()) if horizontal else \
                QRect(r.left(), r.center().y(), r.width(), 1)
            painter.fillRect(line, colour("border"))
        painter.end()

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.update()


class KeyboardSplitter(QSplitter):
    def __init__(self, orientation, handle_name: str = "", parent=None):
        self._handle_name = handle_name
        super().__init__(orientation, parent)
        self.setHandleWidth(8)

    def createHandle(self) -> QSplitterHandle:
        handle = KeyboardHandle(self.orientation(), self)
        handle.setAccessibleName(self._handle_name)
        return handle
