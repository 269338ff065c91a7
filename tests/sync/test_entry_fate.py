"""Trash, restore, purge and privacy travel; a purge takes the text from everything it went to."""

from sqlalchemy import text

from memoir_desktop.core.sync import sealing
from tests.sync.test_join_and_merge import memory_texts, texts


def plain_text_of_database(mem) -> str:
    """Every value in every table of a journal (decrypted by its engine), as one string."""
    out = []
    with mem.engine.connect() as con:
        tables = [r[0] for r in con.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for t in tables:
            for row in con.execute(text(f'SELECT * FROM "{t}"')):
                out.append(repr(tuple(row)))
    return "\n".join(out)


def opened_target(mem, place) -> str:
    """Every file in the target, decrypted with the journal's sync key where it is sealed."""
    key = sealing.sync_key(mem.keys.data_key)
    out = []
    for name, blob in place.files().items():
        if blob.startswith(sealing.MAGIC):
            out.append(repr(sealing.unseal(key, name, blob)))
        else:
            out.append(blob.decode("utf-8", "replace"))
    return "\n".join(out)


def test_trash_and_restore_travel_with_the_memories_that_follow_them(devices):
    laptop = devices.first()
    eid = laptop.journal.write("Started the pottery class on Tuesday evenings")
    laptop.add("Goes to a pottery class on Tuesday evenings", infer=False, entry_id=eid)
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk")
    laptop.journal.trash(eid)
    laptop.sync.run()
    desk.sync.run()
    assert texts(desk) == [] and [e["content"] for e in desk.journal.in_trash()] == ["Started the pottery class on Tuesday evenings"]
    assert memory_texts(desk) == []  # its only source is in the trash: out of search and answers
    assert desk.search_field.search_entries("pottery") == []
    did = desk.journal.in_trash()[0]["id"]
    desk.journal.restore(did)
    desk.sync.run()
    laptop.sync.run()
    assert texts(laptop) == ["Started the pottery class on Tuesday evenings"] and laptop.journal.in_trash() == []
    assert memory_texts(laptop) == ["Goes to a pottery class on Tuesday evenings"]
    assert [e["content"] for e in laptop.search_field.search_entries("pottery")] == texts(laptop)


def test_a_purge_travels_and_the_text_is_gone_from_the_other_computer_and_the_target(devices):
    secret = "The diagnosis came back and I have told nobody yet"
    laptop = devices.first()
    keep = laptop.journal.write("A quiet Sunday with coffee")
    eid = laptop.journal.write(secret)
    laptop.add("Received a diagnosis and has told nobody", infer=False, entry_id=eid)
    laptop.add("Likes quiet Sundays with coffee", infer=False, entry_id=keep)
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk")
    did = next(e["id"] for e in desk.journal.entries() if e["content"] == secret)
    desk.journal.edit(did, secret + " (written again on the desk)")  # the desk's own files hold it too
    desk.sync.run()
    laptop.sync.run()
    assert secret in opened_target(laptop, devices.place)
    eid_now = next(e["id"] for e in laptop.journal.entries() if e["content"].startswith(secret))
    laptop.journal.trash(eid_now)
    laptop.journal.purge(eid_now)
    laptop.sync.run()
    report = desk.sync.run()
    assert report.purged == 1
    assert texts(desk) == ["A quiet Sunday with coffee"] and desk.journal.in_trash() == []
    assert memory_texts(desk) == ["Likes quiet Sundays with coffee"]
    for mem in (desk, laptop):
        dump = plain_text_of_database(mem)
        assert "diagnosis" not in dump and "told nobody" not in dump
    assert desk.search_field.search_entries("diagnosis") == []
    assert not any("diagnosis" in m["memory"] for m in desk.search("diagnosis")["results"])
    laptop.sync.run()
    desk.sync.run()
    # Every device dropped its files that held it: the target no longer has it, even sealed.
    target = opened_target(laptop, devices.place)
    assert "diagnosis" not in target and "told nobody" not in target
    assert "quiet Sunday" in target
    # A third computer joining now never sees it.
    phone = devices.join("phone")
    assert texts(phone) == ["A quiet Sunday with coffee"]


def test_private_entries_stay_private_on_every_computer(devices, fake_llm):
    over = {"llm_base_url": fake_llm.url, "llm_model": "fake-model"}
    laptop = devices.first(**over)
    laptop.journal.write("Only for me: what I really think about the job", private=True)
    shared = laptop.journal.write("Lunch with the team at the new bistro")
    laptop.add("Had lunch with the team at the bistro", infer=False, entry_id=shared)
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk", **over)
    assert [e["private"] for e in sorted(desk.journal.entries(), key=lambda e: e["content"])] == [False, True]
    sid = next(e["id"] for e in desk.journal.entries() if e["content"].startswith("Lunch"))
    desk.journal.set_private(sid, True)
    desk.sync.run()
    laptop.sync.run()
    assert all(e["private"] for e in laptop.journal.entries())
    assert memory_texts(laptop) == []  # its only source became private: out of every answer
    assert desk.jobs.all("pending") == [] and laptop.jobs.all("pending") == []
    # Nothing of either entry went to the LLM on either computer.
    assert fake_llm.calls() == []
