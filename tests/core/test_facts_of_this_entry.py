"""A fact is the new entry's: what a small model copies from the messages before it or from the
prompt's own examples is not stored (seen with Qwen2.5 0.5B through llama.cpp; tests/tools/real_server_log.py).
No fact of the entry is lost: a copied wording is replaced by the fact it was meant to store."""

from __future__ import annotations

from datetime import datetime

from tests.fakes.fake_llm import new_facts, tool, user_lines

T = datetime(2026, 11, 20, 21)


def test_a_fact_of_the_entry_before_is_not_read_again_from_the_next_one(mem, fake_llm):
    first = "여동생 지민이가 다음 달에 부산으로 이사 간다고 한다."
    second = "매주 금요일 저녁에는 엄마랑 통화한다."

    def extract(req):
        lines = user_lines(req)
        if any("금요일" in line for line in lines):  # what the real model answered for the second entry
            return tool({"facts": ["여동생 지민이가 다음 달에 부산으로 이사 간다고 한다", "매주 금요일 저녁에 엄마랑 통화한다"]})
        return tool({"facts": lines})

    fake_llm.on("save_facts", extract)
    mem.journal.write(first, timestamp=T)
    mem.jobs.process()
    mem.journal.write(second, timestamp=T.replace(hour=22))
    mem.jobs.process()
    texts = [m["memory"] for m in mem.get_all()["results"]]
    assert sum("지민" in t for t in texts) == 1, texts
    assert any("금요일" in t for t in texts), texts


def test_an_add_in_the_words_of_the_prompts_example_stores_the_fact(mem, fake_llm):
    # The update step's example in the prompt adds "서울 마포구로 이사했다": the real model copied it.
    fake_llm.on("memory_operations", lambda req: tool({"operations": [
        {"fact": i, "event": "ADD", "text": "서울 마포구로 이사했다"} for i, _ in enumerate(new_facts(req))]}))
    mem.journal.write("Went to the gym after work.", timestamp=T)  # a first memory, so the update step runs
    fake_llm.on("save_facts", lambda req: tool({"facts": ["Went to the gym after work"]}))
    mem.jobs.process()
    fake_llm.on("save_facts", lambda req: tool({"facts": ["My brother Sam is getting married in June"]}))
    mem.journal.write("My brother Sam is getting married in June.", timestamp=T.replace(hour=22))
    mem.jobs.process()
    texts = [m["memory"] for m in mem.get_all()["results"]]
    assert "서울 마포구로 이사했다" not in texts, texts
    assert any("Sam is getting married" in t for t in texts), texts


def test_an_update_that_rewords_the_fact_and_the_memory_is_kept(mem, fake_llm):
    fake_llm.on("save_facts", lambda req: tool({"facts": user_lines(req)}))
    mem.journal.write("I like pizza", timestamp=T)
    mem.jobs.process()
    fake_llm.on("memory_operations", lambda req: tool({"operations": [
        {"fact": 0, "event": "UPDATE", "id": 0, "text": "I love cheese pizza"}]}))
    mem.journal.write("I love cheese pizza the most", timestamp=T.replace(hour=22))
    mem.jobs.process()
    assert [m["memory"] for m in mem.get_all()["results"]] == ["I love cheese pizza"]


def test_a_tiny_models_nonsense_is_not_stored(mem, fake_llm):
    """SmolLM2-135M through llama.cpp: "고마다" for an English entry, and an ADD whose text was "..."."""
    fake_llm.on("save_facts", lambda req: tool({"facts": ["고마다", "Allergic to peanuts"]}))
    mem.journal.write("Went to the gym after work.", timestamp=T)
    fake_llm.on("save_facts", lambda req: tool({"facts": ["Went to the gym after work"]}))
    mem.jobs.process()
    fake_llm.on("save_facts", lambda req: tool({"facts": ["고마다", "Allergic to peanuts"]}))
    fake_llm.on("memory_operations", lambda req: tool({"operations": [
        {"fact": i, "event": "ADD", "text": "..."} for i, _ in enumerate(new_facts(req))]}))
    mem.journal.write("I'm allergic to peanuts, so I skipped the satay at the party.", timestamp=T.replace(hour=22))
    mem.jobs.process()
    assert sorted(m["memory"] for m in mem.get_all()["results"]) == ["Allergic to peanuts", "Went to the gym after work"]


def test_a_reply_of_only_earlier_facts_is_asked_again_with_the_entry_alone(mem, fake_llm):
    """What Qwen2.5 0.5B did for "요즘 무릎이 아파서 러닝 대신 수영을 시작했다": it gave back the entry before."""
    first = "여동생 지민이가 다음 달에 부산으로 이사 간다고 한다."

    def extract(req):
        lines = user_lines(req)
        if any("무릎" in line for line in lines):
            if "(left out)" in str(req["messages"]):  # asked again without the messages before it
                return tool({"facts": ["무릎이 아파서 러닝 대신 수영을 시작했다"]})
            return tool({"facts": [first]})
        return tool({"facts": lines})

    fake_llm.on("save_facts", extract)
    mem.journal.write(first, timestamp=T)
    mem.jobs.process()
    mem.journal.write("요즘 무릎이 아파서 러닝 대신 수영을 시작했다.", timestamp=T.replace(hour=22))
    mem.jobs.process()
    texts = [m["memory"] for m in mem.get_all()["results"]]
    assert any("수영을 시작했다" in t for t in texts), texts
    assert sum("지민" in t for t in texts) == 1, texts


def test_a_short_piece_of_the_prompts_example_is_not_stored(mem, fake_llm):
    """SmolLM2-135M answered "매주 금요일" (from the prompt's example) for an entry about a talk at work."""
    entry = "오늘 회사에서 새 프로젝트 발표를 했다."
    fake_llm.on("save_facts", lambda req: tool({"facts": ["매주 금요일", "회사에서 새 프로젝트 발표를 했다"]}))
    mem.journal.write(entry, timestamp=T)
    mem.jobs.process()
    texts = [m["memory"] for m in mem.get_all()["results"]]
    assert not any("금요일" in t for t in texts), texts
    assert any("발표" in t for t in texts), texts


def test_a_one_word_fact_that_earlier_messages_explain_is_kept(mem, fake_llm):
    """The context is there to resolve "거기": a fact named from an earlier message is the entry's."""
    fake_llm.on("save_facts", lambda req: tool({"facts": list(user_lines(req))}))
    mem.journal.write("다음 주에 제주도 여행을 간다.", timestamp=T)
    mem.jobs.process()
    fake_llm.on("save_facts", lambda req: tool({"facts": ["제주도"]}))
    mem.journal.write("거기 너무 기대된다!", timestamp=T.replace(hour=22))
    mem.jobs.process()
    texts = [m["memory"] for m in mem.get_all()["results"]]
    assert "제주도" in texts, texts


def test_todays_date_line_given_back_is_not_a_fact(mem, fake_llm):
    """The date opens the user message; SmolLM2-135M answered it back: "2026-11-28 (Saturday)"."""
    fake_llm.on("save_facts", lambda req: tool({"facts": ["2026-11-28 (Saturday)", "Went to the gym after work"]}))
    mem.journal.write("Went to the gym after work.", timestamp=datetime(2026, 11, 28, 21))
    mem.jobs.process()
    assert [m["memory"] for m in mem.get_all()["results"]] == ["Went to the gym after work"]
