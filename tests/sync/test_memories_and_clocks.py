"""Memories: the user's decisions outrank the model's whatever the clocks say; a clock a day ahead
wins nothing over a change made after its own was seen; the LLM reads each entry once, on the
computer that wrote it."""

from sqlmodel import Session

from memoir_desktop.core.storage.models import Memory
from memoir_desktop.core.storage.store import Change
from memoir_desktop.core.sync import hlc
from tests.sync.test_join_and_merge import memory_texts, texts

DAY_MS = 24 * 3600 * 1000


def a_day_ahead(monkeypatch):
    real = hlc.wall_ms
    monkeypatch.setattr(hlc, "wall_ms", lambda: real() + DAY_MS)


def model_made(mem, text, entry_id):
    """A memory as the write path's apply stages it (actor llm), without an LLM."""
    change = Change()
    with Session(mem.engine) as s:
        m = mem.store.stage_add(s, change, user_id="me", text=text, actor="llm", entry_id=entry_id)
        s.commit()
        mid = m.id
    mem.store.apply_index("me", change)
    return mid


def model_rewrites(mem, memory_id, text):
    change = Change()
    with Session(mem.engine) as s:
        mem.store.stage_update(s, change, s.get(Memory, memory_id), text, actor="llm")
        s.commit()
    mem.store.apply_index("me", change)


def test_the_users_edit_wins_over_the_models_change_whatever_the_clocks(devices, monkeypatch):
    laptop = devices.first()
    eid = laptop.journal.write("Moved the piano lessons to Thursdays")
    mid = model_made(laptop, "Has piano lessons on Wednesdays", eid)
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk")
    desk.update(mid, "Has piano lessons on Thursdays")  # the user corrects it on the desk
    desk.sync.run()
    with monkeypatch.context() as m:  # meanwhile the laptop's model rewrites it, its clock a day ahead
        a_day_ahead(m)
        model_rewrites(laptop, mid, "Takes piano lessons every Wednesday afternoon")
        laptop.sync.run()
        laptop.sync.run()
    desk.sync.run()
    for mem in (laptop, desk):
        got = mem.get(mid)
        assert got["memory"] == "Has piano lessons on Thursdays" and got["user_edited"]
        actors = [(h["event"], h["actor"]) for h in mem.history(mid)]
        assert ("UPDATE", "llm") in actors and ("UPDATE", "user") in actors  # both changes are in its story
    assert [m["memory"] for m in laptop.search("when are piano lessons?")["results"]][:1] == \
        ["Has piano lessons on Thursdays"]


def model_forgets(mem, memory_id):
    change = Change()
    with Session(mem.engine) as s:
        mem.store.stage_state(s, change, s.get(Memory, memory_id), "invalid", actor="llm", note="contradicted")
        s.commit()
    mem.store.apply_index("me", change)


def test_a_restore_by_the_user_holds_against_the_models_forget(devices, monkeypatch):
    laptop = devices.first()
    eid = laptop.journal.write("Thinking about learning Spanish")
    mid = model_made(laptop, "Wants to learn Spanish", eid)
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk")
    desk.delete(mid)  # the user forgets it, then changes their mind
    desk.memories.restore(mid)
    desk.sync.run()
    with monkeypatch.context() as m:  # the model, not having seen that, forgets it: a day later by its clock
        a_day_ahead(m)
        model_forgets(laptop, mid)
        laptop.sync.run()
    desk.sync.run()
    for mem in (laptop, desk):
        assert mem.get(mid)["state"] == "active"
        assert memory_texts(mem) == ["Wants to learn Spanish"]
        assert ("DELETE", "llm") in [(h["event"], h["actor"]) for h in mem.history(mid)]


def test_a_clock_a_day_ahead_does_not_beat_an_edit_made_after_its_own(devices, monkeypatch):
    laptop = devices.first()
    eid = laptop.journal.write("Ran 5 km along the canal")
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk")
    did = desk.journal.entries()[0]["id"]
    with monkeypatch.context() as m:  # the laptop's clock is a day ahead
        a_day_ahead(m)
        laptop.journal.edit(eid, "Ran 5 km along the canal in the rain")
        laptop.sync.run()
    desk.sync.run()
    assert texts(desk) == ["Ran 5 km along the canal in the rain"]
    desk.journal.edit(did, "Ran 5 km along the canal in the rain; new personal best")  # after seeing it
    desk.sync.run()
    with monkeypatch.context() as m:
        a_day_ahead(m)
        laptop.sync.run()
    assert texts(laptop) == texts(desk) == ["Ran 5 km along the canal in the rain; new personal best"]
    assert laptop.sync.status().notices == [] and desk.sync.status().notices == []  # one after the other: no conflict


def test_the_llm_reads_an_entry_once_on_the_computer_that_wrote_it(devices, fake_llm):
    over = {"llm_base_url": fake_llm.url, "llm_model": "fake-model", "llm_max_retries": 0, "graph_enabled": False}
    laptop = devices.first(**over)
    eid = laptop.journal.write("I adopted a grey cat called Miso")
    assert laptop.jobs.all("pending")  # its memorize job waits on the laptop
    laptop.sync.run(devices.place.url)  # the entry travels before its memories exist
    desk = devices.join("desk", **over)
    assert texts(desk) == ["I adopted a grey cat called Miso"]
    assert desk.jobs.all() == []  # no memorize job here, though this computer has an LLM too
    assert desk.jobs.process() == []
    done = laptop.jobs.process()
    assert [j["state"] for j in done] == ["done"]
    laptop.sync.run()
    desk.sync.run()
    assert memory_texts(desk) == memory_texts(laptop) != []
    [m] = desk.get_all()["results"]
    assert m["source_entry_id"] == desk.journal.entries()[0]["id"]
    assert [h["actor"] for h in desk.history(m["id"])] == ["llm"]
    calls = len(fake_llm.calls())
    desk.jobs.process()
    desk.sync.run()
    laptop.sync.run()
    laptop.jobs.process()
    assert len(fake_llm.calls()) == calls  # nothing read twice
    assert [x["memory"] for x in desk.search("what pet do I have?")["results"]][:1] == [m["memory"]]
    assert eid
