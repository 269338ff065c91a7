"""What the keyboard and a screen reader need from every screen, in one place.

- `announce`: a short message said by the screen reader without moving the focus (Qt's accessibility
  announcement, WCAG 4.1.3): "Forgotten: …", "Entry moved to the trash", an error in the status bar.
- `tab_stops` / `next_stop`: Tab in reading order. Qt's own order is the order widgets were made, so a
  card added above the entries later (a letter, a follow-up) was reached last; the window asks here
  instead (MainWindow.focusNextPrevChild). Reading order: a container before what it holds; the
  widgets a layout holds in the layout's order (a grid by rows, then columns); others (a splitter's
  panes, tabs over their page) by rows, top to bottom, and left to right in a row.
- `KeyboardActivation`: Enter presses the focused button (Qt only does it in dialogs; Space works
  everywhere), and opens a tool button's menu.
- `short`: an item's words cut to a length a button's name can carry ("Forget: 고양이 이름은 보리다").
- `readable`: a label of text to read (what leaves this computer, a command to copy) made a stop the
  keyboard reaches and selects from, with the focus ring.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QGridLayout,
    QLabel,
    QLayout,
    QMainWindow,
    QRadioButton,
    QScrollArea,
    QToolButton,
    QWidget,
)

NAME_WORDS = 48  # characters of an item's text in a control's name


def short(text: str, limit: int = NAME_WORDS) -> str:
    """`text` on one line, cut at `limit` characters with "…"."""
    one_line = " ".join((text or "").split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1].rstrip() + "…"


def plain_text(text: str) -> str:
    """A label's words without their markup (rich text as it reads)."""
    if "<" not in text:
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def readable(label: QLabel) -> QLabel:
    """Tab reaches `label`, a screen reader reads it, the keyboard selects and copies from it."""
    label.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.TextSelectableByKeyboard)
    label.setFocusPolicy(Qt.TabFocus)
    label.setProperty("readable", True)  # the style sheet's focus ring (app.qss)
    return label


def announce(widget: QWidget, text: str, assertive: bool = False) -> None:
    """Have a screen reader say `text` now, where the user is (the focus does not move)."""
    if not text:
        return
    event = QAccessibleAnnouncementEvent(widget, text)
    if assertive:
        event.setPoliteness(QAccessible.AnnouncementPoliteness.Assertive)
    QAccessible.updateAccessibility(event)


# -- Tab in reading order --------------------------------------------------------------------------


def _rows(widgets: list[QWidget]) -> list[QWidget]:
    """Siblings in reading order: grouped in rows (those that overlap one another top to bottom), the
    rows from the top, each row from the left."""
    rows: list[tuple[int, list[QWidget]]] = []  # (the row's bottom, its widgets)
    for w in sorted(widgets, key=lambda w: (w.geometry().top(), w.geometry().left())):
        g = w.geometry()
        if rows and g.top() < rows[-1][0] - 2:
            bottom, members = rows[-1]
            rows[-1] = (max(bottom, g.bottom()), [*members, w])
        else:
            rows.append((g.bottom(), [w]))
    return [w for _bottom, members in rows for w in sorted(members, key=lambda w: w.geometry().left())]


def _laid_out(layout: QLayout, kids: list[QWidget]) -> list[QWidget]:
    """Those of `kids` that `layout` (or an inner layout) holds, in the order they are laid out. Asked by
    index only (QLayout.indexOf): the layout's items are never taken into Python, whose wrappers of them
    (of a status bar's own layout, say) can outlive them."""
    entries: list[tuple[tuple[int, ...], object]] = []

    def place(index: int) -> tuple[int, ...]:
        if isinstance(layout, QGridLayout):
            row, column, _rows_spanned, _columns_spanned = layout.getItemPosition(index)
            return (row, column)
        return (index,)

    for kid in kids:
        index = layout.indexOf(kid)
        if index >= 0:
            entries.append((place(index), kid))
    for inner in layout.children():
        if isinstance(inner, QLayout):
            index = layout.indexOf(inner)
            if index >= 0:
                entries.append((place(index), inner))
    out: list[QWidget] = []
    for _place, entry in sorted(entries, key=lambda e: e[0]):
        out.extend(_laid_out(entry, kids) if isinstance(entry, QLayout) else [entry])
    return out


def _children_in_order(w: QWidget) -> list[QWidget]:
    kids = [c for c in w.children() if isinstance(c, QWidget) and not c.isWindow() and c.isVisible()]
    layout = w.layout()
    if layout is None or isinstance(w, QMainWindow):  # a main window's layout is its own arrangement
        return _rows(kids)
    ordered = _laid_out(layout, kids)
    placed = set(map(id, ordered))
    return ordered + _rows([c for c in kids if id(c) not in placed])


def tab_stops(window: QWidget) -> list[QWidget]:
    """The widgets of `window` Tab can land on, in reading order."""
    out: list[QWidget] = []

    def visit(w: QWidget) -> None:
        if w is not window and w.isEnabled() and w.focusPolicy() & Qt.TabFocus and w.focusProxy() is None:
            out.append(w)
        for child in _children_in_order(w):
            visit(child)

    visit(window)
    return out


def next_stop(window: QWidget, forward: bool) -> QWidget | None:
    """Where Tab (or Shift+Tab) goes from the focus in `window`; None when the focus is not on a stop."""
    stops = tab_stops(window)
    focused = QApplication.focusWidget()
    while focused is not None and focused not in stops and focused is not window:
        focused = focused.parentWidget()
    if not stops or focused is None or focused not in stops:
        return None
    i = stops.index(focused)
    return stops[(i + (1 if forward else -1)) % len(stops)]


def focus_stop(widget: QWidget, forward: bool = True, wait: bool = True) -> None:
    """Give `widget` the focus as Tab would, and bring it into view in the scroll areas that hold it. A
    widget just put in a layout is shown by the event loop: it gets the focus once it is shown."""
    if wait and not widget.isVisible():
        QTimer.singleShot(0, widget, lambda: focus_stop(widget, forward, wait=False))
        return
    widget.setFocus(Qt.TabFocusReason if forward else Qt.BacktabFocusReason)
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            parent.ensureWidgetVisible(widget, 8, 8)
        parent = parent.parentWidget()


def put_away(widget: QWidget) -> None:
    """Hide a bar or message; the keyboard, if it was on it, goes on to what comes after it."""
    after = next_stop(widget.window(), True) if widget.isAncestorOf(QApplication.focusWidget()) else None
    widget.hide()
    if after is not None and after.isVisible():
        focus_stop(after)


# -- Enter on a focused button ------------------------------------------------------------------------


class KeyboardActivation(QObject):
    """Installed once on the application: Enter on a focused push button or tool button presses it."""

    _installed: KeyboardActivation | None = None

    @classmethod
    def install(cls, app: QApplication) -> None:
        if cls._installed is None:
            cls._installed = cls(app)
            app.installEventFilter(cls._installed)

    def eventFilter(self, obj, event) -> bool:
        if event.type() != QEvent.KeyPress or event.key() not in (Qt.Key_Return, Qt.Key_Enter):
            return False
        if event.modifiers() & ~Qt.KeypadModifier:
            return False
        if not isinstance(obj, QAbstractButton) or isinstance(obj, QCheckBox | QRadioButton):
            return False
        if obj is not QApplication.focusWidget() or not obj.isEnabled() or not obj.isVisible():
            return False
        if isinstance(obj, QToolButton) and obj.menu() is not None and obj.popupMode() == QToolButton.InstantPopup:
            obj.showMenu()
        else:
            obj.click()
        return True
