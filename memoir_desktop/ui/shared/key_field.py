"""A key shown once (the recovery key, an app's access key): read-only, monospaced, whole in view.

Both are read once and copied or written down by hand, so the field is never narrower than the key:
a scrolled field hid its end, and a character missed there is a key that opens nothing.
"""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLineEdit


def key_field(key: str, accessible_name: str) -> QLineEdit:
    field = QLineEdit(key)
    field.setReadOnly(True)
    field.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
    field.setAccessibleName(accessible_name)
    m = field.textMargins()
    field.setMinimumWidth(field.fontMetrics().horizontalAdvance(key + "  ") + m.left() + m.right() + 16)
    field.setCursorPosition(0)
    return field
