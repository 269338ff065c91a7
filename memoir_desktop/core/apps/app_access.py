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
import importlib.metadata
import json
import os
import site
import sys
import sysconfig
from pathlib import Path
from urllib.parse import unquote, urlparse

from sqlmodel import Session

from memoir_desktop.core.keys.crypto import ENV_PASSPHRASE
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
    (a client starts it with its own working directory and often a bare PATH).

    No symlink of the interpreter is resolved: a virtual environment's python is a link to the base
    Python, which has none of memoir's packages, and a client given that one could not start the server.
    A `memoir-cli` found on PATH is not asked for either: it may belong to another installation."""
    if getattr(sys, "frozen", False):
        # The installers' app takes `mcp` itself (app.py), so no second program has to be found.
        return [str(Path(sys.executable).resolve()), "mcp"]
    cli = installed_cli()
    if cli is not None:
        return [str(cli), "mcp"]
    # This very interpreter runs this very package: the same code as the window the user copied from.
    return [os.path.abspath(sys.executable), "-m", "memoir_desktop.cli", "mcp"]


def installed_cli() -> Path | None:
    """The `memoir-cli` console script installed with this interpreter: beside it (a virtual
    environment's bin/ or Scripts\\), or in its install scheme's scripts folder (a user install's ~/.local/bin)."""
    name = "memoir-cli.exe" if os.name == "nt" else "memoir-cli"
    folders = [Path(os.path.abspath(sys.executable)).parent]
    for scheme in (sysconfig.get_default_scheme(), sysconfig.get_preferred_scheme("user")):
        try:
            folders.append(Path(sysconfig.get_path("scripts", scheme)))
        except KeyError:  # a scheme this platform does not have
            continue
    for folder in folders:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def server_environment(command: list[str]) -> dict[str, str]:
    """What the server needs in its environment besides what the client gives: the folder that holds
    memoir's code when `command` runs it as a module from a source folder that is not installed
    (the client starts it elsewhere, where `memoir_desktop` is not found otherwise)."""
    if command[1:2] != ["-m"]:
        return {}
    root = Path(__file__).resolve().parents[3]  # …/memoir_desktop/core/apps/app_access.py
    if _installed_at(root):
        return {}
    return {"PYTHONPATH": str(root)}


def _installed_at(root: Path) -> bool:
    """Does the interpreter find memoir's code at `root` by itself (its site-packages, or an editable
    install of that folder), without PYTHONPATH or the working directory?"""
    sites = [*site.getsitepackages(), site.getusersitepackages()]
    if any(Path(s).resolve() == root for s in sites if s):
        return True
    try:
        direct = importlib.metadata.distribution("memoir-desktop").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return False
    url = (json.loads(direct) if direct else {}).get("url", "")
    return url.startswith("file:") and Path(unquote(urlparse(url).path)).resolve() == root


# What the copied configuration holds where the passphrase goes: the user replaces it (the app never
# writes a passphrase into another program's file), and a server started with it unchanged says so.
PASSPHRASE_PLACEHOLDER = "<your journal's passphrase>"
PASSPHRASE_VARIABLE = ENV_PASSPHRASE  # what the server reads the passphrase from


def client_config(client: str, command: list[str], home: Path | None = None, *,
                  needs_passphrase: bool = False) -> str:
    """The JSON text `client` expects for memoir's server. `home` is named when the journal is not in
    the default place, so the client's server opens this journal and not an empty one. Where no keyring
    opens the journal for the server (none on this computer, or the app lock refuses it),
    `needs_passphrase` adds the passphrase's variable with PASSPHRASE_PLACEHOLDER for the user to fill in."""
    server: dict = {"command": command[0], "args": command[1:]}
    env = server_environment(command)
    if home is not None:
        env["MEMOIR_HOME"] = str(home)
    if needs_passphrase:
        env[PASSPHRASE_VARIABLE] = PASSPHRASE_PLACEHOLDER
    if env:
        server["env"] = env
    if client == "VS Code":
        body: dict = {"servers": {"memoir": {"type": "stdio", **server}}}
    elif client in ("Claude Desktop", "Cursor"):
        body = {"mcpServers": {"memoir": server}}
    else:
        raise ValueError(f"unknown client: {client}")
    return json.dumps(body, indent=2, ensure_ascii=False)
