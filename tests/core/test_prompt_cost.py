"""What the write path's requests cost a small local model. On two cores a 0.5B model reads about 140
pieces of text a second and writes about 25 (memoir_desktop/eval/results/real-llm-qwen.txt): the
instructions must be read once, not for every entry, and the reply asks for nothing memoir has already.
"""

import json

from tests.fakes.fake_llm import tool

STAGES = ("save_facts", "memory_operations", "extract_entities", "extract_relations")


def test_every_write_stage_opens_with_the_same_instructions_on_different_days(mem, fake_llm):
    fake_llm.on("extract_entities", lambda req: tool({"entities": [{"name": "나", "type": "person"},
                                                                  {"name": "부산", "type": "place"}]}))
    fake_llm.on("extract_relations", lambda req: tool({"relations": [
        {"source": "나", "relation": "산다", "destination": "부산"}]}))
    mem.journal.write("서울에서 자랐다", timestamp="2026-11-01T21:00")  # a memory to compare the next with
    mem.jobs.process()
    mem.journal.write("부산에 산다", timestamp="2026-11-02T21:00")
    mem.jobs.process()
    mem.journal.write("요즘은 매일 아침 바다를 걷는다", timestamp="2026-11-29T08:00")
    mem.jobs.process()
    for stage in STAGES:
        first, second = fake_llm.calls(stage)[-2:]
        assert first["messages"][0] == second["messages"][0], stage
        assert "2026-11-29" not in second["messages"][0]["content"], stage
        # The date moved to the part that changes anyway: the model still knows it.
        assert "Today is 2026-11-29" in second["messages"][1]["content"], stage


def test_an_added_fact_is_not_written_out_again(mem, fake_llm):
    """ADD stores the fact as it is: the model is not asked to copy it into its reply."""
    mem.journal.write("음악을 좋아한다", timestamp="2026-11-28T21:00")  # a memory to compare the next with
    mem.jobs.process()
    fake_llm.on("save_facts", lambda req: tool({"facts": [{"text": "첼로를 배우기 시작했다", "category": "habits"}]}))
    fake_llm.on("memory_operations", lambda req: tool({"operations": [{"fact": 0, "event": "ADD"}]}))
    mem.journal.write("첼로를 배우기 시작했다", timestamp="2026-11-29T21:00")
    mem.jobs.process()
    assert "첼로를 배우기 시작했다" in [m["memory"] for m in mem.get_all()["results"]]
    req = fake_llm.calls("memory_operations")[-1]
    text = req["tools"][0]["function"]["parameters"]["properties"]["operations"]["items"]["properties"]["text"]
    assert "UPDATE only" in text["description"]
    shown = req["messages"][0]["content"].split("->", 1)[1]
    adds = [op for op in json.loads(shown.replace("{{", "{").replace("}}", "}"))["operations"] if op["event"] == "ADD"]
    assert adds and all("text" not in op for op in adds)


def test_long_recent_entries_are_context_within_a_budget(mem, fake_llm):
    """Ten pages of earlier entries are not read again with every new one: the newest that fit."""
    from memoir_desktop.core.pipeline.extraction import RECENT_CHARS

    for day in range(1, 7):
        page = f"{day}일의 긴 일기. " + "오늘도 회사 일이 많았고 저녁에는 산책을 했다. " * 25
        mem.journal.write(page + f"끝맺음 {day}", timestamp=f"2026-11-{day:02d}T21:00")
    mem.journal.write("내일 부산에 간다", timestamp="2026-11-11T21:00")
    mem.jobs.process()
    req = [r for r in fake_llm.calls("save_facts") if "부산에 간다" in r["messages"][1]["content"]][-1]
    user = req["messages"][1]["content"]
    recent = user.split("Recent messages:")[1].split("New exchange:")[0]
    assert len(recent) <= RECENT_CHARS + 100  # the roles and line breaks around the budget
    assert "끝맺음 6" in recent  # the entry just before is there, its end at least
    assert "끝맺음 1\n" not in recent and "1일의 긴 일기" not in recent


def test_the_reply_cap_follows_the_length_of_what_is_read(mem, fake_llm):
    """A one-line entry's facts need a few dozen words: a model that rambles stops there, not at the
    stage's cap (SmolLM2 wrote 1,536 pieces for one line and ran a 2,048-piece server out of room)."""
    from memoir_desktop.core.llm.purposes import purpose

    mem.journal.write("오늘 회사에서 새 프로젝트 발표를 했다.", timestamp="2026-11-29T21:00")
    mem.jobs.process()
    short = fake_llm.calls("save_facts")[-1]["max_tokens"]
    assert 200 < short <= 300
    mem.journal.write("긴 하루였다. " + "아침부터 회의가 이어졌고 점심은 거의 못 먹었다. " * 120, timestamp="2026-11-30T21:00")
    mem.jobs.process()
    assert fake_llm.calls("save_facts")[-1]["max_tokens"] == purpose("extraction").max_tokens


def test_a_fact_with_nothing_to_compare_with_is_added_unasked(mem, fake_llm):
    """A journal's first facts can only be added: the memory-sorting step is not asked about them
    (7 s of a first entry with Qwen2.5 0.5B on two cores)."""
    from memoir_desktop.core.pipeline.update import NOTHING_LIKE_IT

    mem.journal.write("첼로를 배우기 시작했다", timestamp="2026-11-28T21:00")
    mem.jobs.process()
    [first] = mem.get_all()["results"]
    assert not fake_llm.calls("memory_operations")
    assert first["memory"] == "첼로를 배우기 시작했다" and mem.history(first["id"])[0]["note"] == NOTHING_LIKE_IT
    mem.journal.write("첼로 레슨을 주 2회로 늘렸다", timestamp="2026-11-29T21:00")
    mem.jobs.process()
    assert len(fake_llm.calls("memory_operations")) == 1, "a fact with a memory like it is compared"
