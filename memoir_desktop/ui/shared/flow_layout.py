"""`FlowLayout`: a row of controls that wraps onto the next line when the window is narrow (at 200 % on a
laptop, say), instead of squeezing a search field to "S…" or pushing buttons out of the window.

Each item gets its size hint (never less than its minimum); what is left on a line goes to the items
that expand horizontally (a search field), so on a wide window the row looks as a box layout would.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        m = self.contentsMargins()
        width = sum(i.sizeHint().width() for i in self._shown()) + self.spacing() * max(0, len(self._shown()) - 1)
        height = max((i.sizeHint().height() for i in self._shown()), default=0)
        return QSize(width + m.left() + m.right(), height + m.top() + m.bottom())

    def minimumSize(self) -> QSize:
        m = self.contentsMargins()
        size = QSize()
        for item in self._shown():
            size = size.expandedTo(self._least(item))
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _shown(self) -> list[QLayoutItem]:
        return [i for i in self._items if not (i.widget() is not None and i.widget().isHidden())]

    @staticmethod
    def _least(item: QLayoutItem) -> QSize:
        return item.minimumSize().expandedTo(QSize(min(item.sizeHint().width(), item.maximumSize().width()),
                                                   item.minimumSize().height()))

    def _place(self, rect: QRect, move: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        gap = self.spacing()
        lines: list[list[tuple[QLayoutItem, QSize]]] = [[]]
        used = 0
        for item in self._shown():
            size = self._least(item)
            size.setWidth(min(size.width(), area.width()))
            if lines[-1] and used + gap + size.width() > area.width():
                lines.append([])
                used = 0
            used += (gap if lines[-1] else 0) + size.width()
            lines[-1].append((item, size))
        y = area.y()
        for line in lines:
            if not line:
                continue
            spare = area.width() - sum(s.width() for _i, s in line) - gap * (len(line) - 1)
            growing = [i for i, _s in line if i.expandingDirections() & Qt.Orientation.Horizontal]
            height = max(s.height() for _i, s in line)
            x = area.x()
            for item, size in line:
                width = size.width()
                if growing and item in growing and spare > 0:
                    width = min(item.maximumSize().width(), width + spare // len(growing))
                if move:
                    top = y + (height - size.height()) // 2
                    item.setGeometry(QRect(QPoint(x, top), QSize(width, size.height())))
                x += width + gap
            y += height + gap
        return y - gap - area.y() + m.top() + m.bottom() if y > area.y() else m.top() + m.bottom()
