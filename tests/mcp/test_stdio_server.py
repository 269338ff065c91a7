"""memoir-cli mcp driven by the SDK's own client over stdio."""

import os
import sys
from datetime import date, datetime, timedelta

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import Implementation

from memoir_desktop.core import Memoir
from memoir_desktop.core.apps import connected_apps

PASSPHRASE = "mcp test passphrase"
SECRET = "the hidden orchard behind grandmother's house"
OLD_SECRET = "the letter to Minji that I never sent"  # private, written a year ago today
OFF = "My doctor says my blood pressure is too high"  # health: a kind the user switched off


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("mcp")
    os.environ["MEMOIR_PASSPHRASE"] = PASSPHRASE
    try:
        with Memoir.open(home, passphrase=PASSPHRASE) as mem:
            mem.add("I keep bees on the roof of my flat", infer=False)
            private = mem.journal.write(f"Today I walked to {SECRET} again", private=True)
            mem.add(f"Walks to {SECRET}", infer=False, entry_id=private)
            mem.add(OFF, infer=False)
            mem.reflection.set_remembered("health", False)
            connected_apps.seen(mem.engine, "Paused app")
            mem.apps.pause_app("Paused app")
            connected_apps.seen(mem.engine, "Reader app")
            mem.apps.set_app_grant("Reader app", "read_entries", True)
            year_ago = _year_ago(datetime.now().replace(hour=9, minute=0, second=0, microsecond=0))
            mem.journal.write("A year ago I painted the kitchen yellow", timestamp=year_ago)
            mem.journal.write(f"I wrote {OLD_SECRET} again", timestamp=year_ago + timedelta(hours=1), private=True)
            mem.journal.write("This week I planted tomatoes on the balcony", timestamp=datetime.now() - timedelta(days=2))
            connected_apps.seen(mem.engine, "Trusted app")
            mem.apps.set_app_grant("Trusted app", "write_directly", True)
    finally:
        os.environ.pop("MEMOIR_PASSPHRASE", None)
    return home


def _year_ago(at: datetime) -> datetime:
    try:
        return at.replace(year=at.year - 1)
    except ValueError:  # 29 February
        return at.replace(year=at.year - 1, day=28)


def _ids(out) -> list[str]:
    return [m["id"] for m in (out.structured_content or {}).get("result", [])]


def _run(home, passphrase, body, client="memoir tests"):
    env = {**os.environ, "MEMOIR_HOME": str(home)}
    if passphrase:
        env["MEMOIR_PASSPHRASE"] = passphrase
    params = StdioServerParameters(command=sys.executable, args=["-m", "memoir_desktop.cli", "mcp"], env=env)

    async def main():
        async with stdio_client(params) as (r, w), ClientSession(r, w, client_info=Implementation(
                name=client, version="1")) as s:
            await s.initialize()
            return await body(s)

    return anyio.run(main)


def test_tools_search_privacy_and_errors(home):
    async def body(s):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == {"search_memories", "list_memories", "get_memory", "add_memory", "on_this_day",
                              "recent_entries"}
        for name, args in [("search_memories", {"query", "limit"}), ("list_memories", {"category", "limit"}),
                           ("get_memory", {"id"}), ("add_memory", {"text"})]:
            assert set(tools[name].input_schema["properties"]) == args  # the SDK's Context is not an argument
            assert tools[name].description
        assert tools["get_memory"].output_schema and tools["add_memory"].output_schema
        hit = await s.call_tool("search_memories", {"query": "beekeeping at home"})
        assert "bees" in str(hit.structured_content)
        for name, args in [("search_memories", {"query": "orchard grandmother"}), ("list_memories", {})]:
            out = await s.call_tool(name, args)
            assert "orchard" not in str(out.content) + str(out.structured_content)
        bad = await s.call_tool("get_memory", {"id": "no-such-id"})
        assert bad.is_error and "no memory" in str(bad.content)
        wrong = await s.call_tool("search_memories", {"query": 5, "limit": "x"})
        assert wrong.is_error
        listed = await s.call_tool("list_memories", {})
        mid = str(listed.structured_content).split("'id': '")[1].split("'")[0]
        one = await s.call_tool("get_memory", {"id": mid})
        assert not one.is_error and "history" in str(one.structured_content)

    _run(home, PASSPHRASE, body)


def test_a_category_switched_off_never_leaves(home):
    with Memoir.open(home, passphrase=PASSPHRASE) as mem:
        off_id = next(m["id"] for m in mem.get_all()["results"] if m["memory"] == OFF)
        private_id = next(m["id"] for m in mem.get_all()["results"] if SECRET in m["memory"])

    async def body(s):
        for name, args in [("search_memories", {"query": "doctor blood pressure"}), ("list_memories", {}),
                           ("list_memories", {"category": "health"})]:
            out = await s.call_tool(name, args)
            assert not out.is_error and off_id not in _ids(out)
            assert "blood pressure" not in str(out.content) + str(out.structured_content)
        for mid in (off_id, private_id):  # not by its id either, and the same answer as for no memory
            one = await s.call_tool("get_memory", {"id": mid})
            assert one.is_error and "There is no memory" in str(one.content)
            assert "blood pressure" not in str(one.content) and "orchard" not in str(one.content)
        assert _ids(await s.call_tool("list_memories", {}))  # the other memories still come

    _run(home, PASSPHRASE, body)


def _open(home):
    return Memoir.open(home, passphrase=PASSPHRASE)


def test_a_paused_app_is_refused_and_the_server_keeps_answering(home):
    calls = [("search_memories", {"query": "bees"}), ("list_memories", {}), ("get_memory", {"id": "x"})]

    def allow():
        with _open(home) as mem:
            mem.apps.pause_app("Paused app", paused=False)

    def pause_again():
        with _open(home) as mem:
            mem.apps.pause_app("Paused app")
            connected_apps.seen(mem.engine, "Reader app")
            mem.apps.set_app_grant("Reader app", "read_entries", True)
            year_ago = _year_ago(datetime.now().replace(hour=9, minute=0, second=0, microsecond=0))
            mem.journal.write("A year ago I painted the kitchen yellow", timestamp=year_ago)
            mem.journal.write(f"I wrote {OLD_SECRET} again", timestamp=year_ago + timedelta(hours=1), private=True)
            mem.journal.write("This week I planted tomatoes on the balcony", timestamp=datetime.now() - timedelta(days=2))
            connected_apps.seen(mem.engine, "Trusted app")
            mem.apps.set_app_grant("Trusted app", "write_directly", True)
            return mem.apps.app_log(app="Paused app")

    async def body(s):
        for name, args in calls * 2:
            out = await s.call_tool(name, args)
            assert out.is_error and "paused this app" in str(out.content)
            assert "bees" not in str(out.content) + str(out.structured_content)
        await anyio.to_thread.run_sync(allow)  # the user allows it in the open app: the next call answers
        out = await s.call_tool("list_memories", {})
        assert not out.is_error and "bees" in str(out.structured_content)
        return await anyio.to_thread.run_sync(pause_again)

    log = _run(home, PASSPHRASE, body, client="Paused app")
    assert [(c["tool"], c["outcome"], c["items"]) for c in log[:2]] == [
        ("list_memories", "answered", 1), ("get_memory", "refused", 0)]
    assert sum(c["outcome"] == "refused" for c in log) == 6
    assert "bees" not in str(log)


def test_add_memory_is_a_suggestion_unless_the_app_may_write(home):
    async def suggest(s):
        out = await s.call_tool("add_memory", {"text": "The diarist is learning the cello"})
        assert not out.is_error and out.structured_content["outcome"] == "suggested"
        assert "suggestion" in str(out.content)
        for bad in ["   ", "x" * 1001]:
            wrong = await s.call_tool("add_memory", {"text": bad})
            assert wrong.is_error and "memory" in str(wrong.content)
        off = await s.call_tool("add_memory", {"text": "The diarist sees a doctor about headaches"})
        assert off.structured_content["outcome"] == "not_kept"  # health is switched off
        assert (await s.call_tool("list_memories", {})).structured_content["result"]  # still answering

    async def write(s):
        out = await s.call_tool("add_memory", {"text": "The diarist runs every Sunday morning by the river"})
        assert not out.is_error and out.structured_content["outcome"] == "added"
        return out.structured_content["id"]

    _run(home, PASSPHRASE, suggest)
    added = _run(home, PASSPHRASE, write, client="Trusted app")
    with _open(home) as mem:
        held = mem.apps.memory_suggestions()
        assert [(x["app"], x["text"]) for x in held] == [("memoir tests", "The diarist is learning the cello")]
        texts = [m["memory"] for m in mem.get_all()["results"]]
        assert "The diarist is learning the cello" not in texts  # not a memory until accepted
        assert not any("headaches" in x for x in texts)
        assert mem.get(added)["memory"] == "The diarist runs every Sunday morning by the river"
        assert mem.get(added)["metadata"]["added_by"] == "Trusted app"


def test_entries_only_with_the_grant_and_never_a_private_one(home):
    async def stranger(s):
        for name, args in [("on_this_day", {}), ("recent_entries", {"days": 30})]:
            out = await s.call_tool(name, args)
            assert out.is_error and "Reading journal entries is off" in str(out.content)
            assert "tomatoes" not in str(out.content) + str(out.structured_content)

    async def reader(s):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert "days" in tools["recent_entries"].input_schema["properties"]
        assert "date" in tools["on_this_day"].input_schema["properties"]
        outs = [await s.call_tool("recent_entries", {"days": 400}),
                await s.call_tool("on_this_day", {"date": "last tuesday"})]
        assert all(o.is_error for o in outs) and "YYYY-MM-DD" in str(outs[1].content)
        recent = await s.call_tool("recent_entries", {"days": 7})
        back = await s.call_tool("on_this_day", {})
        when = _year_ago(datetime.now()).date()
        dated = await s.call_tool("on_this_day", {"date": (date.today() + timedelta(days=1)).isoformat()})
        return recent, back, dated, when

    _run(home, PASSPHRASE, stranger)
    recent, back, dated, when = _run(home, PASSPHRASE, reader, client="Reader app")
    assert not recent.is_error and "tomatoes" in str(recent.structured_content)
    assert not back.is_error and "painted the kitchen" in str(back.structured_content)
    assert back.structured_content["looking_back"][0]["date"] == when.isoformat()
    assert not dated.is_error and "painted the kitchen" not in str(dated.structured_content)
    for out in (recent, back, dated):
        said = str(out.content) + str(out.structured_content)
        assert SECRET not in said and OLD_SECRET not in said and "orchard" not in said and "Minji" not in said


def test_locked_journal_answers_one_sentence(home):
    async def body(s):
        out = await s.call_tool("list_memories", {})
        assert out.is_error and "locked" in str(out.content)

    _run(home, "wrong passphrase!", body)
