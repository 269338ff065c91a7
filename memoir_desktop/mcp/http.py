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

from mcp.server.transport_security import TransportSecuritySettings

from memoir_desktop.core.apps import connected_apps
from memoir_desktop.mcp.access import APP_OF_KEY, JournalAccess
from memoir_desktop.mcp.server import build_server

log = logging.getLogger(__name__)

LOOPBACK_NAMES = {"localhost"}
# SIGTERM: the calls under way get this long to finish, then the server stops (uvicorn's default waits
# for them for ever, and a call that ran long kept a server from stopping for half an hour). uvicorn
# then raises the signal again, so the process ends even while a worker thread still runs.
GRACE_SECONDS = 3


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
    """ASGI middleware: an HTTP request without an app's current key gets 401 and never reaches the
    server; one with a key goes on carrying which app the key is (access.APP_OF_KEY)."""

    def __init__(self, app, app_of):
        self.app, self.app_of = app, app_of

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":  # lifespan: starts the SDK's session manager
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        scheme, _, presented = headers.get("authorization", "").partition(" ")
        app_id = self.app_of(presented.strip()) if scheme.lower() == "bearer" else None
        if app_id is not None:
            await self.app({**scope, APP_OF_KEY: app_id}, receive, send)
            return
        body = b'{"error": "memoir needs the access key made in its Connected apps settings."}'
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})


def own_origins(host: str, port: int) -> TransportSecuritySettings:
    """The Host and Origin a request to this server may carry: this computer's loopback names at this
    server's own port, no other. A web page served by another program on this computer (another port)
    is another origin: the browser says so in Origin, and it gets 403; a DNS-rebinding page's Host is
    not a loopback name, and gets 421."""
    names = {host, "127.0.0.1", "localhost", "[::1]"} - {"::1"}
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=sorted(f"{n}:{port}" for n in names),
                                     allowed_origins=sorted(f"http://{n}:{port}" for n in names))


def http_app(access: JournalAccess, host: str, port: int):
    engine = access.memoir().engine
    inner = build_server(access).streamable_http_app(host=host, transport_security=own_origins(host, port))
    return KeyRequired(inner, lambda presented: connected_apps.app_of_key(engine, presented))


def serve_http(home, address: str, *, new_key: bool = False) -> int:
    import uvicorn

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, force=True)
    try:
        host, port = loopback_address(address)
    except AddressRefused as exc:
        print(f"memoir-cli: {exc}", file=sys.stderr)
        return 2
    access = JournalAccess(home, terminal=True).open()
    if access.mem is None:  # a person started this in a terminal: say why at once, not per call
        print(f"memoir-cli: {access.problem}", file=sys.stderr)
        return 3
    try:
        engine = access.mem.engine
        if new_key or not connected_apps.has_app_keys(engine):
            key = connected_apps.new_app_key(engine, connected_apps.HTTP_APP)
            print(f"memoir-cli: the access key of the app \"{connected_apps.HTTP_APP}\" (shown only now; it "
                  "replaces that app's key made before; each app can have its own: memoir-cli apps key NAME):"
                  f"\n  {key}", file=sys.stderr)
        config = uvicorn.Config(http_app(access, host, port), host=host, port=port, log_level="warning",
                                timeout_graceful_shutdown=GRACE_SECONDS)
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
