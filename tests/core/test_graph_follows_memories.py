"""An entry's memories do not wait for its people and places: the graph's reading is a job that follows."""

from tests.core.test_journal_entries import T1, graph_says, lives_in
from tests.fakes.fake_llm import raw


def test_the_memories_are_stored_before_the_graph_is_read(mem, fake_llm):
    graph_says(fake_llm)
    mem.journal.write("나는 부산에 산다", timestamp=T1)
    [memorized] = mem.jobs.process(limit=1)
    assert memorized["kind"] == "memorize" and memorized["state"] == "done"
    assert [m["memory"] for m in mem.get_all()["results"]] == ["나는 부산에 산다"]
    assert fake_llm.calls("extract_entities") == [] and lives_in(mem) == []  # not read yet
    [read] = mem.jobs.process()
    assert read["kind"] == "graph" and read["result"]["after_job"] == memorized["id"]
    assert lives_in(mem) == ["나 산다 부산"]


def test_a_new_entrys_memories_come_before_an_older_entrys_graph(mem, fake_llm):
    graph_says(fake_llm)
    mem.journal.write("나는 부산에 산다", timestamp=T1)
    mem.journal.write("나는 서울에 산다")
    order = [(r["kind"], r["state"]) for r in mem.jobs.process()]
    assert order == [("memorize", "done"), ("memorize", "done"), ("graph", "done"), ("graph", "done")]


def test_an_unreadable_graph_reply_leaves_the_memories_and_says_so(mem, fake_llm):
    fake_llm.on("extract_entities", lambda req: raw("I cannot help with that"))
    mem.journal.write("나는 부산에 산다", timestamp=T1)
    memorized, read = mem.jobs.process()
    assert memorized["state"] == "done" and [m["memory"] for m in mem.get_all()["results"]] == ["나는 부산에 산다"]
    assert read["state"] == "done" and read["result"]["graph_error"] and read["result"]["relations"] == []


def test_an_entry_trashed_before_its_graph_is_read_adds_nothing_to_the_graph(mem, fake_llm):
    graph_says(fake_llm)
    eid = mem.journal.write("나는 부산에 산다", timestamp=T1)
    mem.jobs.process(limit=1)
    mem.journal.trash(eid)
    [read] = mem.jobs.process()
    assert read["kind"] == "graph" and read["result"]["relations"] == []
    assert fake_llm.calls("extract_entities") == []
    mem.journal.restore(eid)
    assert lives_in(mem) == []


def test_mem0s_add_still_answers_with_the_relations(mem, fake_llm):
    graph_says(fake_llm)
    out = mem.add("나는 부산에 산다")
    assert [r["memory"] for r in out["results"]] == ["나는 부산에 산다"]
    assert any(r["event"] == "EDGE_ADD" and "부산" in r["text"] for r in out["relations"])
    assert mem.jobs.all("pending") == []


def test_turning_the_graph_off_queues_no_reading(mem, fake_llm):
    mem.settings.graph_enabled = False
    mem.journal.write("나는 부산에 산다", timestamp=T1)
    assert [r["kind"] for r in mem.jobs.process()] == ["memorize"]


def test_a_reading_skipped_because_the_graph_was_turned_off_leaves_the_entry_to_the_mention_graph(mem, fake_llm):
    mem.journal.write("지수랑 부산 해운대에 다녀왔다", timestamp=T1)
    mem.jobs.process(limit=1)
    mem.settings.graph_enabled = False  # while the graph's reading waited
    [read] = mem.jobs.process()
    assert read["kind"] == "graph" and read["result"]["skipped"] and fake_llm.calls("extract_entities") == []
    assert "지수" in {n.name for n in mem.graph.mentions("me").nodes}  # the journal's own graph still names her


def test_an_entry_written_while_an_older_ones_graph_waits_has_its_memories_first(mem, fake_llm):
    graph_says(fake_llm)
    mem.journal.write("나는 부산에 산다", timestamp=T1)
    [first] = mem.jobs.process(limit=1)
    mem.journal.write("나는 서울에 산다")
    order = [(r["kind"], r.get("result", {}).get("after_job")) for r in mem.jobs.process()]
    assert [k for k, _ in order] == ["memorize", "graph", "graph"] and order[1][1] == first["id"]
