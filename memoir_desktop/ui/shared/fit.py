"""Windows as tall as their wrapped sentences need.

Qt sizes a top-level window from its layout's minimum and hint, which ignore height-for-width: a
window with wrapped text opened (or, after an error line appeared, stayed) too short, and its
sentences were cut off at the bottom — worst in Korean, whose lines wrap differently.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget


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
