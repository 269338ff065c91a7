"""What another process changed in the journal: the MCP server beside the open app, the app beside
a `memoir-cli` in a terminal. Each keeps in-memory indexes derived from the database (BM25 over
memories and entries, an encrypted journal's vectors, the graph's cache); a row another process
wrote never passes through them, so without this the server would not find what the diarist wrote
after it started, and the app would not show a memory the server added.

SQLite triggers write a row to `change_feed` for every insert, update or delete of a table those
indexes or screens are derived from, with the `origin` of the engine that wrote it. Triggers, not the
write paths: no writer can forget them. They are TEMP triggers that each of our connections makes
for itself with its engine's origin written into them (db.py): a connection of another program
(the sqlite3 shell, a migration's raw connection) has none, so its writes are not fed but never
fail. Each process reads the rows after its cursor that are not its own and brings what it keeps
in step (`IndexFollower.catch_up`), returning the Changes its screens refresh by.

Rows are kept for a while and then trimmed; a process whose cursor fell behind the trim drops its
derived indexes instead (they are rebuilt from the database on their next use).
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.engine import Engine

from memoir_desktop.core.changes import Changes

log = logging.getLogger(__name__)

KEEP_ROWS = 200_000  # of the feed: days of a busy journal; older ones are trimmed at open
BULK = 5_000  # more changed items than this in one catch-up: drop and rebuild rather than patch
_SEP = "\x1f"

# table -> the SQL expression naming the changed row, for NEW and for OLD rows.
FED: dict[str, str] = {
    "memory": "{r}.id",
    "entry": "{r}.id",
    "vector_point": "{r}.collection || char(31) || {r}.item",
    "graph_node": "{r}.user_id",
    "graph_edge": "{r}.user_id",
    "proposal": "{r}.id",
    "memory_suggestion": "{r}.id",
    "connected_app": "{r}.name",
    "summary": "{r}.user_id",
}

SCHEMA = ["CREATE TABLE IF NOT EXISTS change_feed (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
          "origin TEXT NOT NULL, tbl TEXT NOT NULL, item TEXT NOT NULL)"]


def _trigger_sql(origin: str) -> list[str]:
    quoted = origin.replace("'", "''")
    return [
        f"CREATE TEMP TRIGGER IF NOT EXISTS feed_{table}_{op.lower()} AFTER {op} ON main.{table} BEGIN "
        f"INSERT INTO change_feed (origin, tbl, item) VALUES ('{quoted}', '{table}', "
        f"{FED[table].format(r='OLD' if op == 'DELETE' else 'NEW')}); END"
        for table in FED for op in ("INSERT", "UPDATE", "DELETE")
    ]


def install_triggers(dbapi_conn, origin: str) -> bool:
    """Make this connection feed its writes, signed `origin`; False while the journal's tables do not
    exist yet (a new database: the engine's connections are made again once they do, db.py)."""
    cur = dbapi_conn.cursor()
    try:
        have = {n for (n,) in cur.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "change_feed" not in have or not set(FED) <= have:
            return False
        for stmt in _trigger_sql(origin):
            cur.execute(stmt)
        return True
    finally:
        cur.close()


@dataclass
class Outside:
    """What the other processes changed since the last catch-up, by table."""

    items: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    behind: bool = False  # the feed was trimmed past our cursor: everything derived is suspect

    def __bool__(self) -> bool:
        return self.behind or any(self.items.values())

    def ids(self, table: str) -> set[str]:
        return self.items.get(table, set())

    def vector_items(self) -> dict[str, set[str]]:
        """collection -> item keys changed in it."""
        out: dict[str, set[str]] = defaultdict(set)
        for key in self.ids("vector_point"):
            collection, _, item = key.partition(_SEP)
            out[collection].add(item)
        return out

    def changes(self) -> Changes:
        """What the screens refresh by."""
        if self.behind:
            return Changes(graph=True, proposals=True, summary=True, settings=True)
        entries = set()
        for e in self.ids("entry"):
            try:
                entries.add(int(e))
            except ValueError:
                continue
        return Changes.of(memories=self.ids("memory"), entries=entries,
                          graph=bool(self.ids("graph_node") or self.ids("graph_edge")),
                          proposals=bool(self.ids("proposal") or self.ids("memory_suggestion")),
                          summary=bool(self.ids("summary")), settings=bool(self.ids("connected_app")))


class ChangeFeed:
    """One engine's reading of the feed. Thread-safe: one catch-up at a time."""

    def __init__(self, engine: Engine, origin: str):
        self.engine, self.origin = engine, origin
        self._lock = threading.Lock()
        self.cursor = self._last()  # what was there before we opened is in the database we read

    def _last(self) -> int:
        with self.engine.connect() as con:
            return int(con.execute(text("SELECT COALESCE(MAX(seq), 0) FROM change_feed")).scalar() or 0)

    def read(self) -> Outside:
        """The other processes' changes since the last read; advances the cursor past them."""
        with self._lock, self.engine.connect() as con:
            top = int(con.execute(text("SELECT COALESCE(MAX(seq), 0) FROM change_feed")).scalar() or 0)
            out = Outside()
            if top <= self.cursor:
                return out
            low = con.execute(text("SELECT MIN(seq) FROM change_feed")).scalar()
            if low is not None and int(low) > self.cursor + 1 and self.cursor > 0:
                out.behind = True  # rows we never read were trimmed
            rows = con.execute(text("SELECT tbl, item FROM change_feed WHERE seq > :c AND seq <= :t "
                                    "AND origin != :me"), {"c": self.cursor, "t": top, "me": self.origin})
            for table, item in rows:
                out.items[table].add(str(item))
            self.cursor = top
            if sum(len(v) for v in out.items.values()) > BULK:
                out.behind = True
            return out


def trim(engine: Engine) -> None:
    """Keep the newest KEEP_ROWS rows (at open: a quick delete on the primary key)."""
    with engine.begin() as con:
        con.execute(text("DELETE FROM change_feed WHERE seq <= (SELECT MAX(seq) FROM change_feed) - :k"),
                    {"k": KEEP_ROWS})


def vector_key(collection: str, item: str) -> str:
    return f"{collection}{_SEP}{item}"


class IndexFollower:
    """Keeps this process's derived indexes in step with what other processes wrote; called before
    every search (one cheap query when nothing changed)."""

    def __init__(self, feed: ChangeFeed, store, episodes, graph_store):
        self.feed, self.store, self.episodes, self.graph_store = feed, store, episodes, graph_store

    def catch_up(self) -> Outside:
        try:
            out = self.feed.read()
        except Exception:  # a search must not fail because the feed could not be read
            log.exception("the change feed could not be read")
            return Outside()
        if out.behind:
            self._start_over()
        elif out:
            self._memories(out.ids("memory"))
            self._entries(out.ids("entry"))
            self._vectors(out.vector_items())
            for user_id in out.ids("graph_node") | out.ids("graph_edge"):
                self.graph_store.invalidate_cache(user_id)
        return out

    def _start_over(self) -> None:
        lexical, vectors = self.store.lexical, self.store.vectors
        lexical.drop_all()
        if hasattr(vectors, "forget"):
            vectors.forget()
        self.store.collections.forget_names()
        for user_id in self.store.users():
            self.graph_store.invalidate_cache(user_id)

    def _memories(self, ids: set[str]) -> None:
        if not ids:
            return
        rows = self.store.get_many(ids)
        for user_id in self.store.lexical.users("mem"):
            mine = [m for m in rows.values() if m.user_id == user_id]
            self.store.lexical.update(user_id, "mem", add=[(m.id, m.text) for m in mine if m.state == "active"],
                                      remove=[i for i in ids if i not in rows or rows[i].state != "active"
                                              or rows[i].user_id != user_id])

    def _entries(self, ids: set[str]) -> None:
        if not ids:
            return
        rows = self.episodes.entries_by_id([int(i) for i in ids if i.isdigit()])
        for user_id in self.store.lexical.users("ent"):
            live = {str(e.id): e for e in rows if e.user_id == user_id and e.deleted_at is None}
            self.store.lexical.update(user_id, "ent", add=[(k, e.content) for k, e in live.items()],
                                      remove=[i for i in ids if i not in live])

    def _vectors(self, changed: dict[str, set[str]]) -> None:
        vectors = self.store.vectors
        if not changed or not hasattr(vectors, "refresh"):
            return  # Qdrant's files are one process's: a second one cannot open them at all
        for collection, keys in changed.items():
            vectors.refresh(collection, keys)
