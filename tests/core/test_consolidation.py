"""Consolidation merges a topic's memories into one, reversibly, never silently on user edits."""

from tests.fakes.fake_llm import tool


def _three_coffee_memories(mem):
    return [r["id"] for r in mem.add(["I drink coffee every morning", "I drink coffee with oat milk",
                                      "I drink coffee at 7 am"], infer=False)["results"]]


def test_merge_is_shorter_keeps_numbers_and_can_be_undone(mem, fake_llm):
    mem.settings.consolidation_threshold = 0.5  # the test's three sentences are clearly one topic
    ids = [r["id"] for r in mem.add(["I drink coffee every morning", "I drink coffee with oat milk",
                                     "I drink coffee at 7 am"], infer=True)["results"]]
    fake_llm.on("consolidate_memories", lambda req: tool(
        {"merge": True, "text": "I drink coffee with oat milk every morning at 7 am"}))
    mem.memories.consolidate()
    res = mem.jobs.process()[-1]
    assert res["kind"] == "consolidate" and len(res["result"]["merged"]) == 1
    merged = res["result"]["merged"][0]["merged"]
    assert sorted(res["result"]["merged"][0]["originals"]) == sorted(ids)
    assert [m["memory"] for m in mem.get_all()["results"]] == [merged["memory"]]
    for i in ids:
        h = mem.history(i)[-1]
        assert h["event"] == "DELETE" and merged["id"] in h["note"] and h["actor"] == "system"
    restored = mem.memories.undo_consolidation(merged["id"]).ids
    assert sorted(restored) == sorted(ids)
    assert sorted(m["id"] for m in mem.get_all()["results"]) == sorted(ids)
    assert mem.get(merged["id"])["state"] == "invalid"


def test_merge_refused_when_it_drops_a_number_or_is_longer(mem, fake_llm):
    mem.settings.consolidation_threshold = 0.5
    mem.add(["I drink coffee every morning", "I drink coffee with oat milk", "I drink coffee at 7 am"])
    fake_llm.on("consolidate_memories", lambda req: tool({"merge": True, "text": "I drink coffee daily"}))
    mem.memories.consolidate()
    assert mem.jobs.process()[-1]["result"]["merged"] == []
    fake_llm.on("consolidate_memories", lambda req: tool(
        {"merge": True, "text": "I drink coffee every morning, with oat milk, at 7 am, and I really like it a lot "
                                "every single day of the week without exception at all"}))
    mem.memories.consolidate()
    assert mem.jobs.process()[-1]["result"]["merged"] == []
    assert len(mem.get_all()["results"]) == 3


def test_user_edited_memories_are_left_out_unless_agreed(mem, fake_llm):
    mem.settings.consolidation_threshold = 0.5
    ids = _three_coffee_memories(mem)  # typed by the user (infer=False): protected
    fake_llm.on("consolidate_memories", lambda req: tool(
        {"merge": True, "text": "I drink coffee with oat milk every morning at 7 am"}))
    mem.memories.consolidate()
    result = mem.jobs.process()[-1]["result"]
    assert result["groups"] == 0 and result["merged"] == [] and result["changes"]["memories"] == []
    assert len(fake_llm.calls("consolidate_memories")) == 0
    mem.memories.consolidate(include_user_edited=True)
    assert len(mem.jobs.process()[-1]["result"]["merged"]) == 1
    assert all(mem.get(i)["state"] == "invalid" for i in ids)
