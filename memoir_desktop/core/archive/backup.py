"""Rotating daily backups of the SQLite database, and restoring one.

SQLite's online backup API copies a consistent snapshot even while the app is writing.
Backups live beside the data (`<home>/backups/`); the vector index is not backed up
because it is rebuilt from SQLite. An encrypted journal's backups are SQLCipher files under the
same data key (the backup API copies the encrypted pages as they are), so a backup is never
plainer than the journal it came from.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path

from memoir_desktop.core.db import connect_encrypted, sqlcipher_module
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.keys.private_files import create_private, private_folder
from memoir_desktop.core.storage.mirror import mirror_folder

log = logging.getLogger(__name__)

DB_NAME = "memoir.db"
PREFIX = "memoir-"


def backup_dir(home: Path) -> Path:
    return home / "backups"


def list_backups(home: Path) -> list[Path]:
    """Newest first."""
    d = backup_dir(home)
    if not d.exists():
        return []
    return sorted(d.glob(f"{PREFIX}*.db"), reverse=True)


def _connect(path: Path, data_key: bytes | None):
    if data_key is None:
        return sqlite3.connect(path)

    return connect_encrypted(path, data_key)


def _key_for(home: Path, data_key: bytes | None) -> bytes | None:
    """An encrypted journal's key, from the keyring or MEMOIR_PASSPHRASE when not given."""
    if data_key is None and crypto.is_encrypted(home):
        return crypto.KeyFile.load(home).unlock().data_key
    return data_key


def _errors(data_key: bytes | None) -> tuple[type[Exception], ...]:
    if data_key is None:
        return (sqlite3.Error,)

    return (sqlite3.Error, sqlcipher_module().Error)


def make_backup(home: Path, keep: int = 7, *, when: datetime | None = None, data_key: bytes | None = None) -> Path:
    when = when or datetime.now()
    d = backup_dir(home)
    private_folder(d)
    target = d / f"{PREFIX}{when:%Y%m%d-%H%M%S}.db"
    # Owner-only from the start: a backup holds every entry (an encrypted one still names nothing, but
    # a plain journal's backup is its text in clear).
    tmp = create_private(target.with_suffix(".db.tmp"))
    data_key = _key_for(home, data_key)
    src = _connect(home / DB_NAME, data_key)
    try:
        dst = _connect(tmp, data_key)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
    tmp.replace(target)
    for old in list_backups(home)[max(1, keep):]:
        old.unlink(missing_ok=True)
    return target


def backup_if_due(home: Path, keep: int = 7, data_key: bytes | None = None) -> Path | None:
    """One backup a day: made at open when the newest is from an earlier day."""
    if not (home / DB_NAME).exists():
        return None
    newest = next(iter(list_backups(home)), None)
    today = datetime.now().strftime("%Y%m%d")
    if newest is not None and newest.name[len(PREFIX):len(PREFIX) + 8] == today:
        return None
    if is_empty(home / DB_NAME, data_key):
        return None  # a backup of nothing would use up today's slot
    try:
        return make_backup(home, keep, data_key=data_key)
    except (OSError, *_errors(data_key)) as exc:
        log.warning("daily backup failed: %s", exc)
        return None


def is_empty(db: Path, data_key: bytes | None = None) -> bool:
    """No entry (the trash's too) and no memory (any state); a file that cannot be read is not empty."""
    con = _connect(db, data_key)
    try:
        return not any(
            con.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() for table in ("entry", "memory")
        )
    except _errors(data_key):
        return False
    finally:
        con.close()


def restore_backup(home: Path, backup: Path, data_key: bytes | None = None) -> Path:
    """Put a backup in place of the database. The replaced file is kept, never deleted.

    Must run while no Memoir is open on this home. Returns where the old file was moved.
    An encrypted journal's key comes from the keyring or MEMOIR_PASSPHRASE unless given.
    """
    backup = Path(backup)
    data_key = _key_for(home, data_key)
    check = _connect(backup, data_key)
    try:
        try:
            ok = check.execute("PRAGMA quick_check").fetchone()[0]
        except _errors(data_key) as exc:
            ok = exc.__class__.__name__
    finally:
        check.close()
    if ok != "ok":
        raise ValueError(f"{backup.name} is not a usable backup ({ok})")
    db = home / DB_NAME
    kept = home / f"{DB_NAME}.replaced-{datetime.now():%Y%m%d-%H%M%S}"
    if db.exists():
        db.replace(kept)
    for suffix in ("-wal", "-shm"):
        side = home / (DB_NAME + suffix)
        if side.exists():
            side.replace(Path(str(kept) + suffix))
    shutil.copy2(backup, db)
    # The vector index describes the replaced database; it is rebuilt at the next open.
    shutil.rmtree(home / "qdrant", ignore_errors=True)
    shutil.rmtree(mirror_folder(home / "qdrant"), ignore_errors=True)
    return kept
