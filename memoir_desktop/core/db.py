"""SQLModel engine: WAL, foreign keys, a schema version and forward migrations."""

from __future__ import annotations

import re
import sqlite3
import threading
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine, select

from memoir_desktop.core.apps import app_suggestions, connected_apps
from memoir_desktop.core.keys.crypto import sqlcipher_key
from memoir_desktop.core.storage import graph_store, models, outside_changes
from memoir_desktop.core.storage.models import Meta

SCHEMA_VERSION = 12

# Each migration takes a connection at version N-1 and brings it to N. Append only.
MIGRATIONS: dict[int, list[str]] = {
    2: ["ALTER TABLE memory ADD COLUMN recurrence VARCHAR",
        "ALTER TABLE memory ADD COLUMN category VARCHAR",
        "CREATE INDEX IF NOT EXISTS ix_memory_user_recurrence ON memory (user_id, recurrence)"],
    # The journal is the user's: entries edited, trashed, tagged; memories know their source entries.
    3: ["ALTER TABLE entry ADD COLUMN updated_at DATETIME",
        "ALTER TABLE entry ADD COLUMN deleted_at DATETIME",
        "ALTER TABLE entry ADD COLUMN tags JSON DEFAULT '[]'",
        "ALTER TABLE entry ADD COLUMN time_zone VARCHAR",
        "ALTER TABLE entry ADD COLUMN source_ref VARCHAR",
        "CREATE INDEX IF NOT EXISTS ix_entry_user_deleted ON entry (user_id, deleted_at)",
        "ALTER TABLE memory ADD COLUMN invalid_reason VARCHAR",
        "ALTER TABLE memory ADD COLUMN flag VARCHAR",
        "ALTER TABLE graph_edge ADD COLUMN hidden_with_entry INTEGER",
        # Sources of the memories written before: the entries their ADD and UPDATE history names.
        "INSERT OR IGNORE INTO memory_source (memory_id, entry_id, created_at) "
        "SELECT h.memory_id, h.entry_id, MIN(h.created_at) FROM history h JOIN entry e ON e.id = h.entry_id "
        "WHERE h.entry_id IS NOT NULL AND h.event IN ('ADD', 'UPDATE') GROUP BY h.memory_id, h.entry_id",
        "INSERT OR IGNORE INTO memory_source (memory_id, entry_id, created_at) "
        "SELECT m.id, m.source_entry_id, m.created_at FROM memory m JOIN entry e ON e.id = m.source_entry_id"],
    # A companion's reply knows the entry it answers: they go to the trash, come back and go forever together.
    4: ["ALTER TABLE entry ADD COLUMN reply_to INTEGER"],
    # Reflection: letters are entries of their own kind (the follow_up table is new: create_all makes it).
    5: ["ALTER TABLE entry ADD COLUMN kind VARCHAR NOT NULL DEFAULT 'entry'",
        "CREATE INDEX IF NOT EXISTS ix_entry_user_kind ON entry (user_id, kind)"],
    # Private entries are never sent to an LLM; an encrypted journal keeps its vectors in the
    # (encrypted) database instead of Qdrant's plain files.
    6: ["ALTER TABLE entry ADD COLUMN private BOOLEAN NOT NULL DEFAULT 0",
        "CREATE TABLE IF NOT EXISTS vector_collection (name VARCHAR NOT NULL PRIMARY KEY, dim INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS vector_point (collection VARCHAR NOT NULL, item VARCHAR NOT NULL, "
        "vec BLOB NOT NULL, PRIMARY KEY (collection, item))"],
    # A move no longer counts as an edit: entries only ever moved lose the "edited" mark it gave them.
    7: ["UPDATE entry SET updated_at = NULL WHERE updated_at IS NOT NULL AND id NOT IN "
        "(SELECT entry_id FROM entry_history WHERE event = 'EDIT')"],
    # Other AI tools over MCP (connected_apps.py): each app with what the user lets it do, and the
    # log of its calls (never their text); the memories they suggest (app_suggestions.py). New
    # tables only; written out as create_all makes them.
    8: ["CREATE TABLE IF NOT EXISTS connected_app (id INTEGER NOT NULL, user_id VARCHAR NOT NULL, "
        "name VARCHAR NOT NULL, allowed BOOLEAN NOT NULL, read_entries BOOLEAN NOT NULL, "
        "write_directly BOOLEAN NOT NULL, first_seen DATETIME NOT NULL, last_seen DATETIME NOT NULL, "
        "PRIMARY KEY (id))",
        "CREATE UNIQUE INDEX IF NOT EXISTS ix_connected_app_user_name ON connected_app (user_id, name)",
        "CREATE TABLE IF NOT EXISTS app_call (id INTEGER NOT NULL, user_id VARCHAR NOT NULL, app VARCHAR NOT NULL, "
        "tool VARCHAR NOT NULL, items INTEGER NOT NULL, outcome VARCHAR NOT NULL, at DATETIME NOT NULL, "
        "PRIMARY KEY (id))",
        "CREATE INDEX IF NOT EXISTS ix_app_call_user_at ON app_call (user_id, at)",
        "CREATE TABLE IF NOT EXISTS memory_suggestion (id INTEGER NOT NULL, user_id VARCHAR NOT NULL, "
        "app VARCHAR NOT NULL, text VARCHAR NOT NULL, state VARCHAR NOT NULL, memory_id VARCHAR, "
        "created_at DATETIME NOT NULL, decided_at DATETIME, PRIMARY KEY (id))",
        "CREATE INDEX IF NOT EXISTS ix_memory_suggestion_user_state ON memory_suggestion (user_id, state)"],
    # What another process changed (storage/outside_changes.py): the feed our connections' triggers fill.
    9: list(outside_changes.SCHEMA),
    # Sync (core/sync): an entry's global id, the same on every computer, given to every entry there is.
    10: ["ALTER TABLE entry ADD COLUMN uuid VARCHAR",
         "UPDATE entry SET uuid = lower(hex(randomblob(16))) WHERE uuid IS NULL",
         "CREATE UNIQUE INDEX IF NOT EXISTS ix_entry_uuid ON entry (uuid)"],
    11: ["ALTER TABLE job ADD COLUMN error_kind VARCHAR"],
    # An entry's reading by the write path, carried by sync (so another computer can take it over).
    12: ["ALTER TABLE entry ADD COLUMN read_at DATETIME",
         "UPDATE entry SET read_at = created_at WHERE id IN (SELECT entry_id FROM memory_source) OR id IN "
         "(SELECT j.value FROM job, json_each(job.payload, '$.entry_ids') AS j "
         "WHERE job.state = 'done' AND job.kind = 'memorize')"],
}


class DatabaseCorrupt(RuntimeError):
    """The SQLite file cannot be read. The damaged file is left untouched for recovery."""


_ORIGINS: weakref.WeakKeyDictionary[Engine, str] = weakref.WeakKeyDictionary()


_thread = threading.local()


@contextmanager
def reading() -> Iterator[None]:
    """Within: this thread's connections to any journal refuse to write (PRAGMA query_only). The app's
    reads pool runs every task so (ui/ops.py QueryOp): a write slipped onto it raises instead of
    racing the writer."""
    before = getattr(_thread, "reading", False)
    _thread.reading = True
    try:
        yield
    finally:
        _thread.reading = before


def reading_now() -> bool:
    return getattr(_thread, "reading", False)


def _on_checkout(dbapi_conn, record, _proxy) -> None:
    want = reading_now()
    if record.info.get("query_only", False) != want:
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA query_only = {int(want)}")
        cur.close()
        record.info["query_only"] = want


def origin_of(engine: Engine) -> str:
    """Whose rows in the change feed are this engine's own (storage/outside_changes.py)."""
    return _ORIGINS[engine]


def _on_connect(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    # Sorts, temporary indexes and tables stay in memory: no temporary file holds journal text.
    cur.execute("PRAGMA temp_store=MEMORY")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    # NORMAL is durable in WAL mode against a process crash; only power loss can lose the
    # last transaction, and never corrupts the file.
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    # Deleted rows are overwritten, not left in free pages: "delete forever" means gone from the file.
    cur.execute("PRAGMA secure_delete=ON")
    cur.close()


def sqlcipher_module() -> Any:
    """sqlcipher3's DB-API module (the sqlite3 interface over SQLCipher; its C names are untyped)."""
    import sqlcipher3.dbapi2  # on first open: memoir-cli commands that open no journal never load SQLCipher

    return sqlcipher3.dbapi2


def connect_encrypted(path: Path, data_key: bytes, **kwargs):
    """A DB-API connection to a SQLCipher database, keyed before anything reads the file."""
    con = sqlcipher_module().connect(str(path), **kwargs)
    con.execute(f"PRAGMA key = {sqlcipher_key(data_key)}")
    # A page read from disk is decrypted and checked on every cache miss (plain SQLite leans on the OS
    # cache instead): a larger page cache keeps the rows a search fetches decrypted (16 MiB).
    con.execute("PRAGMA cache_size = -16384")
    return con


def make_engine(path: Path, data_key: bytes | None = None) -> Engine:
    """An engine on the journal's database: plain SQLite, or SQLCipher when a data key is given."""
    if data_key is None:
        engine = create_engine(
            f"sqlite:///{path}",
            connect_args={"check_same_thread": False, "timeout": 10},
        )
    else:
        sqlcipher = sqlcipher_module()
        # The URL names the file so SQLAlchemy pools as for a file (a bare "sqlite://" would mean
        # :memory: and one shared connection per thread); the creator does the connecting.
        engine = create_engine(
            f"sqlite:///{path}", module=sqlcipher,
            creator=lambda: connect_encrypted(path, data_key, check_same_thread=False, timeout=10),
        )
    event.listen(engine, "connect", _on_connect)
    event.listen(engine, "checkout", _on_checkout)
    origin = uuid.uuid4().hex
    _ORIGINS[engine] = origin
    event.listen(engine, "connect", lambda dbapi_conn, _record: outside_changes.install_triggers(dbapi_conn, origin))
    return engine


def open_database(path: Path, data_key: bytes | None = None) -> Engine:
    """Open (and create or migrate) the database. Raises DatabaseCorrupt on a damaged file."""
    engine = make_engine(path, data_key)
    try:
        with engine.connect() as conn:
            ok = conn.exec_driver_sql("PRAGMA quick_check").scalar()
            if ok != "ok":
                raise DatabaseCorrupt(f"{path.name}: integrity check failed ({ok})")
        SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in _tables()])
        _migrate(engine)
        with engine.begin() as conn:  # a fresh database skipped the migrations: the feed is made here
            for stmt in outside_changes.SCHEMA:
                conn.exec_driver_sql(stmt)
        # Connections made before the tables existed feed nothing: from here on, every one does.
        engine.dispose()
        outside_changes.trim(engine)
    except (sqlite3.DatabaseError, Exception) as exc:  # classify below
        engine.dispose()
        if isinstance(exc, DatabaseCorrupt):
            raise
        msg = str(exc).lower()
        if "not a database" in msg or "malformed" in msg or "disk image" in msg:
            raise DatabaseCorrupt(f"{path.name} is damaged: {exc.__class__.__name__}") from exc
        raise
    return engine


def checkpoint(engine: Engine) -> None:
    """Fold the write-ahead log into the database file and empty it (after a purge: the WAL would
    otherwise keep the deleted text until the next automatic checkpoint)."""
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def _tables():
    return [
        models.Entry, models.EntryHistory, models.Memory, models.MemorySource, models.History, models.Summary,
        models.Job,
        models.Proposal, models.Metric, models.IndexState, models.IndexPending, models.Meta, models.FollowUp,
        models.VectorCollection, models.VectorPoint,
        graph_store.GraphNode, graph_store.GraphEdge,
        connected_apps.ConnectedApp, connected_apps.AppCall, app_suggestions.MemorySuggestion,
    ]


_ADD_COLUMN = re.compile(r"ALTER TABLE (\w+) ADD COLUMN (\w+)", re.I)


def _column_there(conn, stmt: str) -> bool:
    """An ADD COLUMN whose column is there already (the table has today's columns while the version
    row says older, as when a journal was shaped by hand) is skipped rather than failing the open."""
    m = _ADD_COLUMN.match(stmt.strip())
    if not m:
        return False
    return m.group(2) in {r[1] for r in conn.exec_driver_sql(f'PRAGMA table_info("{m.group(1)}")')}


def _migrate(engine: Engine) -> None:
    with Session(engine) as s:
        row = s.exec(select(Meta).where(Meta.key == "schema_version")).first()
        current = int(row.value) if row else 0
        if current == 0:
            # A fresh database was just created at the latest schema.
            s.add(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
            s.commit()
            return
        if current > SCHEMA_VERSION:
            raise RuntimeError(
                f"this data was written by a newer memoir (schema {current} > {SCHEMA_VERSION})"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            for stmt in MIGRATIONS.get(version, []):
                if not _column_there(s.connection(), stmt):
                    s.connection().exec_driver_sql(stmt)
            assert row is not None  # a version above 0 was read from this row
            row.value = str(version)
            s.add(row)
        s.commit()
