"""The UI's two runners: a query runs on connections that cannot write (a write raises there, and
nothing is written); a core op runs on the writer and announces what it changed."""

import pytest


def test_a_write_attempted_through_a_query_fails_and_writes_nothing(backend, mem, qtbot):
    outcome = {}
    backend.read(lambda m: m.add("I keep bees", infer=False), lambda r: outcome.setdefault("done", r),
                  lambda exc: outcome.setdefault("error", exc))
    qtbot.waitUntil(lambda: bool(outcome), timeout=15_000)
    assert "done" not in outcome
    assert "readonly" in str(outcome["error"]) or "read-only" in str(outcome["error"])
    assert mem.get_all()["results"] == []


@pytest.mark.parametrize("write", [
    lambda m: m.journal.write("a day by the sea"),
    lambda m: m.companion.finish_turn({"_when": "2026-01-01T09:00:00", "user_id": "me", "backdated": False,
                                        "entry_id": None, "job_id": None, "reply": "hello"}),
])
def test_no_query_can_journal(backend, mem, qtbot, write):
    errors = []
    backend.read(write, None, errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=15_000)
    assert mem.journal.entries() == []


def test_a_core_op_writes_and_says_what_changed(backend, mem, qtbot):
    with qtbot.waitSignal(backend.changed, timeout=15_000) as changed:
        backend.change(lambda m: m.memories.add("I keep bees", infer=False))
    [memory] = mem.get_all()["results"]
    assert changed.args[0].memories == {memory["id"]}


def test_a_query_reads(backend, mem, qtbot):
    mem.add("I keep bees on the roof", infer=False)
    found = []
    backend.read(lambda m: m.search("bees")["results"], found.append)
    qtbot.waitUntil(lambda: bool(found), timeout=15_000)
    assert found[0][0]["memory"] == "I keep bees on the roof"
