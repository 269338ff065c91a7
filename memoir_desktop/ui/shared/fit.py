"""Windows as tall as their wrapped sentences need, and path fields as wide as their paths.

Qt sizes a top-level window from its layout's minimum and hint, which ignore height-for-width: a
window with wrapped text opened (or, after an error line appeared, stayed) too short, and its
sentences were cut off at the bottom — worst in Korean, whose lines wrap differently.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QWidget

PATH_LEAST = 420  # a path field's width at the least: most documents-folder paths fit whole
PATH_MOST = 0.7  # of the screen's width at the most (then the end, the file's name, is shown)


def grow_to_fit(window: QWidget) -> None:
    """Make `window` tall enough for its text at its current width (never shrinks it)."""
    layout = window.layout()
    if layout is None:
        return
    layout.activate()
    if not layout.hasHeightForWidth():
        return
    need = layout.totalHeightForWidth(window.width())
    if need > window.height():
        window.resize(window.width(), need)


def show_whole(edit: QLineEdit) -> None:
    """A path field as wide as its whole path, within the screen (the window grows with it); a longer
    one shows its end, where the file's name is."""

    def fit(text: str) -> None:
        screen = edit.screen()
        most = int((screen.availableGeometry().width() if screen else 1600) * PATH_MOST)
        need = edit.fontMetrics().horizontalAdvance(text) + 24
        edit.setMinimumWidth(max(min(need, most), min(PATH_LEAST, most)))
        if not edit.hasFocus():
            edit.setCursorPosition(len(text))

    edit.textChanged.connect(fit)
    fit(edit.text())
