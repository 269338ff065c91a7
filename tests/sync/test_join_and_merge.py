"""Two and three computers of one diarist, each with its own journal, synced through a folder, a
WebDAV server and S3 on this machine."""



def texts(mem) -> list[str]:
    return sorted(e["content"] for e in mem.journal.entries())


def memory_texts(mem) -> list[str]:
    return sorted(m["memory"] for m in mem.get_all()["results"])


def test_a_new_computer_joins_with_the_passphrase_and_finds_what_was_written(devices_on):
    laptop = devices_on.first()
    eid = laptop.journal.write("Walked to the lighthouse with Mina; the fog lifted at noon")
    laptop.add("Mina is my younger sister", infer=False, entry_id=eid)
    laptop.sync.run(devices_on.place.url)
    desk = devices_on.join("desk")
    assert texts(desk) == ["Walked to the lighthouse with Mina; the fog lifted at noon"]
    assert memory_texts(desk) == ["Mina is my younger sister"]
    # Derived locally: the synced memory and entry are found by search on the new computer.
    assert [m["memory"] for m in desk.search("who is my sister?")["results"]][:1] == ["Mina is my younger sister"]
    assert [e["content"] for e in desk.search_field.search_entries("lighthouse")] == [texts(desk)[0]]
    # Its memory came with it: nothing to memorise here (the LLM is paid once, on the laptop).
    assert desk.jobs.all() == []
    assert desk.get_all()["results"][0]["source_entry_id"] == desk.journal.entries()[0]["id"]


def test_entries_written_on_each_side_both_appear(devices_on):
    laptop = devices_on.first()
    laptop.journal.write("Laptop: planted tomatoes on the balcony")
    laptop.sync.run(devices_on.place.url)
    desk = devices_on.join("desk")
    desk.journal.write("Desk: finished the quarterly report")
    laptop.journal.write("Laptop: called grandmother in the evening")
    desk.sync.run()
    laptop.sync.run()
    desk.sync.run()
    want = ["Desk: finished the quarterly report", "Laptop: called grandmother in the evening",
            "Laptop: planted tomatoes on the balcony"]
    assert texts(laptop) == want and texts(desk) == want
    assert len({e["id"] for e in desk.journal.entries()}) == 3


def test_an_entry_edited_on_two_computers_keeps_both_versions_and_says_so_once(devices_on):
    laptop = devices_on.first()
    eid = laptop.journal.write("Dinner with Jae at the noodle place")
    laptop.sync.run(devices_on.place.url)
    desk = devices_on.join("desk")
    did = desk.journal.entries()[0]["id"]
    laptop.journal.edit(eid, "Dinner with Jae at the noodle place; we talked about moving to Busan")
    desk.journal.edit(did, "Dinner with Jae, then a long walk by the river")
    first = laptop.sync.run()
    second = desk.sync.run()
    third = laptop.sync.run()
    # The later edit is the entry's text on both computers; the other is in the entry's history.
    assert texts(laptop) == texts(desk) == ["Dinner with Jae, then a long walk by the river"]
    for mem, e in ((laptop, eid), (desk, did)):
        olds = {h["old_content"] for h in mem.journal.history(e)} | {h["new_content"] for h in mem.journal.history(e)}
        assert "Dinner with Jae at the noodle place; we talked about moving to Busan" in olds
        assert [h["event"] for h in mem.journal.history(e)].count("CONFLICT") == 1
    # Told once on each computer: in the round that met the other edit, then as a notice until seen.
    assert first.conflicts == [] and len(second.conflicts) == 1 and len(third.conflicts) == 1
    [notice] = desk.sync.status().notices
    assert notice.entry_id == did and "two computers" in notice.message
    desk.sync.dismiss(notice.id)
    assert desk.sync.status().notices == []
    assert desk.sync.run().conflicts == [] and laptop.sync.run().conflicts == []
    assert desk.sync.status().notices == [] and len(laptop.sync.status().notices) == 1
    assert desk.sync.status().last_sync is not None


def test_three_computers_converge_on_one_journal(devices):
    a = devices.first("a")
    eid = a.journal.write("The first snow of the year")
    a.sync.run(devices.place.url)
    b, c = devices.join("b"), devices.join("c")
    b_id, c_id = b.journal.entries()[0]["id"], c.journal.entries()[0]["id"]
    a.journal.edit(eid, "The first snow of the year, and the cat refused to go out")
    b.journal.edit(b_id, "The first snow; we built a tiny snowman")
    c.journal.write("C: bought new winter boots")
    c.journal.trash(c_id)
    for mem in (a, b, c, a, b, c):
        mem.sync.run()
    states = [(texts(m), sorted(e["content"] for e in m.journal.in_trash())) for m in (a, b, c)]
    assert states[0] == states[1] == states[2]
    assert states[0][0] == ["C: bought new winter boots"]
    assert len(states[0][1]) == 1  # the edited entry is in the trash everywhere, with the later edit
    kept = states[0][1][0]
    other = ({"The first snow of the year, and the cat refused to go out", "The first snow; we built a tiny snowman"}
             - {kept}).pop()
    for m in (a, b, c):
        e = m.journal.in_trash()[0]["id"]
        assert other in {h["old_content"] for h in m.journal.history(e)}
