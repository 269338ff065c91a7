"""Rotating daily backups of the SQLite database, and restoring one.

SQLite's online backup API copies a consistent snapshot even while the app is writing.
Backups live beside the data (`<home>/backups/`); the vector index is not backed up
because it is rebuilt from SQLite.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path

from memoir_desktop.core.mirror import mirror_folder

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


def make_backup(home: Path, keep: int = 7, *, when: datetime | None = None) -> Path:
    when = when or datetime.now()
    d = backup_dir(home)
    d.mkdir(parents=True, exist_ok=True)
    target = d / f"{PREFIX}{when:%Y%m%d-%H%M%S}.db"
    tmp = target.with_suffix(".db.tmp")
    src = sqlite3.connect(home / DB_NAME)
    try:
        dst = sqlite3.connect(tmp)
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


def backup_if_due(home: Path, keep: int = 7) -> Path | None:
    """One backup a day: made at open when the newest is from an earlier day."""
    if not (home / DB_NAME).exists():
        return None
    newest = next(iter(list_backups(home)), None)
    today = datetime.now().strftime("%Y%m%d")
    if newest is not None and newest.name[len(PREFIX):len(PREFIX) + 8] == today:
        return None
    if _is_empty(home / DB_NAME):
        return None  # a backup of nothing would use up today's slot
    try:
        return make_backup(home, keep)
    except (OSError, sqlite3.Error) as exc:
        log.warning("daily backup failed: %s", exc)
        return None


def _is_empty(db: Path) -> bool:
    con = sqlite3.connect(db)
    try:
        return not any(
            con.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() for table in ("entry", "memory")
        )
    except sqlite3.Error:
        return False
    finally:
        con.close()


def restore_backup(home: Path, backup: Path) -> Path:
    """Put a backup in place of the database. The replaced file is kept, never deleted.

    Must run while no Memoir is open on this home. Returns where the old file was moved.
    """
    backup = Path(backup)
    check = sqlite3.connect(backup)
    try:
        ok = check.execute("PRAGMA quick_check").fetchone()[0]
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
