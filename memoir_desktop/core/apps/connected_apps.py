"""The other AI tools that asked the journal something over MCP, what the user lets each do, and
the log of every call they made.

An app is known by the name it gives when it connects (MCP's clientInfo.name): the protocol has
nothing firmer, and the user recognises "Claude Desktop" or "Cursor" in a list. It is recorded the
first time it calls, with the defaults a stranger gets: it may read memories and propose new ones,
nothing more, until the user changes that in Settings → Connected apps.

The log keeps the time, the app, the tool and how many items went out: never a query, an answer
or any other text, so the log itself discloses nothing of the journal.

Threading rule: any thread or process (the MCP server runs beside the open app); each function is
its own short transaction.
"""

from __future__ import annotations

import re

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
        """The HTTP transport's bearer token, shown this once (only its hash is kept); the old one stops."""
        return app_access.new_token(self.engine)

    def has_app_token(self) -> bool:
        return app_access.has_token(self.engine)
