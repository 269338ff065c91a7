"""How other AI tools reach the journal's MCP server: the access keys of the HTTP transport (each app
its own: connected_apps.new_app_key), and the configuration each desktop client expects in order to
start `memoir-cli mcp` itself.

A key is shown once, when it is made, and only its SHA-256 is kept (in the journal's database, which
is encrypted): whoever reads the data folder cannot recover it, and an app's new key replaces its old
one at once. Keys guard the loopback HTTP transport only; a client started over stdio is the user's
own process and needs none.

Threading rule: any thread or process; each function is its own short transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import json
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


# The one key all HTTP apps shared before each had its own: read once, to become one app's key.

def legacy_exists(engine) -> bool:
    with Session(engine) as s:
        return s.get(Meta, _TOKEN_KEY) is not None


def legacy_matches(engine, presented: str) -> bool:
    with Session(engine) as s:
        row = s.get(Meta, _TOKEN_KEY)
    return row is not None and hmac.compare_digest(row.value, _digest(presented))


def drop_token(engine) -> None:
    """The shared key of before is now one app's own key (connected_apps.app_of_key): it goes from here."""
    with Session(engine) as s:
        row = s.get(Meta, _TOKEN_KEY)
        if row is not None:
            s.delete(row)
            s.commit()


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
