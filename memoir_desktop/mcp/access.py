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

from memoir_desktop.core import Memoir
from memoir_desktop.core.apps import connected_apps as apps
from memoir_desktop.core.apps.app_access import PASSPHRASE_PLACEHOLDER
from memoir_desktop.core.apps.app_view import visible_entries, visible_memories
from memoir_desktop.core.journal.entries import JournalBusy
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.keys.crypto import KeyError_

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


# How the server is given the passphrase: by the app that starts it, through its configuration. Unlocking
# the memoir window does not help, since the server is another process and reads no window's key.
GIVE_PASSPHRASE = ('Add "MEMOIR_PASSPHRASE": "<your passphrase>" to the "env" of memoir\'s server in this app\'s '
                   "MCP configuration (memoir's Settings → Connected apps copies it with a place for it), then "
                   "restart this app.")
# The HTTP server is started by a person in a terminal, who gives it the passphrase there.
GIVE_PASSPHRASE_TERMINAL = "Start the server with MEMOIR_PASSPHRASE set to the journal's passphrase."


def locked_sentence(exc, *, terminal: bool = False) -> str:
    """What an app's user (or, `terminal`, the person who started the HTTP server) reads when the journal
    did not open: why, and where the passphrase goes."""
    given = crypto.env_passphrase()
    if given is not None and given.strip() == PASSPHRASE_PLACEHOLDER:
        return (f'The journal is locked: MEMOIR_PASSPHRASE in this app\'s MCP configuration still says '
                f'"{PASSPHRASE_PLACEHOLDER}". Replace that with your journal\'s passphrase, then restart this app.')
    if isinstance(exc, crypto.WrongPassphrase):
        where = ("" if terminal else " Correct it in the \"env\" of memoir's server in this app's MCP configuration, "
                 "then restart this app.")
        return f"The journal is locked: the passphrase in MEMOIR_PASSPHRASE does not open it.{where}"
    why = {
        "locked": "memoir is set to ask for the passphrase at every start, so its server does not use the keyring.",
        "passphrase_only": "this journal opens with its passphrase only (this computer's keyring does not keep "
                           "its key).",
        "no_keyring": "this computer has no keyring to keep the journal's key.",
        "keyring_missing": "this computer's keyring does not hold the journal's key.",
    }.get(getattr(exc, "code", ""))
    if why is None:  # a damaged key file and the like: its own sentence says what is wrong
        return f"The journal could not be opened: {exc}"
    return f"The journal is locked: {why} {GIVE_PASSPHRASE_TERMINAL if terminal else GIVE_PASSPHRASE}"


class JournalAccess:
    """Opens the journal once; a journal that will not open answers every call with one sentence."""

    def __init__(self, home=None, *, terminal: bool = False):
        """`terminal`: started by a person (the HTTP server), not by an app from its configuration."""
        self.home, self.mem, self.problem, self.terminal = home, None, None, terminal

    def open(self):
        try:
            self.mem = Memoir.open(self.home)
        except KeyError_ as exc:
            self.problem = locked_sentence(exc, terminal=self.terminal)
        except JournalBusy as exc:
            self.problem = str(exc)
        return self

    def memoir(self):
        if self.mem is None:
            raise ToolError(self.problem or "The journal could not be opened.")
        return self.mem

    def visible(self, memories: list[dict]) -> list[dict]:
        """Core decides what may leave: not private-only memories, not switched-off categories."""
        mem = self.memoir()
        return visible_memories(mem.engine, mem.home, memories)

    def visible_entries(self, entries: list[dict]) -> list[dict]:
        return visible_entries(self.memoir().engine, entries)

    @contextmanager
    def call(self, ctx: Context | None, tool: str, needs: str | None = None) -> Iterator[Served]:
        """Run one tool call for the app behind `ctx`: refused when it is paused or lacks `needs`;
        logged however it ends (answered, refused, failed), never with any text."""
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
