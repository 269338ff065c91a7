"""Every file memoir writes is readable by its owner only, and its folders are private.

The mode is set when the file is created, never by a chmod afterwards: between a create with the
process umask and a later chmod, another account could open the file and keep reading it.

Two layers, because one alone misses something:

* the process umask (`owner_only_umask`, the first thing memoir-cli, the MCP server and the app do)
  covers every file some library creates on its own terms: SQLite's -wal and -shm files, the log's
  rotated files, settings.json, fsspec's uploads to a sync folder, Qdrant's files. A umask only removes
  bits, so 077 makes all of them 0600 and folders 0700, whatever the library asks for;
* the files that hold the words in the clear or the key (exports, backups, the key file) are created
  0600 here (`write_private`, `create_private`: `mkstemp` and `os.open(..., 0o600)`), and the data
  and log folders 0700 (`private_folder`), so they are private even where memoir is used as a library
  in a process that kept a looser umask.

Windows ignores the modes; its profile folders are private already.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

MODE = 0o600
FOLDER_MODE = 0o700
UMASK = 0o077


def owner_only_umask() -> None:
    """From now on this process creates files 0600 and folders 0700 (see the module's note)."""
    if os.name == "posix":
        os.umask(UMASK)


def private_folder(path: str | os.PathLike[str]) -> Path:
    """The folder at `path`, made if missing, readable by its owner only (a folder memoir made before
    with a looser mode is closed too: it is memoir's own, the data or log folder)."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    if os.name == "posix" and (os.stat(folder).st_mode & 0o777) != FOLDER_MODE:
        os.chmod(folder, FOLDER_MODE)
    return folder


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
