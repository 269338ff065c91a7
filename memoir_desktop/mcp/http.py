"""The MCP server over streamable HTTP, for clients that cannot start a program: on the loopback
address only, and every request must carry the access key (`Authorization: Bearer …`) the user made
in memoir (Settings → Connected apps) or that this command printed once.

Why loopback only: the journal is one person's, on their computer; a port open to the network would
put it one guessed key away from anyone on the same Wi-Fi. Why a key at all on loopback: any program
or web page on this computer can reach 127.0.0.1, and the key is what tells them from the app the
user connected.
"""

from __future__ import annotations

import ipaddress
import logging
import sys

from memoir_desktop.core.apps import app_access
from memoir_desktop.mcp.access import JournalAccess
from memoir_desktop.mcp.server import build_server

log = logging.getLogger(__name__)

LOOPBACK_NAMES = {"localhost"}


class AddressRefused(ValueError):
    """An address that is not this computer's loopback, or not HOST:PORT."""


def loopback_address(text: str) -> tuple[str, int]:
    """(host, port) from "127.0.0.1:8765" / "localhost:8765" / "[::1]:8765"; anything else refused."""
    host, sep, port_text = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise AddressRefused(f"Give the address as 127.0.0.1:PORT (for example 127.0.0.1:8765), not {text!r}.")
    if host not in LOOPBACK_NAMES:
        try:
            loop = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loop = False
        if not loop:
            raise AddressRefused(f"memoir serves its memories on this computer only (127.0.0.1), not on {host}.")
    return host, int(port_text)


class KeyRequired:
    """ASGI middleware: an HTTP request without the current key gets 401 and never reaches the server."""

    def __init__(self, app, matches):
        self.app, self.matches = app, matches

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":  # lifespan: starts the SDK's session manager
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        scheme, _, presented = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self.matches(presented.strip()):
            await self.app(scope, receive, send)
            return
        body = b'{"error": "memoir needs the access key made in its Connected apps settings."}'
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})


def http_app(access: JournalAccess, host: str):
    engine = access.memoir().engine
    inner = build_server(access).streamable_http_app(host=host)
    return KeyRequired(inner, lambda presented: app_access.token_matches(engine, presented))


def serve_http(home, address: str, *, new_key: bool = False) -> int:
    import uvicorn

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, force=True)
    try:
        host, port = loopback_address(address)
    except AddressRefused as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return 2
    access = JournalAccess(home).open()
    if access.mem is None:  # a person started this in a terminal: say why at once, not per call
        print(f"memoir-cli: {access.problem}", file=sys.stderr)
        return 3
    try:
        if new_key or not app_access.has_token(access.mem.engine):
            key = app_access.new_token(access.mem.engine)
            print("memoir-cli: the access key for this server (shown only now; it replaces any key made "
                  f"before):\n  {key}", file=sys.stderr)
        config = uvicorn.Config(http_app(access, host), host=host, port=port, log_level="warning")
        try:
            sock = config.bind_socket()
            # Listening before it says so: bind_socket does not listen, and until uvicorn's loop did, a
            # client told "serving" was refused (seen in a test). Connections now wait in the backlog.
            sock.listen(config.backlog)
        except (OSError, SystemExit):
            print(f"memoir-cli: the port {port} is taken by another program; choose another one.", file=sys.stderr)
            return 2
        print(f"memoir-cli: serving memories at http://{host}:{port}/mcp", file=sys.stderr, flush=True)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        access.mem.close()
    return 0
