"""Reflection: On This Day, follow-ups on plans, weekly / monthly letters, the profile and the
categories the user switched off. Time travel by passing fixed dates, never today's."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from memoir_desktop.core.pipeline.categories import categorize
from memoir_desktop.core.reflection import mostly_language
from memoir_desktop.core.reflection.letters import Period, month_of, week_of
from memoir_desktop.core.reflection.on_this_day import looking_back
from tests.fakes.fake_llm import existing, new_facts, tool, user_lines

PLAN = "지수는 3월 10일에 부산으로 이사 간다"


@pytest.fixture
def offline(tmp_path):
    """A Memoir with no LLM connected."""
    from memoir_desktop.core import Memoir

    m = Memoir.open(tmp_path / "offline")
    assert not m.connection.configured
    yield m
    m.close()


def _plan(mem) -> str:
    mid = mem.add(PLAN, infer=False, timestamp=datetime(2026, 3, 1, 21, 0))["results"][0]["id"]
    assert mem.get(mid)["about"] == ["2026-03-10", "2026-03-10"]
    return mid


# -- follow-ups -----------------------------------------------------------------------------

def test_a_plan_becomes_a_follow_up_the_day_after_its_date_not_before(offline):
    mid = _plan(offline)
    assert offline.reflection.followups(now=datetime(2026, 3, 5, 9, 0)) == []
    assert offline.reflection.followups(now=datetime(2026, 3, 10, 23, 0)) == []
    due = offline.reflection.followups(now=datetime(2026, 3, 11, 8, 0))
    assert [f["memory_id"] for f in due] == [mid]
    assert due[0]["question"] == "지수는 3월 10일에 부산으로 이사 간다고 했었죠. 어떻게 됐나요?"
    assert not due[0]["phrased"]


def test_a_plan_written_on_its_own_day_or_a_habit_is_no_follow_up(offline):
    offline.add("오늘 3월 10일에 부산에 갔다", infer=False, timestamp=datetime(2026, 3, 10, 21, 0))
    offline.add("매주 금요일에 요가를 한다", infer=False, timestamp=datetime(2026, 3, 1, 21, 0))
    assert offline.reflection.followups(now=datetime(2026, 3, 20)) == []


def test_the_offline_question_reads_as_korean_speech():
    from memoir_desktop.core.reflection.followups import offline_question
    from memoir_desktop.core.storage.models import Memory

    def ask(text):
        return offline_question(Memory(id="x", user_id="me", text=text, hash="", created_at=datetime(2026, 3, 1)))

    assert ask("4월에 제주 여행이다") == "4월에 제주 여행이라고 했었죠. 어떻게 됐나요?"
    assert ask("4월 2일 제주 여행") == "3월 1일에 “4월 2일 제주 여행”라고 적어 두셨죠. 어떻게 됐나요?"


def test_an_english_plan_is_asked_in_english(offline):
    offline.add("Mina moves to Busan on March 10, 2026", infer=False, timestamp=datetime(2026, 3, 1, 9, 0))
    [f] = offline.reflection.followups(now=datetime(2026, 3, 11))
    assert f["question"] == "On March 1 you wrote: “Mina moves to Busan on March 10, 2026”. How did it go?"


def test_dismissed_and_answered_follow_ups_are_not_asked_again(offline):
    mid = _plan(offline)
    offline.reflection.dismiss_followup(mid)
    assert offline.reflection.followups(now=datetime(2026, 3, 11)) == []
    other = offline.add("4월 2일에 제주 여행을 간다", infer=False,
                        timestamp=datetime(2026, 3, 1, 21, 0))["results"][0]["id"]
    assert [f["memory_id"] for f in offline.reflection.followups(now=datetime(2026, 4, 3))] == [other]
    assert offline.reflection.answer_followup(other, None).state == "answered"
    assert offline.reflection.followups(now=datetime(2026, 4, 3)) == []


def test_an_entry_about_the_plan_after_its_date_answers_it(offline):
    _plan(offline)
    offline.journal.write("오늘은 회사에서 야근했다", timestamp=datetime(2026, 3, 11, 20, 0))
    assert len(offline.reflection.followups(now=datetime(2026, 3, 12))) == 1
    eid = offline.journal.write("지수가 부산 새 집으로 이사를 마쳤다", timestamp=datetime(2026, 3, 12, 20, 0))
    assert offline.reflection.followups(now=datetime(2026, 3, 13)) == []
    from sqlmodel import Session, select

    from memoir_desktop.core.storage.models import FollowUp
    with Session(offline.engine) as s:
        [row] = s.exec(select(FollowUp)).all()
    assert (row.state, row.entry_id) == ("answered", eid)


def test_the_llm_phrases_a_follow_up_once(mem, fake_llm):
    fake_llm.on_text(lambda req: "지수 씨 부산 이사는 잘 마쳤나요?" if "gentle question" in req["messages"][0]["content"]
                     else "응")
    _plan(mem)
    [f] = mem.reflection.followups(now=datetime(2026, 3, 11))
    assert (f["question"], f["phrased"]) == ("지수 씨 부산 이사는 잘 마쳤나요?", True)
    asked = [r for r in fake_llm.calls() if "gentle question" in r["messages"][0]["content"]]
    assert PLAN in asked[0]["messages"][1]["content"]
    mem.reflection.followups(now=datetime(2026, 3, 12))
    assert len([r for r in fake_llm.calls() if "gentle question" in r["messages"][0]["content"]]) == 1


def test_the_companion_is_told_of_due_plans(mem, fake_llm):
    _plan(mem)
    mem.companion.chat("오늘 좀 피곤하다", timestamp=datetime(2026, 3, 9, 21, 0))
    before = fake_llm.calls()[-1]["messages"][0]["content"]
    out = mem.companion.chat("오늘 좀 피곤하다", timestamp=datetime(2026, 3, 11, 21, 0))
    after = [r for r in fake_llm.calls() if r["messages"][0]["content"].startswith(before[:30])][-1]
    assert "date has now passed" not in before
    system = after["messages"][0]["content"]
    assert "date has now passed" in system and PLAN in system
    assert out["followups"]


# -- On This Day ----------------------------------------------------------------------------

def test_looking_back_leaves_out_dates_a_year_does_not_have():
    assert looking_back(date(2026, 3, 31), max_years=1) == [(0, 1, date(2025, 3, 31))]  # no 31 February
    assert looking_back(date(2028, 2, 29), max_years=4) == [(1, 0, date(2028, 1, 29)), (0, 4, date(2024, 2, 29))]


def test_on_this_day_brings_back_a_month_and_years_ago(offline):
    a = offline.journal.write("작년 오늘은 눈이 왔다", timestamp=datetime(2025, 3, 11, 9, 0))
    b = offline.journal.write("한 달 전 오늘 새 회사에 출근했다", timestamp=datetime(2026, 2, 11, 9, 0))
    c = offline.journal.write("2년 전 오늘 제주에 갔다", timestamp=datetime(2024, 3, 11, 9, 0))
    offline.journal.write("다른 날", timestamp=datetime(2025, 3, 12, 9, 0))
    offline.journal.write("companion", timestamp=datetime(2025, 3, 11, 9, 1), role="assistant")
    mid = offline.add("2025년 3월 11일에 눈사람을 만들었다", infer=False,
                      timestamp=datetime(2025, 3, 20))["results"][0]["id"]
    found = offline.reflection.on_this_day(date(2026, 3, 11))
    assert [(g["months_ago"], g["years_ago"], g["date"]) for g in found] == [
        (1, 0, "2026-02-11"), (0, 1, "2025-03-11"), (0, 2, "2024-03-11")]
    assert [[e["id"] for e in g["entries"]] for g in found] == [[b], [a], [c]]
    assert [m["id"] for m in found[1]["memories"]] == [mid]
    assert offline.reflection.on_this_day(date(2026, 3, 13)) == []


# -- letters --------------------------------------------------------------------------------

WEEK = [(2, "지수랑 한강에서 자전거를 탔다. 날씨가 좋았다"), (3, "회사 프로젝트 회의가 길었다"),
        (4, "지수랑 저녁을 먹었다. 지수가 이사 간다고 했다"), (6, "혼자 한강을 걸었다"), (8, "프로젝트 마감이 다가온다")]


def _write_week(m):
    return [m.journal.write(text, timestamp=datetime(2026, 3, d, 21, 0)) for d, text in WEEK]


def test_periods():
    assert week_of(date(2026, 3, 11)) == Period("week", date(2026, 3, 9), date(2026, 3, 15))
    assert month_of(date(2026, 2, 11)) == Period("month", date(2026, 2, 1), date(2026, 2, 28))
    assert Period.from_key(week_of(date(2026, 3, 11)).key) == week_of(date(2026, 3, 11))


def test_a_week_of_entries_gives_a_digest_letter_without_an_llm(offline):
    _write_week(offline)
    assert offline.reflection.make_letters(now=datetime(2026, 3, 8, 22, 0)) == []  # the week has not ended
    jobs = len(offline.jobs.all())
    [letter] = offline.reflection.make_letters(now=datetime(2026, 3, 9, 8, 0))
    assert (letter["kind"], letter["role"], letter["created_at"]) == ("letter", "assistant", "2026-03-08T23:59:59")
    text = letter["content"]
    assert text.startswith("**3월 2일 – 3월 8일, 한 주의 편지**")
    assert "5일 동안 5편을 썼어요" in text
    themes = text.split("자주 나온 이야기: ")[1].split("\n")[0].split(", ")
    assert {"지수", "한강", "프로젝트"} <= set(themes[:4])
    assert len(offline.jobs.all()) == jobs  # never memorised
    assert offline.reflection.make_letters(now=datetime(2026, 3, 10)) == []  # made once
    assert [e["id"] for e in offline.search_field.search_entries("편지")] == [letter["id"]]  # searchable
    assert [x["id"] for x in offline.reflection.letters()] == [letter["id"]]


def test_an_english_week_gets_an_english_digest(offline):
    for d, text in [(2, "Rode bikes with Mina along the river"), (4, "Dinner with Mina, she is moving")]:
        offline.journal.write(text, timestamp=datetime(2026, 3, d, 21, 0))
    [letter] = offline.reflection.make_letters(now=datetime(2026, 3, 9))
    assert letter["content"].startswith("**A letter for the week of March 2 – March 8**")
    assert "you wrote 2 entries on 2 days" in letter["content"] and "mina" in letter["content"]


def test_a_month_with_entries_gets_its_letter_at_the_first_start_after_it(offline):
    offline.journal.write("2월의 마지막 날", timestamp=datetime(2026, 2, 28, 21, 0))
    made = offline.reflection.make_letters(now=datetime(2026, 3, 4, 9, 0))
    assert sorted(e["source_ref"] for e in made) == ["letter:month:2026-02-01", "letter:week:2026-02-23"]


def _moving_week(mem, fake_llm):
    mem.journal.write("부산에 산다", timestamp=datetime(2026, 2, 20, 21, 0))
    mem.jobs.process()

    def ops(req):
        facts, known = new_facts(req), existing(req)
        out = []
        for i, f in enumerate(facts):
            old = next((k for k, t in known.items() if "부산" in t), None) if "서울" in f else None
            if old is not None:
                out.append({"fact": i, "event": "DELETE", "id": old})
            out.append({"fact": i, "event": "ADD", "text": f})
        return tool({"operations": out})

    fake_llm.on("memory_operations", ops)
    fake_llm.on("save_facts", lambda req: tool({"facts": [{"text": t, "category": "places"}
                                                          for t in user_lines(req) if "서울" in t]}))
    _write_week(mem)
    mem.journal.write("서울로 이사했다", timestamp=datetime(2026, 3, 5, 21, 0))
    mem.jobs.process()


def test_a_week_of_entries_gives_a_letter_written_by_the_llm(mem, fake_llm):
    _moving_week(mem, fake_llm)
    fake_llm.on_text(lambda req: "이번 주 당신은 서울로 옮겼어요." if "reflection letter" in req["messages"][0]["content"]
                     else "응")
    letters = mem.reflection.make_letters(now=datetime(2026, 3, 9, 8, 0))
    week = next(e for e in letters if e["source_ref"] == "letter:week:2026-03-02")
    assert week["content"] == "**3월 2일 – 3월 8일, 한 주의 편지**\n\n이번 주 당신은 서울로 옮겼어요."
    [asked] = [r for r in fake_llm.calls() if "about their week\n(2026-03-02" in r["messages"][0]["content"]]
    assert "Korean" in asked["messages"][0]["content"]
    material = asked["messages"][1]["content"]
    assert "changed: 부산에 산다 -> 서울로 이사했다" in material and "지수랑 한강에서 자전거를 탔다" in material
    assert not mem.jobs.all(entry_ids=[week["id"]])


def test_a_digest_shows_what_changed_and_a_letter_can_be_written_again(mem, fake_llm):
    _moving_week(mem, fake_llm)
    fake_llm.on_text(lambda req: "" if "reflection letter" in req["messages"][0]["content"] else "응")
    # The LLM's letter comes back empty: the digest stands in.
    week = next(e for e in mem.reflection.make_letters(now=datetime(2026, 3, 9, 8, 0))
                if e["source_ref"] == "letter:week:2026-03-02")
    assert "- “부산에 산다” → “서울로 이사했다”" in week["content"]
    fake_llm.on_text(lambda req: "다시 쓴 편지" if "reflection letter" in req["messages"][0]["content"] else "응")
    again = mem.reflection.regenerate_letter(week["id"])
    assert again.entry["content"].endswith("다시 쓴 편지") and again.job_id is None
    assert [h["event"] for h in mem.journal.history(week["id"])] == ["EDIT"]


def test_letters_stay_out_of_the_companions_context_and_memories(mem, fake_llm):
    _write_week(mem)
    mem.jobs.process()
    fake_llm.on_text(lambda req: "편지: 비밀스러운단어" if "reflection letter" in req["messages"][0]["content"] else "응")
    mem.reflection.make_letters(now=datetime(2026, 3, 9, 8, 0))
    [letter] = mem.reflection.letters()
    assert mem.search_field.search_entries("비밀스러운단어")[0]["id"] == letter["id"]
    # A line told, not a question (a question nothing answers is answered without the model).
    mem.companion.chat("비밀스러운단어 생각이 났다.", timestamp=datetime(2026, 3, 9, 9, 0))
    # The answer is found by the purpose it was sent under, not by its wording.
    answer = [r for r in fake_llm.calls() if r.get("_purpose") == "answer"][-1]
    assert "비밀스러운단어 생각이 났다." in answer["messages"][-1]["content"]
    assert all("편지:" not in m["content"] for m in answer["messages"])
    mem.jobs.process()
    assert all("편지:" not in m["memory"] for m in mem.get_all()["results"])
    assert not mem.jobs.all(entry_ids=[letter["id"]])


# -- categories and the profile -------------------------------------------------------------

def test_rules_categorise_without_an_llm():
    assert categorize("동생 지수는 대학생이다") == "people"
    assert categorize("회사에서 프로젝트 리드를 맡았다") == "work"
    assert categorize("매주 금요일 요가", recurrence="FREQ=WEEKLY;BYDAY=FR") == "habits"
    assert categorize("I prefer green tea") == "preferences"
    assert categorize("아무 말") == "other"
    assert mostly_language(["안녕 hello"]) == "ko" and mostly_language("hello there") == "en"


def test_a_switched_off_category_is_not_stored(mem, fake_llm):
    mem.journal.write("지수는 내 동생이다", timestamp=datetime(2026, 3, 1, 21, 0))  # a memory to compare with
    mem.jobs.process()
    fake_llm.on("save_facts", lambda req: tool({"facts": [
        {"text": "두통 때문에 병원에 다녀왔다", "category": "health"},
        {"text": "동생 지수와 저녁을 먹었다", "category": "people"}]}))
    mem.reflection.set_remembered("health", False)
    mem.journal.write("두통 때문에 병원에 다녀왔고 지수랑 저녁을 먹었다", timestamp=datetime(2026, 3, 2, 21, 0))
    job, _graph = mem.jobs.process()  # the graph's reading follows
    assert sorted(m["memory"] for m in mem.get_all()["results"]) == ["동생 지수와 저녁을 먹었다", "지수는 내 동생이다"]
    assert job["result"]["not_remembered"] == [{"memory": "두통 때문에 병원에 다녀왔다", "category": "health"}]
    assert "두통" not in fake_llm.calls("memory_operations")[-1]["messages"][-1]["content"]
    from memoir_desktop.core import config
    assert config.load_settings(mem.home).not_remembered == ["health"]
    mem.reflection.set_remembered("health", True)
    # The fact must be the new entry's own (a fact that only repeats the entry before is left out).
    mem.journal.write("두통 때문에 또 병원에 다녀왔다", timestamp=datetime(2026, 3, 3, 21, 0))
    mem.jobs.process()
    assert "두통 때문에 병원에 다녀왔다" in [m["memory"] for m in mem.get_all()["results"]]


def test_the_profile_groups_memories_and_a_kind_is_forgotten_in_one_action_with_undo(offline):
    ids = [offline.add(t, infer=False, timestamp=datetime(2026, 3, 1))["results"][0]["id"]
           for t in ("동생 지수는 대학생이다", "엄마는 부산에 산다", "회사에서 리드를 맡았다")]
    profile = {g["category"]: g for g in offline.reflection.profile()}
    assert [m["id"] for m in profile["people"]["memories"]] == ids[:2]
    assert [m["id"] for m in profile["work"]["memories"]] == ids[2:]
    assert all(g["remember"] for g in profile.values())
    gone = offline.memories.forget_category("people")
    assert sorted(gone.ids) == sorted(ids[:2])
    assert [m["id"] for m in offline.get_all()["results"]] == ids[2:]
    offline.memories.restore_memories(gone.ids)
    assert sorted(m["id"] for m in offline.get_all()["results"]) == sorted(ids)
    offline.reflection.set_remembered("people", False)
    assert not {g["category"]: g for g in offline.reflection.profile()}["people"]["remember"]
    with pytest.raises(Exception, match="unknown category"):
        offline.reflection.set_remembered("gossip", False)


def test_letters_are_exported_but_not_among_a_days_entries(offline, tmp_path):
    _write_week(offline)
    [letter] = offline.reflection.make_letters(now=datetime(2026, 3, 9, 8, 0))
    assert letter["id"] not in [e["id"] for e in offline.journal.entries(day=date(2026, 3, 8))]
    assert date(2026, 3, 8) in offline.journal.days()  # written that day anyway
    assert letter["id"] in [e["id"] for e in offline.journal.entries(letters=True)]
    [path] = offline.archive.export_text(tmp_path / "journal.md")
    assert "한 주의 편지" in open(path, encoding="utf-8").read()
    offline.archive.export(tmp_path / "all.json")
    import json
    kinds = [e["kind"] for e in json.loads((tmp_path / "all.json").read_text("utf-8"))["entries"]]
    assert kinds.count("letter") == 1


def test_themes_are_things_not_doings():
    from memoir_desktop.core.reflection.letters import themes

    found = themes(["모카가 새벽에 또 깨웠다", "모카는 새벽 5시에 깨운다", "모카를 안고 다시 깨운다"])
    assert found[:2] == ["모카", "새벽"] and "깨우" not in found


def test_moods_are_noted_only_when_the_user_turned_them_on(mem, fake_llm):
    def extract(req):
        asked = "mood" in (req.get("tools") or [{}])[0].get("function", {}).get("parameters", {}).get(
            "properties", {})
        return tool({"facts": [{"text": t, "category": "events"} for t in user_lines(req)],
                     **({"mood": "Good"} if asked else {})})

    fake_llm.on("save_facts", extract)
    mem.journal.write("산책을 했다", timestamp=datetime(2026, 3, 2, 21, 0))
    job, _graph = mem.jobs.process()  # the graph's reading follows
    assert "mood" not in job["result"] and mem.reflection.moods() == []
    assert "mood" not in fake_llm.calls("save_facts")[-1]["messages"][0]["content"].split("Examples")[0]
    mem.settings.mood_tracking = True
    mem.journal.write("친구를 만났다", timestamp=datetime(2026, 3, 3, 21, 0))
    job, _graph = mem.jobs.process()  # the graph's reading follows
    assert job["result"]["mood"] == "good"
    assert mem.reflection.moods() == [{"day": "2026-03-03", "mood": "good"}]


def test_an_entry_deleted_forever_takes_the_letters_that_retell_it(offline):
    ids = _write_week(offline)
    [letter] = offline.reflection.make_letters(now=datetime(2026, 3, 9, 8, 0))
    assert "프로젝트" in letter["content"]
    offline.journal.edit(letter["id"], letter["content"] + "\n\n추신")  # a history row holding the old text
    removed = []
    for eid in (ids[1], ids[4]):  # the two entries about the project
        offline.journal.trash(eid)
        removed.append(offline.journal.purge(eid).letters_removed)
    assert removed == [(letter["id"],), ()]
    assert offline.reflection.letters() == []
    [again] = offline.reflection.make_letters(now=datetime(2026, 3, 10))
    assert "프로젝트" not in again["content"] and "3일 동안 3편" in again["content"]
    with offline.engine.connect() as conn:
        texts = [r[0] for r in conn.exec_driver_sql("SELECT content FROM entry")]
        old = [r[0] for r in conn.exec_driver_sql("SELECT old_content FROM entry_history")]
    assert not any("프로젝트" in (t or "") for t in texts + old)


def test_writing_a_letter_again_when_the_ai_fails_keeps_the_letter(mem, fake_llm):
    """Asked for by the user, "Write it again" with an AI that fails must not put the digest over
    the letter the AI wrote: it says so and keeps it."""
    from memoir_desktop.core.llm import LLMError

    _moving_week(mem, fake_llm)
    fake_llm.on_text(lambda req: "AI가 쓴 편지" if "reflection letter" in req["messages"][0]["content"] else "응")
    week = next(e for e in mem.reflection.make_letters(now=datetime(2026, 3, 9, 8, 0))
                if e["source_ref"] == "letter:week:2026-03-02")
    fake_llm.fail_next(500, times=20)
    with pytest.raises(LLMError):
        mem.reflection.regenerate_letter(week["id"])
    assert mem.journal.entry(week["id"])["content"] == week["content"] and mem.journal.history(week["id"]) == []
