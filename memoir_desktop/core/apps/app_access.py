"""How other AI tools reach the journal's MCP server: the bearer token of the HTTP transport, and the
configuration each desktop client expects in order to start `memoir-cli mcp` itself.

The token is shown once, when it is made, and only its SHA-256 is kept (in the journal's database,
which is encrypted with it): whoever reads the data folder cannot recover it, and a new one replaces
the old at once. It guards the loopback HTTP transport only; a client started over stdio is the
user's own process and needs none.

Threading rule: any thread or process; each function is its own short transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import shutil
import sys
from pathlib import Path

from sqlmodel import Session

from memoir_desktop.core.storage.models import Meta

_TOKEN_KEY = "mcp_http_token_sha256"
CLIENTS = ("Claude Desktop", "Cursor", "VS Code")
# Where each client reads its servers from (told to the user beside the copied text).
CONFIG_PLACES = {
    "Claude Desktop": "Settings → Developer → Edit Config (claude_desktop_config.json)",
    "Cursor": "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
    "VS Code": ".vscode/mcp.json in a workspace, or MCP: Open User Configuration",
}


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token(engine) -> str:
    """A fresh token for the HTTP transport, returned this once; the one before stops working."""
    token = secrets.token_urlsafe(32)
    with Session(engine) as s:
        row = s.get(Meta, _TOKEN_KEY)
        if row is None:
            s.add(Meta(key=_TOKEN_KEY, value=_digest(token)))
        else:
            row.value = _digest(token)
            s.add(row)
        s.commit()
    return token


def has_token(engine) -> bool:
    with Session(engine) as s:
        return s.get(Meta, _TOKEN_KEY) is not None


def token_matches(engine, presented: str | None) -> bool:
    """Whether `presented` is the current token (compared in constant time)."""
    if not presented:
        return False
    with Session(engine) as s:
        row = s.get(Meta, _TOKEN_KEY)
    return row is not None and hmac.compare_digest(row.value, _digest(presented))


def server_command() -> list[str]:
    """The command a client runs to start this install's MCP server over stdio, absolute paths only
    (a client starts it with its own working directory and often a bare PATH)."""
    if getattr(sys, "frozen", False):
        # The installers' app takes `mcp` itself (app.py), so no second program has to be found.
        return [str(Path(sys.executable).resolve()), "mcp"]
    cli = shutil.which("memoir-cli")
    if cli:
        return [str(Path(cli).resolve()), "mcp"]
    return [str(Path(sys.executable).resolve()), "-m", "memoir_desktop.cli", "mcp"]


def client_config(client: str, command: list[str], home: Path | None = None) -> str:
    """The JSON text `client` expects for memoir's server. `home` is named when the journal is not in
    the default place, so the client's server opens this journal and not an empty one."""
    server: dict = {"command": command[0], "args": command[1:]}
    if home is not None:
        server["env"] = {"MEMOIR_HOME": str(home)}
    if client == "VS Code":
        body: dict = {"servers": {"memoir": {"type": "stdio", **server}}}
    elif client in ("Claude Desktop", "Cursor"):
        body = {"mcpServers": {"memoir": server}}
    else:
        raise ValueError(f"unknown client: {client}")
    return json.dumps(body, indent=2, ensure_ascii=False)
