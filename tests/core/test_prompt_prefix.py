"""A local server reads a prompt's unchanged beginning once (llama.cpp, LM Studio and Ollama keep it):
the write path's instructions must not change from entry to entry, so only the entry is read again.
On two cores a 0.5B model reads about 140 pieces of text a second, and the instructions are most of
every prompt (memoir_desktop/eval/results/real-llm-qwen.txt)."""

from tests.fakes.fake_llm import tool

STAGES = ("save_facts", "memory_operations", "extract_entities", "extract_relations")


def test_every_write_stage_opens_with_the_same_instructions_on_different_days(mem, fake_llm):
    fake_llm.on("extract_entities", lambda req: tool({"entities": [{"name": "나", "type": "person"},
                                                                  {"name": "부산", "type": "place"}]}))
    fake_llm.on("extract_relations", lambda req: tool({"relations": [
        {"source": "나", "relation": "산다", "destination": "부산"}]}))
    mem.journal.write("부산에 산다", timestamp="2026-11-02T21:00")
    mem.jobs.process()
    mem.journal.write("요즘은 매일 아침 바다를 걷는다", timestamp="2026-11-29T08:00")
    mem.jobs.process()
    for stage in STAGES:
        first, second = fake_llm.calls(stage)[:2]
        assert first["messages"][0] == second["messages"][0], stage
        assert "2026-11-29" not in second["messages"][0]["content"], stage
        # The date moved to the part that changes anyway: the model still knows it.
        assert "Today is 2026-11-29" in second["messages"][1]["content"], stage
