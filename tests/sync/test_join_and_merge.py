"""Two and three computers of one diarist, each with its own journal, synced through a folder, a
WebDAV server and S3 on this machine."""



def texts(mem) -> list[str]:
    return sorted(e["content"] for e in mem.entries())


def memory_texts(mem) -> list[str]:
    return sorted(m["memory"] for m in mem.get_all()["results"])


def test_a_new_computer_joins_with_the_passphrase_and_finds_what_was_written(devices_on):
    laptop = devices_on.first()
    eid = laptop.journal("Walked to the lighthouse with Mina; the fog lifted at noon")
    laptop.add("Mina is my younger sister", infer=False, entry_id=eid)
    laptop.sync(devices_on.place.url)
    desk = devices_on.join("desk")
    assert texts(desk) == ["Walked to the lighthouse with Mina; the fog lifted at noon"]
    assert memory_texts(desk) == ["Mina is my younger sister"]
    # Derived locally: the synced memory and entry are found by search on the new computer.
    assert [m["memory"] for m in desk.search("who is my sister?")["results"]][:1] == ["Mina is my younger sister"]
    assert [e["content"] for e in desk.search_entries("lighthouse")] == [texts(desk)[0]]
    # Its memory came with it: nothing to memorise here (the LLM is paid once, on the laptop).
    assert desk.jobs() == []
    assert desk.get_all()["results"][0]["source_entry_id"] == desk.entries()[0]["id"]


def test_entries_written_on_each_side_both_appear(devices_on):
    laptop = devices_on.first()
    laptop.journal("Laptop: planted tomatoes on the balcony")
    laptop.sync(devices_on.place.url)
    desk = devices_on.join("desk")
    desk.journal("Desk: finished the quarterly report")
    laptop.journal("Laptop: called grandmother in the evening")
    desk.sync()
    laptop.sync()
    desk.sync()
    want = ["Desk: finished the quarterly report", "Laptop: called grandmother in the evening",
            "Laptop: planted tomatoes on the balcony"]
    assert texts(laptop) == want and texts(desk) == want
    assert len({e["id"] for e in desk.entries()}) == 3


def test_an_entry_edited_on_two_computers_keeps_both_versions_and_says_so_once(devices_on):
    laptop = devices_on.first()
    eid = laptop.journal("Dinner with Jae at the noodle place")
    laptop.sync(devices_on.place.url)
    desk = devices_on.join("desk")
    did = desk.entries()[0]["id"]
    laptop.edit_entry(eid, "Dinner with Jae at the noodle place; we talked about moving to Busan")
    desk.edit_entry(did, "Dinner with Jae, then a long walk by the river")
    first = laptop.sync()
    second = desk.sync()
    third = laptop.sync()
    # The later edit is the entry's text on both computers; the other is in the entry's history.
    assert texts(laptop) == texts(desk) == ["Dinner with Jae, then a long walk by the river"]
    for mem, e in ((laptop, eid), (desk, did)):
        olds = {h["old_content"] for h in mem.entry_history(e)} | {h["new_content"] for h in mem.entry_history(e)}
        assert "Dinner with Jae at the noodle place; we talked about moving to Busan" in olds
        assert [h["event"] for h in mem.entry_history(e)].count("CONFLICT") == 1
    # Told once on each computer: in the round that met the other edit, then as a notice until seen.
    assert first.conflicts == [] and len(second.conflicts) == 1 and len(third.conflicts) == 1
    [notice] = desk.sync_status().notices
    assert notice.entry_id == did and "two computers" in notice.message
    desk.dismiss_sync_notice(notice.id)
    assert desk.sync_status().notices == []
    assert desk.sync().conflicts == [] and laptop.sync().conflicts == []
    assert desk.sync_status().notices == [] and len(laptop.sync_status().notices) == 1
    assert desk.sync_status().last_sync is not None


def test_three_computers_converge_on_one_journal(devices):
    a = devices.first("a")
    eid = a.journal("The first snow of the year")
    a.sync(devices.place.url)
    b, c = devices.join("b"), devices.join("c")
    b_id, c_id = b.entries()[0]["id"], c.entries()[0]["id"]
    a.edit_entry(eid, "The first snow of the year, and the cat refused to go out")
    b.edit_entry(b_id, "The first snow; we built a tiny snowman")
    c.journal("C: bought new winter boots")
    c.delete_entry(c_id)
    for mem in (a, b, c, a, b, c):
        mem.sync()
    states = [(texts(m), sorted(e["content"] for e in m.trash())) for m in (a, b, c)]
    assert states[0] == states[1] == states[2]
    assert states[0][0] == ["C: bought new winter boots"]
    assert len(states[0][1]) == 1  # the edited entry is in the trash everywhere, with the later edit
    kept = states[0][1][0]
    other = ({"The first snow of the year, and the cat refused to go out", "The first snow; we built a tiny snowman"}
             - {kept}).pop()
    for m in (a, b, c):
        e = m.trash()[0]["id"]
        assert other in {h["old_content"] for h in m.entry_history(e)}
