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
    assert mem.memories.tidy_proposals() == []  # typed by the user: left out unless the user asks
    [p] = mem.memories.tidy_proposals(include_user_edited=True)
    assert sorted(m.id for m in p.members) == sorted(ids[:2])
    assert p.merged_text == "i drink coffee every morning!" and p.why == "same words"
    res = mem.memories.apply_tidy(p)
    assert res.refused is None and res.merged_id in res.changes.memories
    assert _active(mem) == ["My sister lives in Busan", "i drink coffee every morning!"]
    assert all(mem.get(i)["state"] == "invalid" for i in ids[:2])
    assert res.merged_id in mem.history(ids[0])[-1]["note"]
    assert sorted(mem.memories.undo_consolidation(res.merged_id).ids) == sorted(ids[:2])
    assert _active(mem) == sorted([*DUPES, "My sister lives in Busan"])


def test_a_memory_edited_after_the_proposal_refuses_the_merge(mem):
    mem.settings.consolidation_threshold = 0.9
    ids = _add(mem, DUPES)
    [p] = mem.memories.tidy_proposals(include_user_edited=True)
    mem.update(ids[0], "I drink coffee every morning at 7")
    res = mem.memories.apply_tidy(p)
    assert res.merged_id is None and "edited" in (res.refused or "") and not res.changes
    assert _active(mem) == sorted(["I drink coffee every morning at 7", DUPES[1]])


def test_similar_but_different_memories_need_the_llm_to_write_the_merge(mem, fake_llm):
    mem.settings.consolidation_threshold = 0.5
    _add(mem, ["I drink coffee every morning", "I drink coffee with oat milk", "I drink coffee at 7 am"])
    fake_llm.on("consolidate_memories", lambda req: tool(
        {"merge": True, "text": "I drink coffee with oat milk every morning at 7 am"}))
    [p] = mem.memories.tidy_proposals(include_user_edited=True)
    assert p.why == "similar" and p.merged_text == "I drink coffee with oat milk every morning at 7 am"
    mem.llm.client.configured = False  # without an LLM only duplicates are offered
    assert mem.memories.tidy_proposals(include_user_edited=True) == []


def test_without_an_ai_a_short_memory_inside_a_longer_different_one_is_not_a_duplicate():
    from memoir_desktop.core.pipeline.tidy import near_exact

    assert near_exact(["I drink coffee every morning", "i drink coffee every morning!"])
    assert near_exact(["고양이 모카를 키운다", "고양이 모카를 키운다."])
    assert not near_exact(["I like coffee", "I like coffee less and less now"])
    assert not near_exact(["지수는 부산에 산다", "지수는 부산에 산다고 했지만 서울로 이사했다"])


def test_a_memory_only_a_private_entry_supports_is_never_offered_for_a_merge(mem):
    mem.settings.consolidation_threshold = 0.9
    texts = ["I drink coffee every morning", "So I drink coffee every morning"]
    mem.journal.write(texts[0])
    later = mem.journal.write(texts[1])
    mem.jobs.process()
    assert _active(mem) == sorted(texts)
    assert len(mem.memories.tidy_proposals()) == 1  # made by the AI from two entries: offered
    mem.journal.set_private(later, True)
    assert mem.memories.tidy_proposals() == []  # its memory went with the entry into privacy
    # "Remember this" on a sentence of a private entry: the user's own memory, active, private-only.
    secret = mem.journal.write("So I drink coffee every morning, alone", private=True)
    mem.add("So I drink coffee every morning", infer=False, entry_id=secret)
    assert "So I drink coffee every morning" in _active(mem)
    assert mem.memories.tidy_proposals(include_user_edited=True) == []  # merging would lose its private source
