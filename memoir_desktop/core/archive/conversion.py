"""Which key opens a journal, and turning a plain journal into an encrypted one (the whole journal's
files rewritten, as a backup or an export is: hence archive/).

A new journal is encrypted unless asked otherwise. A journal with a key file is encrypted; one
with a plain ``memoir.db`` and no key file is a plain journal from before, offered a one-time
conversion (:func:`convert_to_encrypted`).

The conversion copies every table into ``memoir.db.encrypting`` (SQLCipher, the new data key) in
chunks; each chunk and the point it reached commit together inside the new file, so a kill at
any moment loses nothing and the next run continues from there. Only when every table's rows
(count and a digest of their contents) match the plain file's does the encrypted file replace the
plain one; plain backups are then converted too, and the plain vector index (its files hold
vectors) is moved into the encrypted database and removed.

The recovery key is handed back only when the conversion returns. A run cut short anywhere before
that (``memoir.conversion`` marks the span; it holds no secret) is finished by the next one, which
hands back a new recovery key in place of the one nobody saw.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

from memoir_desktop.core.archive import backup
from memoir_desktop.core.db import connect_encrypted
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.keys.crypto import KeyFile
from memoir_desktop.core.keys.private_files import create_private, write_private
from memoir_desktop.core.keys.vault import DB_NAME, JournalKey
from memoir_desktop.core.storage.mirror import mirror_folder

log = logging.getLogger(__name__)

CONVERTING = "memoir.db.encrypting"
STARTED = "memoir.conversion"  # from before the key file is made until the recovery key is handed back
CHUNK = 2000
_PROGRESS_TABLE = "_memoir_conversion"


def is_plain_journal(home: Path) -> bool:
    """A journal written before encryption (a database and no key file)."""
    return (home / DB_NAME).exists() and not crypto.is_encrypted(home)


def conversion_pending(home: Path) -> bool:
    """A conversion was cut short: its copy, or its clean-up and its recovery key, are still to come."""
    return (home / CONVERTING).exists() or ((home / STARTED).exists() and crypto.is_encrypted(home))


def open_key(home: Path, *, passphrase: str | None = None, encrypt_new: bool = True,
             ask_passphrase: bool = False) -> JournalKey:
    """The key for this home: an existing journal's (keyring / passphrase / MEMOIR_PASSPHRASE),
    none for a plain journal, a new one for a new journal (unless ``encrypt_new`` is False).
    ``ask_passphrase`` (the app lock) refuses the keyring. Raises WrongPassphrase / PassphraseNeeded."""
    if crypto.is_encrypted(home):
        kf = KeyFile.load(home)
        unlocked = kf.unlock(passphrase, allow_keyring=not ask_passphrase)
        if (home / STARTED).exists() or _is_plain_file(home / DB_NAME):
            # A conversion was cut short (the key file is written first): finish it now, with the
            # recovery key it hands back, for the caller to show.
            log.info("resuming an interrupted conversion")
            done = convert_to_encrypted(home, passphrase=passphrase)
            return JournalKey(unlocked.data_key, kf, recovery_key=done.recovery_key, via=unlocked.via)
        _finish(home, unlocked.data_key)
        return JournalKey(unlocked.data_key, kf, via=unlocked.via)
    if (home / DB_NAME).exists() or not encrypt_new:
        return JournalKey(None)
    kf, data_key, recovery = KeyFile.create(home, passphrase=passphrase or crypto.env_passphrase())
    return JournalKey(data_key, kf, recovery_key=recovery, via="new")


# -- conversion ---------------------------------------------------------------------------------

ProgressFn = Callable[[int, int], None]


class ConversionError(RuntimeError):
    """The encrypted copy did not match the plain journal; the plain journal is untouched."""


def _tables(con) -> list[tuple[str, str]]:
    return [(n, sql) for n, sql in con.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        f"AND name != '{_PROGRESS_TABLE}' ORDER BY name")]


def _digest(con, schema: str, table: str) -> tuple[int, str]:
    h = hashlib.sha256()
    n = 0
    for row in con.execute(f'SELECT * FROM {schema}."{table}" ORDER BY rowid'):
        h.update(repr(row).encode("utf-8"))
        n += 1
    return n, h.hexdigest()


# Long on purpose: the resumable steps in their order, each checking what a crash left behind.
def convert_to_encrypted(home: Path, *, passphrase: str | None = None, progress: ProgressFn | None = None,
                         use_keyring: bool = True) -> JournalKey:
    """Encrypt a plain journal (no Memoir open on it). Resumable: call again after a crash.
    Returns the key (with the recovery key when it was made now)."""

    db, target = home / DB_NAME, home / CONVERTING
    if not db.exists():
        raise FileNotFoundError(db)
    recovery = None
    if crypto.is_encrypted(home):
        if not _is_plain_file(db) and not (home / STARTED).exists():
            raise ConversionError("this journal is already encrypted")
        kf = KeyFile.load(home)  # a conversion that was interrupted: same key, go on
        data_key = kf.unlock(passphrase).data_key
        if not _is_plain_file(db):  # cut short after the swap: only the clean-up and the key are left
            _finish(home, data_key)
            return _hand_back(home, kf, data_key, None)
    else:
        # The mark, then the key file, go first, so an interrupted run continues under the same key
        # and is known to owe its recovery key.
        write_private(home / STARTED, b"")
        try:
            kf, data_key, recovery = KeyFile.create(home, passphrase=passphrase or crypto.env_passphrase(),
                                                    use_keyring=use_keyring)
        except BaseException:
            (home / STARTED).unlink(missing_ok=True)  # nothing was started
            raise

    plain = sqlite3.connect(db)
    try:
        plain.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tables = _tables(plain)
        counts = {name: plain.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] for name, _ in tables}
    finally:
        plain.close()
    total = sum(counts.values()) or 1
    enc = connect_encrypted(target, data_key)
    try:
        enc.execute("PRAGMA temp_store=MEMORY")
        enc.execute(f"CREATE TABLE IF NOT EXISTS {_PROGRESS_TABLE} (name TEXT PRIMARY KEY, last_rowid INTEGER, "
                    "done INTEGER)")
        enc.commit()
        enc.execute("ATTACH DATABASE ? AS plain KEY ''", (str(db),))  # bound: a path may hold a quote
        have = {n for (n,) in enc.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")}
        copied = 0
        for name, sql in tables:
            if name not in have:
                enc.execute(sql)
            state = enc.execute(f"SELECT last_rowid, done FROM {_PROGRESS_TABLE} WHERE name = ?", (name,)).fetchone()
            last, done = (state if state else (-(2 ** 63), 0))
            if done:
                copied += counts[name]
                continue
            copied += enc.execute(f'SELECT COUNT(*) FROM main."{name}"').fetchone()[0]
            while True:
                top = enc.execute(f'SELECT MAX(rowid) FROM (SELECT rowid FROM plain."{name}" WHERE rowid > ? '
                                  f'ORDER BY rowid LIMIT {CHUNK})', (last,)).fetchone()[0]
                if top is None:
                    enc.execute(f"INSERT OR REPLACE INTO {_PROGRESS_TABLE} VALUES (?, ?, 1)", (name, last))
                    enc.commit()
                    break
                cols = [r[1] for r in enc.execute(f'PRAGMA plain.table_info("{name}")')]
                col_list = ", ".join(f'"{c}"' for c in cols)
                # OR REPLACE by rowid: copying a chunk again (a kill just before its progress row) is harmless.
                cur = enc.execute(f'INSERT OR REPLACE INTO main."{name}" (rowid, {col_list}) SELECT rowid, {col_list} '
                                  f'FROM plain."{name}" WHERE rowid > ? AND rowid <= ?', (last, top))
                copied += cur.rowcount
                last = top
                enc.execute(f"INSERT OR REPLACE INTO {_PROGRESS_TABLE} VALUES (?, ?, 0)", (name, last))
                enc.commit()
                if progress:
                    progress(min(copied, total), total)
        # Indexes (and anything else the schema holds) once the rows are in.
        for (sql,) in enc.execute("SELECT sql FROM plain.sqlite_master WHERE type IN ('index', 'trigger', 'view') "
                                  "AND sql IS NOT NULL").fetchall():
            enc.execute(sql.replace("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1)
                        .replace("CREATE UNIQUE INDEX ", "CREATE UNIQUE INDEX IF NOT EXISTS ", 1))
        enc.commit()
        # Verify before anything plain is removed; a copy that fails is dropped, the next run starts afresh.
        bad = next((f"the encrypted copy of {name} does not match" for name, _ in tables
                    if _digest(enc, "main", name) != _digest(enc, "plain", name)), None)
        ok = enc.execute("PRAGMA main.quick_check").fetchone()[0]
        if bad is None and ok != "ok":
            bad = f"the encrypted copy failed its check ({ok})"
        if bad is not None:
            enc.close()
            for side in ("", "-wal", "-shm"):
                Path(str(target) + side).unlink(missing_ok=True)
            raise ConversionError(f"{bad}; the plain journal is kept")
        enc.execute("DETACH DATABASE plain")
        _move_vectors(home, enc)
        enc.execute(f"DROP TABLE {_PROGRESS_TABLE}")
        enc.commit()
        enc.execute("PRAGMA journal_mode=WAL")
    finally:
        enc.close()
    if progress:
        progress(total, total)
    # The verified copy replaces the plain file (atomically); the plain WAL was emptied above.
    for side in ("-wal", "-shm"):
        (home / (DB_NAME + side)).unlink(missing_ok=True)
    os.replace(target, db)
    _encrypt_backups(home, data_key)
    _drop_plain_index(home)
    log.info("journal converted to an encrypted journal")
    return _hand_back(home, kf, data_key, recovery)


def _hand_back(home: Path, kf: KeyFile, data_key: bytes, recovery: str | None) -> JournalKey:
    """The finished conversion's key, with a recovery key to show. A resumed run (`recovery` None)
    makes a new one: the first run's was never shown (only this return shows it), so replacing it
    loses nothing, where keeping it until now would have meant a secret in a file, however sealed,
    with one more way to be left behind by a kill."""
    if recovery is None:
        recovery = kf.new_recovery_key(data_key)
    (home / STARTED).unlink(missing_ok=True)  # the caller shows the key now; nothing is owed any more
    return JournalKey(data_key, kf, recovery_key=recovery, via="converted")


def _is_plain_file(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except FileNotFoundError:
        return False


def _finish(home: Path, data_key: bytes) -> None:
    """After a kill between the swap and the clean-up: no plain backup or index is left behind."""
    if (home / "qdrant").exists() or any(_is_plain_file(p) for p in backup.list_backups(home)):
        _encrypt_backups(home, data_key)
        _drop_plain_index(home)
    (home / CONVERTING).unlink(missing_ok=True)


def _move_vectors(home: Path, enc) -> None:
    """Copy the plain index's vectors into the encrypted tables (saves re-embedding everything)."""
    index = home / "qdrant"
    if not index.exists():
        return
    have = {n for (n,) in enc.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "vector_point" not in have:
        return  # an older schema: the tables come with the migration, the index is rebuilt then
    try:
        # In the try: a plain journal's qdrant folder only, and a broken qdrant-client install must
        # not stop the conversion (the index is rebuilt from the database).
        from memoir_desktop.core.storage.vectors import VectorIndex

        plain_index = VectorIndex(index)
    except Exception as exc:  # an unreadable plain index is only rebuilt later
        log.warning("plain vector index not readable (%s); it will be rebuilt", exc.__class__.__name__)
        return
    try:
        for name, dim in plain_index.collections():
            vecs = plain_index.all_vectors(name)
            enc.execute("INSERT OR REPLACE INTO vector_collection (name, dim) VALUES (?, ?)", (name, dim))
            enc.executemany("INSERT OR REPLACE INTO vector_point (collection, item, vec) VALUES (?, ?, ?)",
                            [(name, json.dumps(item), vec.astype("float32").tobytes()) for item, vec in vecs])
        enc.commit()
    finally:
        plain_index.close()


def _encrypt_backups(home: Path, data_key: bytes) -> None:

    for old in backup.list_backups(home):
        if not _is_plain_file(old):
            continue  # already encrypted
        tmp = create_private(old.with_suffix(".db.encrypting"))  # a backup stays owner-only
        con = connect_encrypted(tmp, data_key)
        try:
            con.execute("ATTACH DATABASE ? AS plain KEY ''", (str(old),))
            con.execute("SELECT sqlcipher_export('main', 'plain')")
            con.execute("DETACH DATABASE plain")
            ok = con.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            con.close()
        if ok != "ok":
            tmp.unlink(missing_ok=True)
            log.warning("a backup could not be converted; it is removed rather than kept plain")
        else:
            os.replace(tmp, old)
            continue
        old.unlink(missing_ok=True)


def _drop_plain_index(home: Path) -> None:
    shutil.rmtree(home / "qdrant", ignore_errors=True)
    shutil.rmtree(mirror_folder(home / "qdrant"), ignore_errors=True)
