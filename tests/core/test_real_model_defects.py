"""Facts and user actions that real models (and real timing) used to lose, one test per defect.

Each test states the model behaviour it depends on through the fake OpenAI-compatible server.
"""

import json
import threading
import time
from datetime import datetime

from tests.fakes.fake_llm import error, existing, new_facts, raw_tool, tool

TOO_LONG = {"error": {"message": "This model's maximum context length is 4096 tokens. Please reduce the "
                                 "length of the messages.", "type": "invalid_request_error",
                      "code": "context_length_exceeded"}}


def ops(decide):
    return lambda req: tool({"operations": decide(new_facts(req), existing(req))})


def active_texts(mem):
    return [m["memory"] for m in mem.get_all()["results"]]


def test_update_naming_a_memory_it_was_not_shown_keeps_the_fact(mem, fake_llm):
    mem.add("I have a cat named Nabi")
    fake_llm.on("memory_operations", ops(lambda facts, ex: [{"fact": 0, "event": "DELETE", "id": 977}]))
    mem.add("My cat Nabi is three")
    assert sorted(active_texts(mem)) == ["I have a cat named Nabi", "My cat Nabi is three"]
    kept = next(m for m in mem.get_all()["results"] if m["memory"] == "My cat Nabi is three")
    assert "not shown" in mem.history(kept["id"])[0]["note"]


def test_a_quoted_id_is_read_as_the_id(mem, fake_llm):
    mid = mem.add("I play tennis")["results"][0]["id"]
    fake_llm.on("memory_operations", ops(
        lambda facts, ex: [{"fact": "0", "event": "update", "id": "0", "text": "I play tennis on Sundays"}]))
    mem.add("I play tennis every Sunday")
    assert mem.get(mid)["memory"] == "I play tennis on Sundays"
    assert active_texts(mem) == ["I play tennis on Sundays"]


def test_a_noop_for_a_fact_with_no_similar_memory_adds_it(mem, fake_llm):
    fake_llm.on("memory_operations", ops(lambda facts, ex: [{"fact": 0, "event": "NOOP"}]))
    mem.add("I started learning the cello")
    assert active_texts(mem) == ["I started learning the cello"]


def test_mem0s_none_event_means_noop_and_does_not_fail_the_job(mem, fake_llm):
    mem.add("I love green tea")
    fake_llm.on("memory_operations", ops(lambda facts, ex: [{"fact": 0, "event": "NONE", "id": 0}]))
    eid = mem.journal.write("Green tea is my favourite")
    res, _graph = mem.jobs.process()  # the graph's reading follows
    assert res["state"] == "done", res
    assert active_texts(mem) == ["I love green tea"]
    assert mem.jobs.all(entry_ids=[eid])[0]["state"] == "done"


def test_chat_commits_the_entry_and_its_job_before_the_answer_call(mem, fake_llm):
    answering = threading.Event()

    def answer(req):
        answering.set()
        time.sleep(1.0)
        return "잘했어요!"

    fake_llm.on_text(answer)
    out = {}
    t = threading.Thread(target=lambda: out.update(mem.companion.chat("처음으로 10km를 뛰었어")))
    t.start()
    assert answering.wait(10)
    # The answer is still being written: the entry and the job that memorises it are on disk.
    entry = next(e for e in mem.journal.entries() if e["content"] == "처음으로 10km를 뛰었어")
    jobs = mem.jobs.all(entry_ids=[entry["id"]])
    assert len(jobs) == 1 and jobs[0]["state"] == "waiting"
    t.join(10)
    [job] = mem.jobs.all(entry_ids=[entry["id"]])
    assert job["state"] == "pending" and job["payload"]["entry_ids"] == [entry["id"], out["reply_entry_id"]]
    mem.jobs.process()
    assert active_texts(mem) == ["처음으로 10km를 뛰었어"]


def test_a_chat_job_left_waiting_by_a_crash_runs_at_the_next_start(tmp_path, fake_llm):
    from sqlmodel import Session

    from memoir_desktop.core import Memoir
    from memoir_desktop.core.storage.models import Entry

    home = tmp_path / "home"
    with Memoir.open(home, llm_base_url=fake_llm.url, llm_model="fake-model") as m:
        # What a kill during the answer call leaves: the entry and a waiting job, no reply.
        with Session(m.engine) as s:
            e = Entry(user_id="me", role="user", content="나는 판교에서 일해", source="chat")
            s.add(e)
            s.flush()
            m.job_queue.enqueue(s, "memorize", "me", {"entry_ids": [e.id]}, state="waiting")
            s.commit()
    with Memoir.open(home, llm_base_url=fake_llm.url, llm_model="fake-model") as m:
        assert m.resumed_jobs == 1
        m.jobs.process()
        assert active_texts(m) == ["나는 판교에서 일해"]


def test_a_users_forget_is_applied_while_a_slow_llm_job_runs(mem, fake_llm):
    keep = mem.add("I live in Busan", infer=False)["results"][0]["id"]
    started = threading.Event()

    def slow_facts(req):
        started.set()
        time.sleep(2.0)
        return tool({"facts": ["I like hiking"]})

    fake_llm.on("save_facts", slow_facts)
    mem.journal.write("I like hiking")
    worker = threading.Thread(target=mem.jobs.process)
    worker.start()
    assert started.wait(10)
    mem.delete(keep)  # must not wait for the job
    running = [j["state"] for j in mem.jobs.all()]
    worker.join(20)
    assert running == ["running"], "the forget waited for the LLM job to finish"
    assert mem.get(keep)["state"] == "invalid"
    assert active_texts(mem) == ["I like hiking"]


def test_add_with_inference_keeps_the_metadata(mem):
    out = mem.add([{"role": "user", "content": "I moved to Seoul"}, {"role": "user", "content": "I adopted a cat"},
                   {"role": "user", "content": "I started a new job"}], metadata={"source": "import", "mood": "hopeful"})
    assert len(out["results"]) == 3  # every memory the call made carries it, not just the first
    for r in out["results"]:
        assert mem.get(r["id"])["metadata"] == {"source": "import", "mood": "hopeful"}, r["memory"]


def test_updates_count_against_the_per_turn_limit(mem, fake_llm):
    for t in ("I run", "I swim", "I read", "I cook"):
        mem.add(t, infer=False, metadata={})
    # infer=False memories are the user's own (protected); make them the LLM's for this test.
    from sqlmodel import Session

    from memoir_desktop.core.storage.models import Memory

    with Session(mem.engine) as s:
        for m in s.query(Memory).all():
            m.user_edited = False
            s.add(m)
        s.commit()
    fake_llm.on("memory_operations", ops(lambda facts, ex: [
        {"fact": 0, "event": "UPDATE", "id": i, "text": f"{t} every day"} for i, t in ex.items()]))
    out = mem.add("I do all of these every day")
    assert sum(r["event"] == "UPDATE" for r in out["results"]) == mem.settings.max_llm_invalidations_per_turn
    assert len(out["pending_confirmation"]) == 4 - mem.settings.max_llm_invalidations_per_turn
    assert len(mem.memories.proposals()) == 4 - mem.settings.max_llm_invalidations_per_turn


def test_a_prompt_too_long_does_not_turn_tool_calls_off(mem, fake_llm):
    mem.add("I work at Naver")
    fake_llm.push(error(400, body=json.dumps(TOO_LONG)))
    mem.add("I like green tea")
    mem.add("I walk to work")
    last = fake_llm.calls()[-1]
    assert last.get("tools"), "tool calls were switched off by a context-length error"
    assert sorted(active_texts(mem)) == ["I like green tea", "I walk to work", "I work at Naver"]


def test_a_reply_with_a_lone_surrogate_is_stored_with_a_replacement_character(mem, fake_llm):
    fake_llm.on("save_facts", lambda req: raw_tool('{"facts": ["I love this \\ud83d emoji"]}'))
    mem.journal.write("I love this emoji")
    res, _graph = mem.jobs.process()  # the graph's reading follows
    assert res["state"] == "done", res
    assert active_texts(mem) == ["I love this \ufffd emoji"]


def test_recurring_time_is_not_pinned_to_one_day(mem):
    out = mem.add("매주 금요일에 요가를 해", timestamp=datetime(2026, 3, 13, 20))
    m = mem.get(out["results"][0]["id"])
    assert m["memory"] == "매주 금요일에 요가를 해"
    assert m["about"] is None
    assert m["recurrence"] == "FREQ=WEEKLY;BYDAY=FR"



def test_a_habit_is_found_by_its_weekday_and_shown_as_a_habit(mem, fake_llm):
    mem.add("매주 금요일에 요가를 해", timestamp=datetime(2026, 3, 13, 20))
    mem.add("I swim on Mondays and Thursdays", timestamp=datetime(2026, 3, 13, 20))
    for i in range(30):
        mem.add(f"기타 기록 {i}: 점심에 김밥을 먹었다", infer=False, timestamp=datetime(2026, 3, 1 + i % 20))
    friday = mem.search("금요일에 뭐 하지?", now=datetime(2026, 6, 1))["results"]
    assert friday[0]["memory"] == "매주 금요일에 요가를 해"
    assert friday[0]["explain"]["time"]["recurs"] == "FREQ=WEEKLY;BYDAY=FR"
    thursday = mem.search("What do I do on Thursday?", now=datetime(2026, 6, 1))["results"]
    assert thursday[0]["memory"] == "I swim on Mondays and Thursdays"
    out = mem.companion.chat("금요일에 뭐 하지?", timestamp=datetime(2026, 6, 1, 9))
    system = fake_llm.calls()[-1]["messages"][0]["content"]
    assert "repeats every Friday] 매주 금요일에 요가를 해" in system
    assert out["reply"]


def test_recurring_time_in_english_has_no_date(mem):
    m = mem.get(mem.add("I go climbing every other Sunday", timestamp=datetime(2026, 3, 13))["results"][0]["id"])
    assert m["about"] is None and m["recurrence"] == "FREQ=WEEKLY;INTERVAL=2;BYDAY=SU"
