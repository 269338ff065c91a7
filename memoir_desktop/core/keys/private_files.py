"""Files that hold the user's words (exports, backups, the key file) are readable by their owner only.

The mode is set when the file is created, never by a chmod afterwards: between a create with the
process umask and a later chmod, another account could open the file and keep reading it.
`mkstemp` and `os.open(..., 0o600)` create it owner-only whatever the umask (a umask only removes
bits). Windows ignores the mode; its profile folders are private already.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

MODE = 0o600


def write_private(path: str | os.PathLike[str], data: bytes | str) -> Path:
    """Write `data` (text as UTF-8 with "\\n" newlines) to `path`, owner-only and atomically: a
    temporary file in the same folder, then os.replace, so a cut-short write never leaves half a
    file under the final name and never replaces a good one."""
    target = Path(path)
    body = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def create_private(path: str | os.PathLike[str]) -> Path:
    """An empty owner-only file at `path` (a stale one is replaced), for SQLite to fill: SQLite opens
    an existing file with the mode it has, and gives its journal files that same mode."""
    target = Path(path)
    target.unlink(missing_ok=True)
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, MODE))
    return target
