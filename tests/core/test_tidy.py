"""Tidying: proposed merges of near-duplicate memories, applied one by one, undoable, refused when stale."""

from tests.fakes.fake_llm import tool

DUPES = ["I drink coffee every morning", "i drink coffee every morning!"]


def _add(mem, texts):
    return [r["id"] for r in mem.add(texts, infer=False)["results"]]


def _active(mem):
    return sorted(m["memory"] for m in mem.get_all()["results"])


def test_duplicates_are_proposed_then_merged_and_undone(mem):
    mem.settings.consolidation_threshold = 0.9
    ids = _add(mem, [*DUPES, "My sister lives in Busan"])
    assert mem.tidy_proposals() == []  # typed by the user: left out unless the user asks
    [p] = mem.tidy_proposals(include_user_edited=True)
    assert sorted(m.id for m in p.members) == sorted(ids[:2])
    assert p.merged_text == "i drink coffee every morning!" and p.why == "same words"
    res = mem.apply_tidy(p)
    assert res.refused is None and res.merged_id in res.changes.memories
    assert _active(mem) == ["My sister lives in Busan", "i drink coffee every morning!"]
    assert all(mem.get(i)["state"] == "invalid" for i in ids[:2])
    assert res.merged_id in mem.history(ids[0])[-1]["note"]
    assert sorted(mem.undo_consolidation(res.merged_id)) == sorted(ids[:2])
    assert _active(mem) == sorted([*DUPES, "My sister lives in Busan"])


def test_a_memory_edited_after_the_proposal_refuses_the_merge(mem):
    mem.settings.consolidation_threshold = 0.9
    ids = _add(mem, DUPES)
    [p] = mem.tidy_proposals(include_user_edited=True)
    mem.update(ids[0], "I drink coffee every morning at 7")
    res = mem.apply_tidy(p)
    assert res.merged_id is None and "edited" in (res.refused or "") and not res.changes
    assert _active(mem) == sorted(["I drink coffee every morning at 7", DUPES[1]])


def test_similar_but_different_memories_need_the_llm_to_write_the_merge(mem, fake_llm):
    mem.settings.consolidation_threshold = 0.5
    _add(mem, ["I drink coffee every morning", "I drink coffee with oat milk", "I drink coffee at 7 am"])
    fake_llm.on("consolidate_memories", lambda req: tool(
        {"merge": True, "text": "I drink coffee with oat milk every morning at 7 am"}))
    [p] = mem.tidy_proposals(include_user_edited=True)
    assert p.why == "similar" and p.merged_text == "I drink coffee with oat milk every morning at 7 am"
    mem.llm.client.configured = False  # without an LLM only duplicates are offered
    assert mem.tidy_proposals(include_user_edited=True) == []
