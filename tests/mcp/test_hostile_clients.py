"""The MCP server attacked as a hostile program on this computer would: arguments of any size, a
client that renames itself to get round a pause, a web page on another localhost port, SIGTERM while
a call is running. Driven through the SDK's own client and memoir-cli, as another app reaches it."""

import os
import signal
import subprocess
import sys
import threading
import time

import httpx2
import pytest

from memoir_desktop.core import Memoir
from tests.cli_in_process import run_cli
from tests.mcp.test_http_profile_and_sharing import PASS, HttpServer, _env, _http, _stdio

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

HUGE = "bees and honey " * 250_000  # 3.5 MB: kept a server busy for half an hour


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("mcp-hostile")
    with Memoir.open(home, passphrase=PASS) as mem:
        mem.add("I keep bees on the roof of my flat", infer=False)
        mem.add("My sister Minji lives in Busan", infer=False)
    return home


def _cli(home, *args):
    return run_cli(*args, env={"MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": PASS})


def test_every_argument_has_a_size_limit_and_an_answer_comes_at_once(home):
    async def body(s):
        out = {}
        for tool, args in [("search_memories", {"query": HUGE}), ("list_memories", {"category": HUGE}),
                           ("get_memory", {"id": HUGE}), ("add_memory", {"text": HUGE}),
                           ("on_this_day", {"date": HUGE})]:
            started = time.monotonic()
            res = await s.call_tool(tool, args)
            out[tool] = (res.is_error, str(res.content), time.monotonic() - started)
        fine = await s.call_tool("search_memories", {"query": "bees"})
        return out, str(fine.structured_content)

    out, fine = _stdio(home, body)
    for tool, (failed, said, took) in out.items():
        assert failed, tool
        assert took < 10, (tool, took)
        assert "characters" in said or "paused" in said or "read entries" in said.lower() or "Reading" in said, said
    assert "characters" in out["search_memories"][1] and "bees" not in out["search_memories"][1][:200]
    assert "bees" in fine  # the server is still answering


def test_sigterm_ends_the_http_server_even_during_a_call(home):
    server = HttpServer(home)
    answered = []

    def huge_search():
        async def body(s):
            return await s.call_tool("search_memories", {"query": HUGE})

        try:
            answered.append(_http(server.url, server.key, body))
        except BaseException as exc:  # the server went away under it: what SIGTERM means
            answered.append(exc)

    t = threading.Thread(target=huge_search, daemon=True)
    t.start()
    time.sleep(3)
    server.proc.send_signal(signal.SIGTERM)
    try:
        code = server.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()
        pytest.fail("the server ignored SIGTERM while a call was running")
    assert code in (0, -signal.SIGTERM)


def _initialize(url, key, client="any name", origin=None, host=None) -> int:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {key}"}
    if origin:
        headers["Origin"] = origin
    if host:
        headers["Host"] = host
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}}}
    return httpx2.post(url, json=body, headers=headers, timeout=30).status_code


def test_each_http_app_has_its_own_key_and_a_new_name_changes_nothing(tmp_path):
    home = tmp_path / "home"
    with Memoir.open(home, passphrase=PASS) as mem:
        mem.add("I keep bees on the roof of my flat", infer=False)
    made = _cli(home, "apps", "key", "Cursor")
    assert made.returncode == 0, made.stderr
    cursor_key = made.stdout.strip().splitlines()[-1].strip()
    other = _cli(home, "apps", "key", "Claude Desktop")
    claude_key = other.stdout.strip().splitlines()[-1].strip()
    assert len(cursor_key) >= 30 and cursor_key != claude_key
    server = HttpServer(home)
    try:
        assert server.key is None  # apps have keys: none is made or shown at start

        async def search(s):
            res = await s.call_tool("search_memories", {"query": "bees"})
            return res.is_error, str(res.content) + str(res.structured_content)

        assert _http(server.url, cursor_key, search, client="Cursor")[0] is False
        assert _cli(home, "apps", "pause", "Cursor").returncode == 0
        for name in ("Cursor", "A brand new app", "Claude Desktop"):  # renaming itself gets it nothing
            failed, said = _http(server.url, cursor_key, search, client=name)
            assert failed and "paused this app" in said and "bees" not in said, name
        failed, said = _http(server.url, claude_key, search, client="Cursor")  # the other key: its own grants
        assert not failed and "bees" in said
    finally:
        server.stop()
    log = _cli(home, "--json", "apps", "log")
    import json

    calls = json.loads(log.stdout)
    assert {c["app"] for c in calls} == {"Cursor", "Claude Desktop"}  # the key's app, never the name given
    assert sum(c["outcome"] == "refused" for c in calls if c["app"] == "Cursor") == 3
    apps = json.loads(_cli(home, "--json", "apps").stdout)
    assert {a["name"] for a in apps} == {"Cursor", "Claude Desktop"}


def test_origin_must_be_the_servers_own_host_and_port(home):
    server = HttpServer(home)
    try:
        own = f"http://127.0.0.1:{server.port}"
        assert _initialize(server.url, server.key or _key(home), origin=own) == 200
        assert _initialize(server.url, server.key or _key(home), origin=f"http://127.0.0.1:{server.port + 1}") == 403
        assert _initialize(server.url, server.key or _key(home), origin=f"http://localhost:{server.port + 7}") == 403
        assert _initialize(server.url, server.key or _key(home), origin="https://evil.example") == 403
        assert _initialize(server.url, server.key or _key(home), host=f"evil.example:{server.port}") == 421
        assert _initialize(server.url, server.key or _key(home), host=f"127.0.0.1:{server.port + 1}") == 421
    finally:
        server.stop()


_keys: dict = {}


def _key(home):
    if home not in _keys:
        made = _cli(home, "apps", "key", "Origin tests")
        _keys[home] = made.stdout.strip().splitlines()[-1].strip()
    return _keys[home]


def test_the_server_process_sees_this_worktree():
    # Subprocess tests run `python -m memoir_desktop.cli`: the PYTHONPATH of the run decides which code.
    done = subprocess.run([sys.executable, "-c", "import memoir_desktop; print(memoir_desktop.__file__)"],
                          env=_env(None), capture_output=True, text=True, timeout=60)
    assert os.path.dirname(os.path.dirname(done.stdout.strip())) == os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
