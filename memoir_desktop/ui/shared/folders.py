"""Where a file the diarist saves goes first: their documents folder, never the folder memoir happened
to be started from (a double-clicked app's working directory is / or its own install folder)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths


def documents_folder() -> Path:
    return Path(QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation) or Path.home())


def in_documents(name: str) -> str:
    """The suggested path of a file called `name` in the documents folder, for a save dialog."""
    return str(documents_folder() / name)
