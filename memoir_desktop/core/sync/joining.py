"""Joining a journal kept in a sync place on a computer whose own journal is still empty.

A second computer's first start makes a journal of its own (the keyring keeps its key) before the
diarist says that the journal already lives elsewhere. engine.join refuses a home that has a journal, so
the empty one is set aside first, the joined journal is made in its place, and if joining fails the empty
one is put back as it was. A journal with any entry or memory is never replaced.

Set aside, not deleted: the check that it is empty and the move are not one atomic step for every other
program (an MCP server or memoir-cli may write between them), a journal deleted by mistake cannot come
back, and an empty journal costs a few hundred kilobytes. It goes into a dated folder inside the home
(`empty-journal-YYYYMMDD-HHMMSS`), where nothing reads it and the diarist can find it.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

from sqlalchemy import text

from memoir_desktop.core.archive import backup
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.sync import engine, errors
from memoir_desktop.core.sync.report import Progress

ASIDE_PREFIX = "empty-journal-"
# What makes up a journal in its home, besides memoir.db and the files named after it (-wal, -shm, a
# backup restore's .replaced-…, a conversion's .encrypting). settings.json and llm_modes.json belong to
# this computer (language, AI companion) and stay.
JOURNAL_PARTS = ("memoir.key", "memoir.conversion", "qdrant", "qdrant-mirror", "backups")
# What a join writes: removed when it fails, before the empty journal is put back.
JOINED_PARTS = ("memoir.key", "qdrant", "qdrant-mirror")


class NotEmpty(errors.SyncError):
    """This computer's journal has an entry or a memory: it is never replaced by a joined one."""

    code = "not_empty"


def is_empty(db_engine) -> bool:
    """No entry (the trash's too) and no memory, in any state: nothing the diarist could miss."""
    with db_engine.connect() as con:
        return not any(con.execute(text(f"SELECT 1 FROM {table} LIMIT 1")).first() for table in ("entry", "memory"))


def join_here(memoir_cls, home: Path, opened: engine.Opened, *, data_key: bytes | None = None,
              progress: Progress | None = None, **overrides):
    """The journal `opened` (engine.open_place) made in `home`, replacing an empty journal there (which is
    set aside), or into a home with none. Must run while no Memoir has `home` open; `data_key` opens the
    empty journal's database to check it is empty. Raises NotEmpty before anything is moved; any other
    failure puts the empty journal back and is raised. Returns the joined Memoir (open, first round done)."""
    home = Path(home)
    aside = set_aside(home, data_key)
    try:
        return engine.join(memoir_cls, opened.url, opened.passphrase, home=home, progress=progress, opened=opened,
                           **overrides)
    except BaseException:
        _discard_join(home, opened)
        _move_back(home, aside)
        raise


def _journal_files(home: Path) -> list[Path]:
    return sorted(home.glob("memoir.db*")) + [home / name for name in JOURNAL_PARTS if (home / name).exists()]


def set_aside(home: Path, data_key: bytes | None) -> Path | None:
    """The journal in `home` moved into a dated folder there; None when there is none. Raises NotEmpty
    (and moves nothing) when it has an entry or a memory, or cannot be read to tell."""
    files = _journal_files(home)
    if not files:
        return None
    db = home / backup.DB_NAME
    if db.exists() and not backup.is_empty(db, data_key):
        raise NotEmpty("This computer's journal has entries or memories: it is not replaced by another one.")
    stamp = f"{ASIDE_PREFIX}{datetime.now():%Y%m%d-%H%M%S}"
    aside, n = home / stamp, 1
    while aside.exists():
        n += 1
        aside = home / f"{stamp}-{n}"
    aside.mkdir()
    try:
        for path in files:
            path.replace(aside / path.name)
    except BaseException:
        _move_back(home, aside)  # a file another program holds open (Windows): everything goes back
        raise
    return aside


def _discard_join(home: Path, opened: engine.Opened) -> None:
    """What a failed join wrote in `home`: a partial copy of what the sync place still holds whole. Only
    when the key file there is the joined journal's (the join got as far as writing it): anything else
    in the home is not the join's to remove."""
    try:
        ours = crypto.KeyFile.load(home).data.get("verifier") == crypto.verifier(opened.data_key)
    except crypto.KeyFileDamaged:
        ours = False
    if not ours:
        return
    for path in sorted(home.glob("memoir.db*")) + [home / name for name in JOINED_PARTS]:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists():
            path.unlink()


def _move_back(home: Path, aside: Path | None) -> None:
    if aside is None:
        return
    for path in aside.iterdir():
        path.replace(home / path.name)
    aside.rmdir()
