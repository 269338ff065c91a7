"""memoir-cli mcp beyond the stdio tools: the profile resource, the HTTP transport behind its access
key on the loopback address only, and a server and an "app" sharing one journal in two processes."""

import logging
import os
import re
import socket
import subprocess
import sys
import time

import anyio
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from memoir_desktop.core import Memoir
from memoir_desktop.core.apps import connected_apps

PASS = "mcp http test passphrase"
SECRET = "the blue door at the end of Jangmi street"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("mcp-http")
    with Memoir.open(home, passphrase=PASS) as mem:
        mem.add("I keep bees on the roof of my flat", infer=False)
        mem.add("My sister Minji lives in Busan", infer=False)
        mem.add("매주 금요일 저녁에 요가를 한다", infer=False)
        mem.add("2025년 3월 14일에 제주도로 여행을 갔다", infer=False)
        private = mem.journal.write(f"I went through {SECRET} tonight", private=True)
        mem.add(f"Goes through {SECRET}", infer=False, entry_id=private)
        mem.add("My doctor says my blood pressure is too high", infer=False)
        mem.reflection.set_remembered("health", False)
        connected_apps.seen(mem.engine, "Paused app")
        mem.apps.pause_app("Paused app")
    return home


def _env(home, passphrase=PASS):
    env = {**os.environ, "MEMOIR_HOME": str(home)}
    env.pop("MEMOIR_PASSPHRASE", None)
    if passphrase:
        env["MEMOIR_PASSPHRASE"] = passphrase
    return env


def _stdio(home, body, client="memoir tests", passphrase=PASS):
    params = StdioServerParameters(command=sys.executable, args=["-m", "memoir_desktop.cli", "mcp"],
                                   env=_env(home, passphrase))

    async def main():
        async with stdio_client(params) as (r, w), ClientSession(r, w, client_info=Implementation(
                name=client, version="1")) as s:
            await s.initialize()
            return await body(s)

    return anyio.run(main)


def test_the_profile_says_what_memoir_knows_and_nothing_it_may_not(home):
    async def body(s):
        listed = [str(r.uri) for r in (await s.list_resources()).resources]
        assert listed == ["memoir://profile"]
        return (await s.read_resource("memoir://profile")).contents[0].text

    text = _stdio(home, body)
    assert "I keep bees on the roof of my flat" in text and "Minji lives in Busan" in text
    assert "## People" in text or "## Places" in text
    assert SECRET not in text and "Jangmi" not in text  # a private entry's memory
    assert "blood pressure" not in text and "## Health" not in text  # a kind switched off

    async def paused(s):
        with pytest.raises(Exception, match="paused this app"):
            await s.read_resource("memoir://profile")
        return True

    assert _stdio(home, paused, client="Paused app")
    with Memoir.open(home, passphrase=PASS) as mem:
        assert any(c["tool"] == "profile" and c["outcome"] == "refused" for c in mem.apps.app_log(app="Paused app"))


def test_search_results_carry_their_dates(home):
    async def body(s):
        yoga = await s.call_tool("search_memories", {"query": "요가 언제 해?"})
        trip = await s.call_tool("search_memories", {"query": "제주도 여행"})
        return yoga.structured_content["result"], trip.structured_content["result"]

    yoga, trip = _stdio(home, body)
    assert yoga[0]["text"] == "매주 금요일 저녁에 요가를 한다" and yoga[0]["repeats"] == "every Friday"
    assert trip[0]["about"] == {"from": "2025-03-14", "to": "2025-03-14"}
    assert all(m["created_at"] and m["category"] and m["id"] for m in yoga + trip)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpServer:
    def __init__(self, home, *extra):
        self.port = _free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", "memoir_desktop.cli", "mcp", "--http",
                                      f"127.0.0.1:{self.port}", *extra], env=_env(home),
                                     stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        said = ""
        deadline = time.time() + 120
        while "serving memories" not in said:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None or time.time() > deadline:
                raise AssertionError(f"the HTTP server did not start: {said}")
            said += line
        self.said = said
        keys = re.findall(r"^\s+(\S{20,})$", said, re.M)
        self.key = keys[0] if keys else None
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def _http(url, key, body, client="http app"):
    async def main():
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
                streamable_http_client(url, http_client=http) as (r, w), \
                ClientSession(r, w, client_info=Implementation(name=client, version="1")) as s:
            await s.initialize()
            return await body(s)

    return anyio.run(main)


def _status_without(url, key=None) -> int:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}
    return httpx2.post(url, json=body, headers=headers, timeout=30).status_code


def test_a_client_told_serving_is_never_refused(tmp_path, monkeypatch, capsys):
    """"serving" is said once the port accepts connections: a client connecting at once waits in the
    queue until the server answers, it is not refused (a bound socket that does not listen refuses)."""
    import uvicorn

    from memoir_desktop.mcp.http import serve_http

    port = _free_port()
    connected = []

    def run(self, sockets=None):  # instead of serving: what a client that read "serving" would meet
        assert "serving memories" in capsys.readouterr().err
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            connected.append(port)

    monkeypatch.setenv("MEMOIR_PASSPHRASE", PASS)
    monkeypatch.setattr(uvicorn.Server, "run", run)
    with Memoir.open(tmp_path, passphrase=PASS):
        pass
    # serve_http points the root logger at this test's captured stderr (basicConfig, force): put back what
    # the run had, or the next test's log lines go to a closed stream ("Logging error", a traceback).
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        assert serve_http(tmp_path, f"127.0.0.1:{port}") == 0
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    assert connected == [port]


def test_http_answers_only_with_the_current_key(home):
    server = HttpServer(home)
    try:
        assert server.key, server.said  # the first start makes a key and shows it once
        with Memoir.open(home, passphrase=PASS) as mem:
            assert connected_apps.app_of_key(mem.engine, server.key) is not None

        async def body(s):
            tools = {t.name for t in (await s.list_tools()).tools}
            hit = await s.call_tool("search_memories", {"query": "beekeeping at home"})
            private = await s.call_tool("search_memories", {"query": "blue door Jangmi street"})
            return tools, str(hit.structured_content), str(private.content) + str(private.structured_content)

        tools, hit, private = _http(server.url, server.key, body)
        assert "search_memories" in tools and "bees" in hit
        assert SECRET not in private and "Jangmi" not in private
        assert _status_without(server.url) == 401
        assert _status_without(server.url, "not-the-key-" + "x" * 30) == 401
        with pytest.raises(BaseException, match="401|Unauthorized|unhandled errors"):  # the SDK's client gives up
            _http(server.url, "wrong-key", body)
    finally:
        server.stop()
    again = HttpServer(home)  # a key exists: it is not shown again, and it still opens
    try:
        assert again.key is None and server.key not in again.said
        assert _status_without(again.url, server.key) == 200
    finally:
        again.stop()
    renewed = HttpServer(home, "--new-key")
    try:
        assert renewed.key and renewed.key != server.key
        assert _status_without(renewed.url, server.key) == 401
        assert _status_without(renewed.url, renewed.key) == 200
    finally:
        renewed.stop()


@pytest.mark.parametrize("address", ["0.0.0.0:8765", "192.168.0.10:8765", "example.com:80", "127.0.0.1", "8765"])
def test_http_serves_on_this_computer_only(home, address):
    done = subprocess.run([sys.executable, "-m", "memoir_desktop.cli", "mcp", "--http", address],
                          env=_env(home), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and ("this computer only" in done.stderr or "127.0.0.1:PORT" in done.stderr)


def test_a_locked_journal_does_not_start_the_http_server(home):
    done = subprocess.run([sys.executable, "-m", "memoir_desktop.cli", "mcp", "--http", "127.0.0.1:1"],
                          env=_env(home, "not the passphrase"), capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "locked" in done.stderr and "Traceback" not in done.stderr
    # Said to the person at the terminal: nothing about an app's configuration.
    assert "MEMOIR_PASSPHRASE" in done.stderr and "configuration" not in done.stderr


def test_the_server_and_the_app_share_the_journal_live(home):
    """The server started before the app wrote: it finds what the app writes next, and what it adds
    the app's own search finds, each in its own process."""
    with Memoir.open(home, passphrase=PASS) as app:
        connected_apps.seen(app.engine, "Trusted app")
        app.apps.set_app_grant("Trusted app", "write_directly", True)
        app.search("warm the app's indexes")

        async def body(s):
            first = await s.call_tool("search_memories", {"query": "bees"})
            assert "bees" in str(first.structured_content)  # the server's indexes are built
            await anyio.to_thread.run_sync(lambda: app.add("I started learning the cello in October", infer=False))
            found = await s.call_tool("search_memories", {"query": "what instrument am I learning?"})
            added = await s.call_tool("add_memory", {"text": "The diarist grows basil on the windowsill"})
            return str(found.structured_content), added.structured_content

        found, added = _stdio(home, body, client="Trusted app")
        assert "cello" in found
        assert added["outcome"] == "added"
        assert app.search("herbs on the windowsill")["results"][0]["id"] == added["id"]
        assert app.outside_changes().memories >= {added["id"]}


def test_a_plain_journal_held_by_the_app_answers_one_sentence(tmp_path):
    with Memoir.open(tmp_path, encrypt=False) as app:
        app.add("I keep bees", infer=False)

        async def body(s):
            out = await s.call_tool("list_memories", {})
            return out.is_error, str(out.content)

        failed, said = _stdio(tmp_path, body, passphrase=None)
    assert failed and "one program at a time" in said and "Traceback" not in said
