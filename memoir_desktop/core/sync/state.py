"""What sync keeps in the journal's own (encrypted) database, in tables of its own made on first use:

* ``sync_state``: this device's id, its clock, how far it read the change feed, the address of the
  target (never a password), when it last synced;
* ``sync_object``: for every synced object, its global id beside its local id, and the *shadow*:
  a hash of its state as last synced and each group's hash and stamp (records.py). A local change is
  an object whose state no longer has the shadow's hash; an object gone from the database whose shadow
  remains was purged here. ``kind`` is entry, memory, node, edge, or ehist / mhist (an entry's or a
  memory's history row: only the id pair);
* ``sync_outbox``: sealed segments made from local changes, kept until the target has them;
* ``sync_applied``: which segments of the other devices are in this journal;
* ``sync_notice``: what the user is told once (an entry edited on two computers). No text.

Nothing here holds journal text in the clear but the outbox, whose files are sealed already.
"""

from __future__ import annotations

import json
import secrets as pysecrets

from sqlalchemy import text

SCHEMA = [
    "CREATE TABLE IF NOT EXISTS sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS sync_object (kind TEXT NOT NULL, gid TEXT NOT NULL, local TEXT, "
    "hash TEXT, groups TEXT, push INTEGER NOT NULL DEFAULT 0, gone INTEGER NOT NULL DEFAULT 0, "
    "PRIMARY KEY (kind, gid))",
    "CREATE INDEX IF NOT EXISTS ix_sync_object_local ON sync_object (kind, local)",
    "CREATE TABLE IF NOT EXISTS sync_outbox (seq INTEGER PRIMARY KEY, body BLOB NOT NULL, "
    "snapshot INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS sync_applied (device TEXT NOT NULL, seq INTEGER NOT NULL, "
    "PRIMARY KEY (device, seq))",
    "CREATE TABLE IF NOT EXISTS sync_notice (id TEXT PRIMARY KEY, kind TEXT NOT NULL, entry_id INTEGER, "
    "entry_uuid TEXT, created_at TEXT NOT NULL, seen INTEGER NOT NULL DEFAULT 0)",
]


def ensure_schema(engine) -> None:
    with engine.begin() as con:
        for stmt in SCHEMA:
            con.exec_driver_sql(stmt)


def exists(con) -> bool:
    """Whether this journal has synced at least once (its bookkeeping tables are there)."""
    return con.execute(text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_state'")).first() \
        is not None


def get(con, key: str, default: str | None = None) -> str | None:
    row = con.execute(text("SELECT value FROM sync_state WHERE key = :k"), {"k": key}).first()
    return row[0] if row else default


def put(con, key: str, value) -> None:
    con.execute(text("INSERT INTO sync_state (key, value) VALUES (:k, :v) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value"), {"k": key, "v": str(value)})


def device_id(engine) -> str:
    with engine.begin() as con:
        dev = get(con, "device")
        if dev is None:
            dev = pysecrets.token_hex(8)
            put(con, "device", dev)
        return dev


class Objects:
    """The id pairs and shadows, read once per step (a ten-year journal: ~100k small rows)."""

    def __init__(self, con, device: str):
        self.con, self.device = con, device
        self.gid: dict[tuple[str, str], str] = {}  # (kind, local) -> gid
        self.local: dict[tuple[str, str], str | None] = {}  # (kind, gid) -> local
        self.shadow: dict[tuple[str, str], tuple[str | None, dict, bool, bool]] = {}  # (kind, gid) -> hash, groups, push, gone
        for kind, gid, local, h, groups, push, gone in con.execute(text(
                "SELECT kind, gid, local, hash, groups, push, gone FROM sync_object")):
            self.local[(kind, gid)] = local
            if local is not None:
                self.gid[(kind, local)] = gid
            if kind in ("entry", "memory", "node", "edge", "prefs"):
                self.shadow[(kind, gid)] = (h, json.loads(groups) if groups else {}, bool(push), bool(gone))
        self.minted: set[str] = set()  # gids given now: history rows written here since the last capture
        self._dirty: dict[tuple[str, str], None] = {}  # written by flush(), in one executemany

    def gid_of(self, kind: str, local, *, mint: bool = True) -> str | None:
        key = (kind, str(local))
        found = self.gid.get(key)
        if found is None and mint:
            found = f"{self.device}-{pysecrets.token_hex(6)}"
            self.minted.add(found)
            self.link(kind, found, local)
        return found

    def local_of(self, kind: str, gid: str | None) -> str | None:
        return self.local.get((kind, gid)) if gid is not None else None

    def link(self, kind: str, gid: str, local) -> None:
        local = None if local is None else str(local)
        old = self.local.get((kind, gid))
        if old is not None and old != local:
            self.gid.pop((kind, old), None)
        self.local[(kind, gid)] = local
        if local is not None:
            self.gid[(kind, local)] = gid
        self._dirty[(kind, gid)] = None

    def set_shadow(self, kind: str, gid: str, h: str | None, groups: dict, *, push: bool = False,
                   gone: bool = False, local=None) -> None:
        if local is not None or gone:
            self.link(kind, gid, None if gone else local)
        elif (kind, gid) not in self.local:
            self.link(kind, gid, None)
        self.shadow[(kind, gid)] = (h, groups, push, gone)
        self._dirty[(kind, gid)] = None

    def flush(self) -> None:
        """Write the pairs and shadows changed since the last flush (before the transaction commits)."""
        rows = []
        for kind, gid in self._dirty:
            h, groups, push, gone = self.shadow.get((kind, gid), (None, None, False, False))
            rows.append((kind, gid, self.local.get((kind, gid)), h, json.dumps(groups) if groups is not None else None,
                         int(push), int(gone)))
        self._dirty.clear()
        if rows:
            self.con.exec_driver_sql(
                "INSERT INTO sync_object (kind, gid, local, hash, groups, push, gone) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(kind, gid) DO UPDATE SET local = excluded.local, hash = excluded.hash, "
                "groups = excluded.groups, push = excluded.push, gone = excluded.gone", rows)

    def forget_events(self, kind: str, locals_: list[str]) -> None:
        """History rows deleted here (a purge): their pairs go."""
        for local in locals_:
            gid = self.gid.pop((kind, str(local)), None)
            if gid is not None:
                self.local.pop((kind, gid), None)
                self._dirty.pop((kind, gid), None)
                self.con.execute(text("DELETE FROM sync_object WHERE kind = :k AND gid = :g"), {"k": kind, "g": gid})


def applied(con) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for dev, seq in con.execute(text("SELECT device, seq FROM sync_applied")):
        out.setdefault(dev, set()).add(int(seq))
    return out


def mark_applied(con, device: str, seqs) -> None:
    for seq in seqs:
        con.execute(text("INSERT OR IGNORE INTO sync_applied (device, seq) VALUES (:d, :s)"), {"d": device, "s": seq})


def upto(seqs: set[int]) -> int:
    """The highest n such that segments 1..n are all here."""
    n = 0
    while n + 1 in seqs:
        n += 1
    return n
