"""The journal as the MCP server reaches it: opened once, and each tool call checked against what
the user lets the calling app do (core/apps/connected_apps.py), then logged with how many items went
out. What may leave is core's decision (core/apps/app_view.py); nothing here decides what is private."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

log = logging.getLogger(__name__)

PAUSED = "You paused this app in memoir's Connected apps, so it cannot read or add anything until you allow it again."
NEEDS = {
    "read_entries": "Reading journal entries is off for this app; you can turn it on in memoir's Connected apps.",
}


class Refused(ToolError):
    """The app may not do this now (paused, or the grant is off): said in one sentence."""


@dataclass
class Served:
    """One call in progress: the app as it stands, and how many items the answer carries."""

    app: dict
    items: int = 0

    def sent(self, items):
        self.items = len(items) if isinstance(items, list) else 1
        return items


def client_name(ctx: Context | None) -> str:
    """The name the app gave when it connected (MCP's clientInfo.name), or "" when it gave none."""
    try:
        params = ctx.session.client_params if ctx is not None else None
    except (AttributeError, ValueError):  # outside a request: no session
        return ""
    info = getattr(params, "client_info", None)
    return getattr(info, "name", "") or ""


# Where the HTTP transport's middleware (http.py) leaves the app its access key belongs to.
APP_OF_KEY = "memoir.app_id"


def key_app(ctx: Context | None) -> int | None:
    """Over HTTP, the id of the app whose access key the request carried (http.KeyRequired put it in
    the request's scope); None over stdio, where there is no key."""
    try:
        request = ctx.request_context.request if ctx is not None else None
    except (AttributeError, ValueError):
        return None
    scope = getattr(request, "scope", None)
    return scope.get(APP_OF_KEY) if isinstance(scope, dict) else None


class JournalAccess:
    """Opens the journal once; a journal that will not open answers every call with one sentence."""

    def __init__(self, home=None):
        self.home, self.mem, self.problem = home, None, None

    def open(self):
        from memoir_desktop.core import Memoir
        from memoir_desktop.core.journal.entries import JournalBusy
        from memoir_desktop.core.keys.crypto import KeyError_

        try:
            self.mem = Memoir.open(self.home)
        except KeyError_:
            self.problem = ("The journal is locked: open memoir and unlock it, or start this server "
                            "with the journal's passphrase.")
        except JournalBusy as exc:
            self.problem = str(exc)
        return self

    def memoir(self):
        if self.mem is None:
            raise ToolError(self.problem or "The journal could not be opened.")
        return self.mem

    def visible(self, memories: list[dict]) -> list[dict]:
        """Core decides what may leave: not private-only memories, not switched-off categories."""
        from memoir_desktop.core.apps.app_view import visible_memories

        mem = self.memoir()
        return visible_memories(mem.engine, mem.home, memories)

    def visible_entries(self, entries: list[dict]) -> list[dict]:
        from memoir_desktop.core.apps.app_view import visible_entries

        return visible_entries(self.memoir().engine, entries)

    @contextmanager
    def call(self, ctx: Context | None, tool: str, needs: str | None = None) -> Iterator[Served]:
        """Run one tool call for the app behind `ctx`: refused when it is paused or lacks `needs`;
        logged however it ends (answered, refused, failed), never with any text."""
        from memoir_desktop.core.apps import connected_apps as apps

        engine = self.memoir().engine  # a locked journal has no log to write to: its sentence only
        by_key = key_app(ctx)
        # Over HTTP the key says which app this is, never the name the client gives itself.
        app = apps.seen_by_id(engine, by_key) if by_key is not None else apps.seen(engine, client_name(ctx))
        if app is None:  # the key's app was removed since the request was let in
            raise Refused(PAUSED)
        served = Served(app)
        name = served.app["name"]
        try:
            if not served.app["allowed"]:
                raise Refused(PAUSED)
            if needs and not served.app[needs]:
                raise Refused(NEEDS[needs])
            yield served
        except Refused:
            apps.log_call(engine, name, tool, 0, apps.REFUSED)
            raise
        except Exception:
            apps.log_call(engine, name, tool, 0, apps.FAILED)
            raise
        apps.log_call(engine, name, tool, served.items, apps.ANSWERED)
