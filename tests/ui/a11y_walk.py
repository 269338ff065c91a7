"""The accessibility walk: what a keyboard and screen-reader user meets on a page or a dialog.

Everything is read from what Qt itself gives an assistive technology or draws on screen, not guessed
from widget classes: the focus chain and the Tab key (QTest), names, descriptions, roles and states
from `QAccessible.queryAccessibleInterface`, and contrast measured on the pixels of the rendered
window (WCAG 2.2 relative luminance). Each check returns the problems it found, in words; an empty
list is a pass. test_accessibility_walk.py runs them over every page and dialog, in both themes and
both languages, and prints the table of pages × checks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from functools import cmp_to_key, lru_cache

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QAccessible, QColor, QFont, QImage, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QStyle,
    QStyleOptionButton,
    QTabBar,
    QTextEdit,
    QWidget,
)

CHECKS = ("named", "unique", "content", "tab-out", "tab-order", "focus-visible", "text-contrast",
          "ui-contrast")

TEXT_AA, LARGE_TEXT_AA, UI_AA = 4.5, 3.0, 3.0
FOCUS_CHANGE = 3.0  # WCAG 2.4.13's measure: the focused and unfocused pixels differ by 3:1


@lru_cache(maxsize=1 << 16)
def _luminance(rgb: int) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel((rgb >> 16) & 255) + 0.7152 * channel((rgb >> 8) & 255) + 0.0722 * channel(rgb & 255)


def luminance(colour: QColor) -> float:
    """WCAG 2.2 relative luminance of an sRGB colour."""
    return _luminance(colour.rgb() & 0xFFFFFF)


def pixel_ratio(p: int, q: int) -> float:
    """The WCAG contrast ratio of two pixels (0xAARRGGBB)."""
    la, lb = _luminance(p & 0xFFFFFF), _luminance(q & 0xFFFFFF)
    if la < lb:
        la, lb = lb, la
    return (la + 0.05) / (lb + 0.05)


def contrast_ratio(a: QColor, b: QColor) -> float:
    return pixel_ratio(a.rgb(), b.rgb())


# -- what is there ----------------------------------------------------------------------------------


def settle(rounds: int = 3) -> None:
    for _ in range(rounds):
        QApplication.processEvents()


def _shown(w: QWidget) -> bool:
    return w.isVisible() and w.width() > 0 and w.height() > 0


def focusables(root: QWidget) -> list[QWidget]:
    """The widgets Tab can land on inside `root`'s window part: shown, enabled, taking Tab focus, not
    forwarding it to another (a focus proxy)."""
    window = root.window()
    out = []
    for w in [root, *root.findChildren(QWidget)]:
        if w.window() is not window or not w.isVisible() or not w.isEnabled():
            continue
        if w.focusProxy() is not None or not (w.focusPolicy() & Qt.TabFocus):
            continue
        if w is window and not isinstance(w, QLineEdit):
            continue
        out.append(w)
    return out


def accessible(w: QWidget) -> tuple[str, str, QAccessible.Role, QAccessible.State]:
    iface = QAccessible.queryAccessibleInterface(w)
    if iface is None:
        return "", "", QAccessible.Role.NoRole, QAccessible.State()
    return (iface.text(QAccessible.Text.Name) or "", iface.text(QAccessible.Text.Description) or "",
            iface.role(), iface.state())


def label(w: QWidget) -> str:
    """How a widget is named in a problem: its kind, its accessible name or text."""
    name = accessible(w)[0]
    if not name and isinstance(w, QAbstractButton | QLabel | QLineEdit):
        name = w.text()
    return f"{type(w).__name__}{'#' + w.objectName() if w.objectName() else ''} {name[:40]!r}"


def _might_be_rich(text: str) -> bool:
    from PySide6.QtGui import Qt as GuiQt

    return GuiQt.mightBeRichText(text)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


# -- reading order ----------------------------------------------------------------------------------


def _path(w: QWidget, top: QWidget) -> list[QWidget]:
    path = [w]
    while path[-1] is not top and path[-1].parentWidget() is not None:
        path.append(path[-1].parentWidget())
    return path[::-1]


def before(b: QWidget, a: QWidget) -> bool:
    """Whether `b` reads before `a`: an ancestor reads before what it holds; otherwise the two
    children of their nearest common ancestor that hold them are compared where they are drawn: the
    one entirely above comes first, and of two side by side, the one on the left."""
    if b.isAncestorOf(a):
        return True
    if a.isAncestorOf(b):
        return False
    top = a.window()
    pa, pb = _path(a, top), _path(b, top)
    i = 0
    while i < min(len(pa), len(pb)) and pa[i] is pb[i]:
        i += 1
    if i == 0 or i >= len(pa) or i >= len(pb):
        return False
    ra, rb = pa[i].geometry(), pb[i].geometry()
    if rb.bottom() < ra.top() + 2:
        return True
    if ra.bottom() < rb.top() + 2:
        return False
    return rb.right() < ra.left() + 2


def reading_order(widgets: list[QWidget]) -> list[QWidget]:
    def cmp(a, b):
        return -1 if before(a, b) else 1 if before(b, a) else 0
    return sorted(widgets, key=cmp_to_key(cmp))


# -- the checks ---------------------------------------------------------------------------------------


def check_named(root: QWidget) -> list[str]:
    """Every place Tab lands has a name a screen reader can say (WCAG 4.1.2)."""
    return [f"{label(w)} has no accessible name" for w in focusables(root) if not accessible(w)[0].strip()]


def check_unique(root: QWidget) -> list[str]:
    """No two controls answer to the same name: 'Forget this memory' ×8 says nothing of which."""
    names = Counter(_norm(accessible(w)[0]) for w in focusables(root) if accessible(w)[0].strip())
    return [f"{n} controls are all named {name!r}" for name, n in names.items() if n > 1]


def _content_labels(root: QWidget) -> list[QLabel]:
    """Text a sighted user can select and copy: an entry, a reply, a memory, a result."""
    window = root.window()
    return [lab for lab in root.findChildren(QLabel)
            if lab.window() is window and _shown(lab) and lab.text().strip()
            and lab.textInteractionFlags() & Qt.TextSelectableByMouse]


def _plain(lab: QLabel) -> str:
    if lab.textFormat() == Qt.PlainText or (lab.textFormat() == Qt.AutoText and not _might_be_rich(lab.text())):
        return lab.text()
    doc = QTextDocument()
    doc.setHtml(lab.text())
    return doc.toPlainText()


def check_content(root: QWidget) -> list[str]:
    """Entries, replies and memories can be reached and read: each selectable text is a place Tab
    lands on itself, or lies in one whose name or description says it."""
    problems = []
    for lab in _content_labels(root):
        text = _norm(_plain(lab))[:40]
        if not text:
            continue
        if lab.focusPolicy() & Qt.TabFocus and lab.textInteractionFlags() & Qt.TextSelectableByKeyboard:
            continue
        holder = lab
        found = False
        while holder is not None and holder is not root.window().parentWidget():
            if holder.focusPolicy() & Qt.TabFocus and holder.isEnabled():
                name, desc, _role, _state = accessible(holder)
                if text in _norm(name) or text in _norm(desc):
                    found = True
                    break
            holder = holder.parentWidget()
        if not found:
            problems.append(f"text {text!r} is not reachable by keyboard nor said by a screen reader")
    return problems


def _is_text_field(w: QWidget) -> bool:
    _name, _desc, role, state = accessible(w)
    return role == QAccessible.Role.EditableText and state.editable and not state.readOnly


def check_tab_out(root: QWidget) -> list[str]:
    """Tab leaves every text field and types nothing into it (WCAG 2.1.2, no keyboard trap)."""
    problems = []
    for w in focusables(root):
        if not _is_text_field(w):
            continue
        w.setFocus(Qt.TabFocusReason)
        settle(1)
        before_text = _field_text(w)
        QTest.keyClick(w, Qt.Key_Tab)
        settle(1)
        now = QApplication.focusWidget()
        if _field_text(w) != before_text:
            problems.append(f"Tab typed into {label(w)}")
            _set_field_text(w, before_text)
        elif now is w or (now is not None and w.isAncestorOf(now)):
            problems.append(f"Tab does not leave {label(w)}")
    return problems


def _field_text(w: QWidget) -> str:
    if isinstance(w, QPlainTextEdit | QTextEdit):
        return w.toPlainText()
    if isinstance(w, QLineEdit):
        return w.text()
    return ""


def _set_field_text(w: QWidget, text: str) -> None:
    if isinstance(w, QPlainTextEdit):
        w.setPlainText(text)
    elif isinstance(w, QTextEdit):
        w.setPlainText(text)
    elif isinstance(w, QLineEdit):
        w.setText(text)


def tab_walk(root: QWidget, start: QWidget | None = None) -> list[QWidget]:
    """The widgets Tab visits from `start` (the first in reading order), until it comes back. A widget
    that keeps the focus for a few presses (a date's day, month and year) is left when it lets go."""
    stops = focusables(root)
    if not stops:
        return []
    first = start or reading_order(stops)[0]
    first.setFocus(Qt.TabFocusReason)
    settle(1)
    seen = [QApplication.focusWidget() or first]
    for _ in range(len(stops) + 8):
        current = QApplication.focusWidget()
        if current is None:
            break
        now = current
        for _press in range(6):
            QTest.keyClick(now, Qt.Key_Tab)
            settle(1)
            now = QApplication.focusWidget()
            if now is not current:
                break
        if now is None or now is current or now is seen[0] or now in seen:
            break
        seen.append(now)
    return seen


def check_tab_order(root: QWidget) -> list[str]:
    """Tab reaches every control of the page, in reading order (WCAG 2.4.3): never back up the page."""
    stops = focusables(root)
    walked = tab_walk(root)
    problems = []
    inside = [w for w in walked if w is root or root.isAncestorOf(w)]
    for w in stops:
        if w not in walked:
            problems.append(f"Tab never reaches {label(w)}")
    for a, b in zip(inside, inside[1:], strict=False):
        if before(b, a):
            problems.append(f"Tab goes back up the page: from {label(a)} to {label(b)}")
    return problems


def _grab(window: QWidget) -> QImage:
    settle(2)
    return window.grab().toImage().convertToFormat(QImage.Format_RGB32)


def _rect_in(window: QWidget, w: QWidget, grow: int = 0) -> QRect:
    top_left = w.mapTo(window, QPoint(0, 0))
    r = QRect(top_left, w.size()).adjusted(-grow, -grow, grow, grow)
    return r.intersected(QRect(QPoint(0, 0), window.size()))


def _scroll_to(w: QWidget) -> None:
    """Bring `w` into view in every scroll area that holds it (as Tab does)."""
    parent = w.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            parent.ensureWidgetVisible(w, 8, 8)
        parent = parent.parentWidget()
    settle(1)


def _seen_rect(window: QWidget, w: QWidget) -> QRect:
    """The part of `w` on screen now, in window coordinates (none when scrolled away or covered)."""
    region = w.visibleRegion()
    if isinstance(w, QAbstractScrollArea):  # its viewport covers it: what the viewport shows is shown
        region += w.viewport().visibleRegion().translated(w.viewport().pos())
    seen = region.boundingRect()
    if seen.isEmpty():
        return QRect()
    return QRect(w.mapTo(window, seen.topLeft()), seen.size()).intersected(QRect(QPoint(0, 0), window.size()))


def _clear_focus(window: QWidget) -> None:
    focused = QApplication.focusWidget()
    if focused is not None:
        focused.clearFocus()
    settle(1)


def check_focus_visible(root: QWidget, limit: int = 80) -> list[str]:
    """Where the keyboard is can be seen: focusing a control changes a ring of pixels around it by
    at least 3:1 (WCAG 2.4.7 and 1.4.11), in this theme."""
    window = root.window()
    problems = []
    stops = focusables(root)[:limit]
    for w in stops:
        _scroll_to(w)
        if not _shown(w) or _seen_rect(window, w).isEmpty():
            problems.append(f"{label(w)} takes focus but is not drawn where it can be seen")
            continue
        _clear_focus(window)
        plain = _grab(window)
        w.setFocus(Qt.TabFocusReason)
        focused = _grab(window)
        if QApplication.focusWidget() is not w:
            continue  # it gave its focus on (a compound widget): judged where the focus went
        r = _rect_in(window, w, 4)
        size = w.size()
        if isinstance(w, QTabBar) and w.currentIndex() >= 0:  # the focus is on one tab: it is the control
            tab = w.tabRect(w.currentIndex())
            r = QRect(w.mapTo(window, tab.topLeft()), tab.size()).adjusted(-4, -4, 4, 4)
            size = tab.size()
        changed = 0
        for y in range(r.top(), r.bottom() + 1):
            for x in range(r.left(), r.right() + 1):
                p, q = plain.pixel(x, y), focused.pixel(x, y)
                if p != q and pixel_ratio(p, q) >= FOCUS_CHANGE:
                    changed += 1
        perimeter = 2 * (size.width() + size.height())
        need = int(0.9 * min(perimeter, 400))
        if changed < need:
            problems.append(f"focus on {label(w)} is hard to see ({changed} px change by 3:1, {need} needed)")
    _clear_focus(window)
    return problems


# -- contrast ---------------------------------------------------------------------------------------


def _mode(image: QImage, rect: QRect) -> QColor:
    counts: Counter = Counter()
    for y in range(rect.top(), rect.bottom() + 1):
        for x in range(rect.left(), rect.right() + 1):
            counts[image.pixel(x, y)] += 1
    return QColor.fromRgb(counts.most_common(1)[0][0]) if counts else QColor()


def _ink(image: QImage, rect: QRect, background: QColor) -> float:
    """The strongest contrast any pixel in `rect` makes with `background` (glyph stems are drawn in
    the text's own colour; their edges are blends)."""
    best = 1.0
    bg = background.rgb()
    seen = set()
    for y in range(rect.top(), rect.bottom() + 1):
        for x in range(rect.left(), rect.right() + 1):
            p = image.pixel(x, y)
            if p in seen:
                continue
            seen.add(p)
            best = max(best, pixel_ratio(p, bg))
    return best


def _large(font: QFont) -> bool:
    points = font.pointSizeF() if font.pointSizeF() > 0 else font.pixelSize() * 0.75
    return points >= 18 or (points >= 14 and font.weight() >= QFont.Weight.DemiBold)


def _words(text: str) -> bool:
    return bool(re.search(r"\w", text))


def _doc_colours(doc: QTextDocument) -> list[tuple[QColor, QColor | None, str]]:
    """(text colour, its own background or None, the words) of every fragment that sets a colour."""
    out = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            fmt = frag.charFormat()
            if frag.isValid() and fmt.foreground().style() != Qt.NoBrush and _words(frag.text()):
                bg = fmt.background().color() if fmt.background().style() != Qt.NoBrush else None
                out.append((fmt.foreground().color(), bg, frag.text()))
            it += 1
        block = block.next()
    return out


def _views(root: QWidget):
    """The window as drawn now, then with each scroll area of `root` scrolled a page at a time, so text
    out of view is drawn once too. Yields the window's image; puts every scroll back after."""
    window = root.window()
    yield _grab(window)
    for area in root.findChildren(QScrollArea):
        if area.window() is not window or not area.isVisible():
            continue
        bar = area.verticalScrollBar()
        if bar.maximum() <= 0:
            continue
        kept = bar.value()
        step = max(40, area.viewport().height() - 40)
        for value in list(range(0, bar.maximum(), step))[:8] + [bar.maximum()]:
            bar.setValue(value)
            yield _grab(window)
        bar.setValue(kept)
        settle(1)


def _text_of(w: QWidget) -> tuple[str, QTextDocument | None]:
    """The words `w` draws (a placeholder when empty) and its rich-text document, if any."""
    if isinstance(w, QLabel):
        text = w.text()
        if w.textFormat() == Qt.RichText or (w.textFormat() == Qt.AutoText and _might_be_rich(text)):
            doc = QTextDocument()
            doc.setHtml(text)
            return doc.toPlainText(), doc
        return text, None
    if isinstance(w, QLineEdit) and not w.text():
        return w.placeholderText(), None
    if isinstance(w, QPlainTextEdit) and not w.toPlainText():
        return w.placeholderText(), None
    if isinstance(w, QTextEdit):
        return "", w.document()
    return "", None


def check_text_contrast(root: QWidget) -> list[str]:
    """Text reads at 4.5:1 against what it is drawn on (3:1 when large), placeholders, timestamps and
    coloured words in rich text included (WCAG 1.4.3), scrolled into view where it is out of it.
    Disabled controls are exempt."""
    window = root.window()
    problems = []
    candidates = []
    for w in [root, *root.findChildren(QWidget)]:
        if w.window() is not window or not _shown(w) or not w.isEnabled():
            continue
        text, rich = _text_of(w)
        if _words(text) or rich is not None:
            candidates.append((w, text, rich))
    done: set[int] = set()
    for image in _views(root):
        for w, text, rich in candidates:
            if id(w) in done:
                continue
            seen = _seen_rect(window, w)
            full = _rect_in(window, w)
            if seen.isEmpty() or (seen.height() < min(full.height(), 30) or seen.width() < min(full.width(), 30)):
                continue
            done.add(id(w))
            need = LARGE_TEXT_AA if _large(w.font()) else TEXT_AA
            inset = 3 if seen.height() > 12 and seen.width() > 12 else 0
            inner = seen.adjusted(inset, min(inset, 1), -inset, -min(inset, 1))
            if inner.isEmpty():
                continue
            background = _mode(image, inner)
            if _words(text):
                found = _ink(image, inner, background)
                if found < need - 0.05:
                    problems.append(f"{text.strip()[:40]!r} at {found:.2f}:1 (needs {need}:1)")
            if rich is not None:
                for colour, own_bg, words in _doc_colours(rich):
                    against = own_bg or background
                    ratio = contrast_ratio(colour, against)
                    if ratio < TEXT_AA - 0.05:
                        problems.append(f"{words.strip()[:30]!r} in {colour.name()} on {against.name()} at "
                                        f"{ratio:.2f}:1 (needs {TEXT_AA}:1)")
    return problems


def _ring(r: QRect, inside: int, outside: int) -> list[tuple[int, int]]:
    outer, inner = r.adjusted(-outside, -outside, outside, outside), r.adjusted(inside, inside, -inside, -inside)
    return [(x, y) for y in range(outer.top(), outer.bottom() + 1) for x in range(outer.left(), outer.right() + 1)
            if not inner.contains(x, y)]


def _boundary(image: QImage, window: QWidget, w: QWidget) -> tuple[float, float]:
    """(the edge's strongest contrast with what surrounds it, the fill's contrast with it)."""
    r = _rect_in(window, w)
    bounds = QRect(QPoint(0, 0), window.size())
    around = [p for p in _ring(r.adjusted(-2, -2, 2, 2), 0, 2) if bounds.contains(*p)]
    if not around:
        return 21.0, 21.0
    counts = Counter(image.pixel(x, y) for x, y in around)
    outside = QColor.fromRgb(counts.most_common(1)[0][0])
    edge = max((pixel_ratio(image.pixel(x, y), outside.rgb()) for x, y in _ring(r, 2, 0)
                if bounds.contains(x, y)), default=1.0)
    fill = contrast_ratio(_mode(image, r.adjusted(3, 3, -3, -3)), outside) if r.width() > 8 and r.height() > 8 else 1.0
    return edge, fill


def check_ui_contrast(root: QWidget) -> list[str]:
    """Controls can be told from what they sit on (WCAG 1.4.11): a drawn edge of a button or a field,
    a check box's box and an icon make 3:1 with their surroundings. A control drawn as text alone
    (a link) is judged by its text."""
    window = root.window()
    problems = []
    for w in focusables(root):
        kinds = QAbstractButton | QLineEdit | QPlainTextEdit | QComboBox | QAbstractSpinBox
        if not isinstance(w, kinds) or (isinstance(w, QPlainTextEdit) and w.isReadOnly()):
            continue
        _scroll_to(w)
        if _seen_rect(window, w) != _rect_in(window, w):
            continue  # judged where it can be seen whole (focus-visible says when it cannot)
        image = _grab(window)
        if isinstance(w, QCheckBox):
            opt = QStyleOptionButton()
            opt.initFrom(w)
            box = w.style().subElementRect(QStyle.SE_CheckBoxIndicator, opt, w)
            r = _rect_in(window, w)
            box.translate(r.topLeft())
            ratio = _ink(image, box, _mode(image, r))
            if ratio < UI_AA - 0.05:
                problems.append(f"the box of {label(w)} at {ratio:.2f}:1 (needs {UI_AA}:1)")
            continue
        edge, fill = _boundary(image, window, w)
        if max(edge, fill) < 1.1 and isinstance(w, QAbstractButton) and w.text().strip():
            continue  # drawn as text alone: the text contrast check covers it
        if max(edge, fill) < UI_AA - 0.05:
            problems.append(f"the edge of {label(w)} at {max(edge, fill):.2f}:1 (needs {UI_AA}:1)")
        if isinstance(w, QAbstractButton) and not w.text().strip() and not w.icon().isNull():
            r = _rect_in(window, w)
            glyph = QRect(0, 0, w.iconSize().width(), w.iconSize().height())
            glyph.moveCenter(r.center())
            ratio = _ink(image, glyph, _mode(image, r.adjusted(3, 3, -3, -3)))
            if ratio < UI_AA - 0.05:
                problems.append(f"the icon of {label(w)} at {ratio:.2f}:1 (needs {UI_AA}:1)")
    return problems


WALK: dict[str, Callable[[QWidget], list[str]]] = {
    "named": check_named, "unique": check_unique, "content": check_content, "tab-out": check_tab_out,
    "tab-order": check_tab_order, "focus-visible": check_focus_visible, "text-contrast": check_text_contrast,
    "ui-contrast": check_ui_contrast,
}


def walk(root: QWidget) -> dict[str, list[str]]:
    """Every check on `root` (a page in its window, or a dialog)."""
    root.window().activateWindow()
    settle()
    results = {}
    for name in CHECKS:
        results[name] = WALK[name](root)
    return results


def table(results: dict[str, dict[str, list[str]]]) -> str:
    """Pages × checks: ✓, or the number of problems."""
    width = max([len(p) for p in results] + [12])
    head = "page".ljust(width) + " " + " ".join(c.ljust(13) for c in CHECKS)
    lines = [head, "-" * len(head)]
    for page, found in results.items():
        cells = [("✓" if not found.get(c) else f"✗ {len(found[c])}").ljust(13) for c in CHECKS]
        lines.append(page.ljust(width) + " " + " ".join(cells))
    return "\n".join(lines)
