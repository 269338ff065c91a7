"""Time-aware recall: the time expression in a query picks memories of that time."""

from datetime import datetime

NOW = datetime(2026, 11, 29, 20, 0)


def test_same_text_at_two_times_query_picks_right_one(mem):
    old = mem.add("회사 일이 너무 많아서 이직을 고민했다", infer=False, timestamp="2025-11-20T21:00")["results"][0]
    new = mem.add("회사 일이 너무 많아서 이직을 고민했다", infer=False, timestamp="2026-11-20T21:00")["results"][0]
    mem.add(["주말에 등산을 했다", "고양이 사료를 바꿨다"], infer=False, timestamp="2026-11-27")
    top = mem.search("작년 이맘때 나 무슨 고민 했었지?", limit=3, now=NOW)["results"]
    assert top[0]["id"] == old["id"]
    assert "time" in top[0]["explain"]
    top = mem.search("요즘 무슨 고민 했었지?", limit=3, now=NOW)["results"]
    assert top[0]["id"] == new["id"]


def test_last_month_query_does_not_put_this_week_first(mem):
    mem.add(["친구들과 캠핑을 갔다", "보고서를 마감했다"], infer=False, timestamp="2026-10-12")
    mem.add(["새 운동화를 샀다", "친구들과 영화를 봤다"], infer=False, timestamp="2026-11-26")
    top = mem.search("지난달에 뭐 했지?", limit=4, now=NOW)["results"]
    assert {r["memory"] for r in top[:2]} == {"친구들과 캠핑을 갔다", "보고서를 마감했다"}


def test_fact_about_span_counts_even_if_recorded_later(mem):
    # Recorded today, but about a day in March: a March query must find it.
    mem.add("2026-03-14에 제주도로 여행을 갔다", infer=False, timestamp="2026-11-28")
    mem.add(["점심으로 국수를 먹었다", "운동을 쉬었다"], infer=False, timestamp="2026-11-28")
    top = mem.search("올해 3월에 어디 갔었지?", limit=1, now=NOW)["results"]
    assert top[0]["memory"].startswith("2026-03-14") and top[0]["about"] == ["2026-03-14", "2026-03-14"]


def test_extraction_prompt_carries_absolute_dates(mem, fake_llm):
    mem.journal.write("지지난주 금요일에 이사했어", timestamp="2026-11-29T21:00")
    mem.jobs.process()
    prompt = fake_llm.calls("save_facts")[-1]["messages"][-1]["content"]
    assert "지지난주 금요일 (2026-11-13)" in prompt
    fact = mem.get_all()["results"][0]
    assert fact["about"] == ["2026-11-13", "2026-11-13"]


def test_answer_prompt_lists_memories_with_dates_and_today(mem, fake_llm):
    mem.add("작년 겨울에 스키를 배웠다", infer=False, timestamp="2025-12-20")
    mem.companion.chat("내가 뭘 배웠더라?", timestamp=NOW)
    system = fake_llm.calls()[-1]["messages"][0]["content"]
    assert "Today is 2026-11-29" in system
    assert "[2025-12-20" in system and "스키" in system
