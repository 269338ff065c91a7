"""The other AI tools that asked the journal something over MCP, what the user lets each do, and
the log of every call they made.

Over HTTP an app is known by its own access key, made when the user lets it in (`memoir-cli apps key
NAME`, Settings → Connected apps): its grants, its pause and its lines in the log are the key's app,
whatever name the client gives itself, so a paused app cannot come back under another name, and a
program that has no key gets nothing. Only the key's SHA-256 is kept (app_key, below).

Over stdio the server is a program the user's own MCP client started, with the user's rights: there is
nothing firmer than the name it gives (MCP's clientInfo.name), and the user recognises "Claude Desktop"
or "Cursor" in a list. It is recorded the first time it calls, with the defaults a stranger gets: it may
read memories and propose new ones, nothing more, until the user changes that. (A hostile program of
the same account could read the journal's files and keyring itself: stdio is no boundary against it;
README's threat model says so.)

The log keeps the time, the app, the tool and how many items went out: never a query, an answer
or any other text, so the log itself discloses nothing of the journal.

Threading rule: any thread or process (the MCP server runs beside the open app); each function is
its own short transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from pydantic import NaiveDatetime
from sqlalchemy import Index
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, delete, func, select

from memoir_desktop.core.apps import app_access, app_suggestions
from memoir_desktop.core.inputs import InvalidInput, NotFound
from memoir_desktop.core.storage.models import now

UNNAMED = "unnamed app"
MAX_NAME = 120
GRANTS = ("allowed", "read_entries", "write_directly")
LOG_KEPT = 10_000  # calls kept per user; older ones go (an agent calling in a loop must not fill the disk)
LOG_PAGE = 1_000  # the most one read of the log returns
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# What a call came to; "refused": the app is paused or lacks the grant; "failed": bad arguments,
# an unknown id, a locked journal.
ANSWERED, REFUSED, FAILED = "answered", "refused", "failed"


class ConnectedApp(SQLModel, table=True):
    __tablename__ = "connected_app"  # type: ignore[assignment]
    __table_args__ = (Index("ix_connected_app_user_name", "user_id", "name", unique=True),)
    id: int | None = Field(default=None, primary_key=True)
    user_id: str
    name: str
    allowed: bool = True  # False: paused, every call refused
    read_entries: bool = False  # on_this_day, recent_entries
    write_directly: bool = False  # add_memory adds at once instead of suggesting
    first_seen: NaiveDatetime = Field(default_factory=now)
    last_seen: NaiveDatetime = Field(default_factory=now)


class AppCall(SQLModel, table=True):
    __tablename__ = "app_call"  # type: ignore[assignment]
    __table_args__ = (Index("ix_app_call_user_at", "user_id", "at"),)
    id: int | None = Field(default=None, primary_key=True)
    user_id: str
    app: str
    tool: str
    items: int = 0  # how many memories or entries went out
    outcome: str = ANSWERED
    at: NaiveDatetime = Field(default_factory=now)


def app_name(raw) -> str:
    """The name an app gave, as it is kept and shown: one line, bounded, never empty."""
    name = " ".join(_CONTROL.sub(" ", str(raw or "")).split())[:MAX_NAME]
    return name or UNNAMED


def app_dict(a: ConnectedApp) -> dict:
    return {"name": a.name, "allowed": a.allowed, "paused": not a.allowed, "read_memories": True,
            "propose": True, "read_entries": a.read_entries, "write_directly": a.write_directly,
            "first_seen": a.first_seen.isoformat(), "last_seen": a.last_seen.isoformat()}


def seen(engine, name: str, *, user_id: str = "me") -> dict:
    """The app as it stands now, recorded with the defaults if it is new; its last_seen moves."""
    name = app_name(name)
    for _ in range(2):  # a second process may record the same new app at the same moment
        with Session(engine) as s:
            row = _find(s, user_id, name) or ConnectedApp(user_id=user_id, name=name)
            row.last_seen = now()
            s.add(row)
            try:
                s.commit()
            except IntegrityError:
                continue
            s.refresh(row)
            return app_dict(row)
    raise RuntimeError(f"could not record the app {name!r}")


def seen_by_id(engine, app_id: int) -> dict | None:
    """The app an access key belongs to, as it stands now (its last_seen moves); None when it is gone."""
    with Session(engine) as s:
        row = s.get(ConnectedApp, app_id)
        if row is None:
            return None
        row.last_seen = now()
        s.add(row)
        s.commit()
        s.refresh(row)
        return app_dict(row)


# -- each HTTP app's own access key -----------------------------------------------------------------
# A table of its own, made on first use (as sync's are): one row per key, only its SHA-256 kept.
_KEY_SCHEMA = ("CREATE TABLE IF NOT EXISTS app_key (digest TEXT PRIMARY KEY, app_id INTEGER NOT NULL, "
               "created_at TEXT NOT NULL)")
HTTP_APP = "HTTP app"  # the app of the key `memoir-cli mcp --http` makes when no app has one


def _key_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _key_table(s: Session) -> None:
    s.connection().exec_driver_sql(_KEY_SCHEMA)


def _keys(s: Session) -> list[tuple[str, int]]:
    """Every key's digest and app, read without making the table (the UI's reads cannot write)."""
    con = s.connection()
    if con.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'app_key'").first() is None:
        return []
    return [(d, int(a)) for d, a in con.exec_driver_sql("SELECT digest, app_id FROM app_key")]


def new_app_key(engine, name: str, *, user_id: str = "me") -> str:
    """A new access key for the app `name` (recorded now if it is new, with a stranger's defaults),
    returned this once; the app's previous key stops working."""
    name = app_name(name)
    token = secrets.token_urlsafe(32)
    with Session(engine) as s:
        _key_table(s)
        row = _find(s, user_id, name)
        if row is None:
            row = ConnectedApp(user_id=user_id, name=name)
            s.add(row)
            s.flush()
        s.connection().exec_driver_sql("DELETE FROM app_key WHERE app_id = ?", (row.id,))
        s.connection().exec_driver_sql("INSERT INTO app_key (digest, app_id, created_at) VALUES (?, ?, ?)",
                                       (_key_digest(token), row.id, now().isoformat()))
        s.commit()
    return token


def app_of_key(engine, presented: str | None) -> int | None:
    """The id of the app whose key `presented` is, or None. A key made before each app had its own
    (one shared key) becomes the key of the app named HTTP_APP the first time it is shown."""
    if not presented:
        return None
    digest = _key_digest(presented)
    with Session(engine) as s:
        rows = _keys(s)
    for stored, app_id in rows:  # constant time per key: no timing tells how much of a key was right
        if hmac.compare_digest(stored, digest):
            return int(app_id)
    if app_access.legacy_matches(engine, presented):
        with Session(engine) as s:
            row = _find(s, "me", HTTP_APP) or ConnectedApp(user_id="me", name=HTTP_APP)
            s.add(row)
            s.flush()
            _key_table(s)
            s.connection().exec_driver_sql("INSERT OR REPLACE INTO app_key (digest, app_id, created_at) "
                                           "VALUES (?, ?, ?)", (digest, row.id, now().isoformat()))
            s.commit()
            app_id = row.id
        app_access.drop_token(engine)
        return app_id
    return None


def has_app_keys(engine) -> bool:
    with Session(engine) as s:
        found = bool(_keys(s))
    return found or app_access.legacy_exists(engine)


def apps(engine, *, user_id: str = "me") -> list[dict]:
    """Every app that connected, the most recently seen first."""
    with Session(engine) as s:
        rows = s.exec(select(ConnectedApp).where(col(ConnectedApp.user_id) == user_id)
                      .order_by(col(ConnectedApp.last_seen).desc(), col(ConnectedApp.id))).all()
        return [app_dict(a) for a in rows]


def set_grant(engine, name: str, grant: str, on: bool, *, user_id: str = "me") -> dict:
    """Turn one of GRANTS on or off for an app that connected before."""
    if grant not in GRANTS:
        raise InvalidInput(f"unknown permission {grant!r}")
    with Session(engine) as s:
        row = _find(s, user_id, app_name(name))
        if row is None:
            raise NotFound(name, "connected app")
        setattr(row, grant, bool(on))
        s.add(row)
        s.commit()
        s.refresh(row)
        return app_dict(row)


def pause(engine, name: str, paused: bool = True, *, user_id: str = "me") -> dict:
    """A paused app is refused every call until it is allowed again; it stays in the list."""
    return set_grant(engine, name, "allowed", not paused, user_id=user_id)


def log_call(engine, app: str, tool: str, items: int = 0, outcome: str = ANSWERED, *, user_id: str = "me") -> None:
    with Session(engine) as s:
        s.add(AppCall(user_id=user_id, app=app_name(app), tool=tool[:MAX_NAME], items=max(0, int(items)),
                      outcome=outcome))
        s.flush()
        newest = s.exec(select(func.max(AppCall.id)).where(col(AppCall.user_id) == user_id)).one() or 0
        if newest > LOG_KEPT and newest % 100 == 0:  # trimmed now and then, not on every call
            s.exec(delete(AppCall).where(col(AppCall.user_id) == user_id,  # type: ignore[call-overload]
                                         col(AppCall.id) <= newest - LOG_KEPT))
        s.commit()


def call_log(engine, *, user_id: str = "me", app: str | None = None, limit: int = 200) -> list[dict]:
    """The calls, newest first, at most `limit` (and never more than LOG_PAGE); one app's with `app`."""
    limit = max(1, min(int(limit), LOG_PAGE))
    with Session(engine) as s:
        q = select(AppCall).where(col(AppCall.user_id) == user_id)
        if app is not None:
            q = q.where(col(AppCall.app) == app_name(app))
        rows = s.exec(q.order_by(col(AppCall.id).desc()).limit(limit)).all()
        return [{"at": c.at.isoformat(), "app": c.app, "tool": c.tool, "items": c.items, "outcome": c.outcome}
                for c in rows]


def _find(s: Session, user_id: str, name: str) -> ConnectedApp | None:
    return s.exec(select(ConnectedApp).where(col(ConnectedApp.user_id) == user_id,
                                             col(ConnectedApp.name) == name)).first()


class ConnectedApps:
    """The apps, their grants, their log and the HTTP access key as `Memoir` offers them."""

    def __init__(self, engine):
        self.engine = engine

    def connected_apps(self, *, user_id: str = "me") -> list[dict]:
        return apps(self.engine, user_id=user_id)

    def set_app_grant(self, name: str, grant: str, on: bool, *, user_id: str = "me") -> dict:
        """grant: allowed | read_entries | write_directly."""
        return set_grant(self.engine, name, grant, on, user_id=user_id)

    def pause_app(self, name: str, paused: bool = True, *, user_id: str = "me") -> dict:
        return pause(self.engine, name, paused, user_id=user_id)

    def app_log(self, *, app: str | None = None, limit: int = 200, user_id: str = "me") -> list[dict]:
        """Every call the apps made, newest first: time, app, tool, how many items went out."""
        return call_log(self.engine, user_id=user_id, app=app, limit=limit)

    def memory_suggestions(self, *, user_id: str = "me") -> list[dict]:
        """Memories apps suggested (add_memory over MCP), waiting for the user, oldest first."""
        return app_suggestions.pending(self.engine, user_id=user_id)

    def new_app_token(self) -> str:
        """A new access key for the app named HTTP_APP (the one `memoir-cli mcp --http` makes when no app
        has a key), shown this once; its previous key stops working. Other apps: new_app_key."""
        return new_app_key(self.engine, HTTP_APP)

    def new_app_key(self, name: str, *, user_id: str = "me") -> str:
        """Let the app `name` in over HTTP with its own access key, shown this once (only its hash is kept):
        its grants, pause and log follow the key. Its previous key stops working; other apps' keys go on."""
        return new_app_key(self.engine, name, user_id=user_id)

    def has_app_token(self) -> bool:
        return has_app_keys(self.engine)
