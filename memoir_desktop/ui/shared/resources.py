"""Where the shipped resources (translations, icons, style sheets) live.

Source checkouts keep them in `resources/` next to the package; a frozen app (PyInstaller)
unpacks them under `sys._MEIPASS/resources`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer


def resources_dir() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    base = Path(frozen) if frozen else Path(__file__).resolve().parents[3]
    return base / "resources"


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def icon(name: str, colour: QColor | None = None) -> QIcon:
    """A shipped icon; with `colour`, drawn in that colour instead of its own one (the theme's: the icon
    then makes 3:1 with the button it is on, in the light and the dark theme)."""
    path = resource("icons", f"{name}.svg")
    if not path.exists():
        return QIcon()
    if colour is None:
        return QIcon(str(path))

    svg = re.sub(r"#[0-9a-fA-F]{6}", colour.name(), path.read_text("utf-8"))
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    themed = QIcon()
    for size in (16, 24, 32, 48, 64):
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        renderer.render(painter)
        painter.end()
        themed.addPixmap(pixmap)
    return themed
