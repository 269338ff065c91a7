"""Where the shipped resources (translations, icons, style sheets) live.

Source checkouts keep them in `resources/` next to the package; a frozen app (PyInstaller)
unpacks them under `sys._MEIPASS/resources`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtGui import QIcon


def resources_dir() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    base = Path(frozen) if frozen else Path(__file__).resolve().parents[3]
    return base / "resources"


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def icon(name: str) -> QIcon:
    path = resource("icons", f"{name}.svg")
    return QIcon(str(path)) if path.exists() else QIcon()
