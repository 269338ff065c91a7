"""An entry made private after it was written: from then on no LLM reads it, and what was made from
it leaves the companion's context; shared again, it comes back."""

from datetime import datetime

from tests.core.test_journal_entries import graph_says, lives_in

T1 = datetime(2026, 3, 10, 21, 0)


def sent(fake_llm, word: str) -> int:
    return sum(word in str(r["messages"]) for r in fake_llm.calls())


def test_made_private_its_memories_leave_the_context_and_come_back_when_shared(mem, fake_llm):
    graph_says(fake_llm)
    eid = mem.journal.write("나는 목포에 산다", timestamp=T1)
    mem.jobs.process()
    assert "목포" in mem.companion.context_for("어디 살아?").render() and lives_in(mem) == ["나 산다 목포"]

    out = mem.journal.set_private(eid)
    assert out.entry["private"] and len(out.memories) == 1
    assert "목포" not in mem.companion.context_for("어디 살아?").render()
    assert mem.search("목포")["results"] == [] and lives_in(mem) == []
    assert [e["id"] for e in mem.search_field.search_entries("목포")] == [eid]  # the user's own search still finds it
    calls, before = len(fake_llm.calls()), sent(fake_llm, "목포")
    mem.companion.chat("요즘 어디 살고 있지?")
    mem.jobs.process()
    assert len(fake_llm.calls()) > calls and sent(fake_llm, "목포") == before  # asked, but never about it

    back = mem.journal.set_private(eid, False)
    assert not back.entry["private"] and back.job_id is None  # its memories exist: nothing to read again
    assert "목포" in mem.companion.context_for("어디 살아?").render() and lives_in(mem) == ["나 산다 목포"]


def test_a_waiting_job_never_sends_an_entry_made_private_before_it_ran(mem, fake_llm):
    eid = mem.journal.write("I keep bees on the roof", timestamp=T1)
    mem.journal.set_private(eid)
    mem.jobs.process()
    assert sent(fake_llm, "bees") == 0 and mem.search("bees")["results"] == []


def test_a_private_entry_shared_is_read_then(mem, fake_llm):
    eid = mem.journal.write("I keep bees on the roof", timestamp=T1, private=True)
    mem.jobs.process()
    assert sent(fake_llm, "bees") == 0
    out = mem.journal.set_private(eid, False)
    assert out.job_id is not None
    mem.jobs.process()
    assert [m["memory"] for m in mem.search("bees")["results"]] == ["I keep bees on the roof"]


def test_a_private_entry_taken_out_of_the_trash_stays_private(mem, fake_llm):
    graph_says(fake_llm)
    eid = mem.journal.write("나는 목포에 산다", timestamp=T1)
    mem.jobs.process()
    mem.journal.set_private(eid)
    mem.journal.trash(eid)
    mem.journal.restore(eid)
    assert lives_in(mem) == [] and mem.search("목포")["results"] == []
    mem.journal.set_private(eid, False)
    assert lives_in(mem) == ["나 산다 목포"] and mem.search("목포")["results"]


def test_made_private_while_the_llm_was_reading_it_nothing_it_found_is_stored(mem, fake_llm):
    from tests.fakes.fake_llm import tool

    eid = mem.journal.write("I keep bees on the roof", timestamp=T1)

    def extract(_req):  # the user clicks "Make private" while the model is still answering
        mem.journal.set_private(eid)
        return tool({"facts": [{"text": "Keeps bees on the roof", "category": "other"}]})

    fake_llm.on("save_facts", extract)
    mem.jobs.process()
    assert mem.get_all()["results"] == [] and mem.search("bees")["results"] == []
