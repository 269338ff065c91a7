"""The journal is the user's: entries edited, moved, trashed, restored, deleted forever, searched —
and the memories (and graph relations) that came from them follow."""

import re
from datetime import datetime

import pytest

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.inputs import InvalidInput
from tests.fakes.fake_llm import existing, new_facts, tool

T1 = datetime(2026, 3, 10, 21, 0)


def active(mem):
    return sorted(m["memory"] for m in mem.get_all()["results"])


def graph_says(fake_llm):
    """The fake's graph finds "나 -[산다]-> <city>" in "나는 <city>에 산다"."""
    def entities(req):
        text = req["messages"][-1]["content"]
        city = re.search(r"나는 (\S+?)에 산다", text)
        return tool({"entities": [{"name": "나", "type": "person"}] + (
            [{"name": city.group(1), "type": "place"}] if city else [])})

    def relations(req):
        text = req["messages"][-1]["content"]
        city = re.search(r"나는 (\S+?)에 산다", text)
        return tool({"relations": [{"source": "나", "relation": "산다", "destination": city.group(1)}]
                     if city else []})

    fake_llm.on("extract_entities", entities)
    fake_llm.on("extract_relations", relations)


def lives_in(mem) -> list[str]:
    return [r["triplet"] for r in mem.graph.search("me", "어디 살아?") if "산다" in r["triplet"]]


def test_an_edited_entry_updates_its_memory_and_moves_the_graph_edge(mem, fake_llm):
    graph_says(fake_llm)
    eid = mem.journal.write("나는 부산에 산다", timestamp=T1)
    mem.jobs.process()
    [old] = mem.get_all()["results"]
    assert lives_in(mem) == ["나 산다 부산"]

    def update_same_place(req):
        shown = existing(req)
        busan = next(i for i, t in shown.items() if "부산" in t)
        return tool({"operations": [{"fact": 0, "event": "UPDATE", "id": busan, "text": new_facts(req)[0]}]})

    fake_llm.on("memory_operations", update_same_place)
    out = mem.journal.edit(eid, "나는 서울에 산다")
    assert out.entry["content"] == "나는 서울에 산다" and out.entry["edited"]
    assert mem.get(old["id"])["flag"] == "source changed"  # marked until the job re-reads the entry
    res, _graph = mem.jobs.process()  # the graph's reading follows
    assert res["kind"] == "reconcile" and res["state"] == "done", res
    assert active(mem) == ["나는 서울에 산다"]
    assert mem.get(old["id"])["memory"] == "나는 서울에 산다" and mem.get(old["id"])["flag"] is None
    assert lives_in(mem) == ["나 산다 서울"]
    assert [h["event"] for h in mem.journal.history(eid)] == ["EDIT"]
    assert mem.journal.history(eid)[0]["old_content"] == "나는 부산에 산다"


def test_a_fact_the_edited_entry_no_longer_says_is_invalidated_and_a_new_one_added(mem, fake_llm):
    eid = mem.journal.write("I play tennis", timestamp=T1)
    mem.jobs.process()
    mem.journal.edit(eid, "I play squash")  # the default fake ADDs every fact, keeps no old memory
    mem.jobs.process()
    assert active(mem) == ["I play squash"]
    gone = next(m for m in mem.get_all(include_invalid=True)["results"] if m["memory"] == "I play tennis")
    assert gone["state"] == "invalid" and gone["invalid_reason"] == "source edited"


def test_a_protected_memory_of_an_edited_entry_gets_a_proposal_not_a_silent_change(mem, fake_llm):
    eid = mem.journal.write("I play tennis", timestamp=T1)
    mem.jobs.process()
    [m] = mem.get_all()["results"]
    mem.update(m["id"], "I play tennis on Sundays")  # the user's own words: protected
    mem.journal.edit(eid, "I play squash")
    mem.jobs.process()
    assert mem.get(m["id"])["state"] == "active"
    assert [p["event"] for p in mem.memories.proposals()] == ["DELETE"]


def test_a_trashed_entry_takes_its_memories_out_of_search_and_context_and_restore_brings_them_back(mem,
                                                                                                   fake_llm):
    eid = mem.journal.write("I keep bees on the roof", timestamp=T1)
    mem.jobs.process()
    assert mem.search("bees")["results"]
    out = mem.journal.trash(eid)
    assert len(out.memories) == 1
    assert mem.journal.entries() == [] and [e["id"] for e in mem.journal.in_trash()] == [eid]
    assert mem.search("bees")["results"] == []
    ctx = mem.companion.context_for("do I keep bees?")
    assert "bees" not in ctx.render()
    assert mem.search_field.search_entries("bees") == []
    mem.journal.restore(eid)
    assert [m["memory"] for m in mem.search("bees")["results"]] == ["I keep bees on the roof"]
    assert "bees" in mem.companion.context_for("do I keep bees?").render()
    assert [e["id"] for e in mem.search_field.search_entries("bees")] == [eid]


def test_a_memory_another_entry_also_supports_stays_when_one_entry_is_trashed(mem, fake_llm):
    a = mem.journal.write("I love green tea", timestamp=T1)
    mem.jobs.process()
    b = mem.journal.write("I love green tea", timestamp=datetime(2026, 3, 11, 9))  # said again: a NOOP
    mem.jobs.process()
    mem.journal.trash(a)
    assert active(mem) == ["I love green tea"]
    mem.journal.trash(b)
    assert active(mem) == []
    mem.journal.restore(a)
    assert active(mem) == ["I love green tea"]


def test_trashing_hides_the_entrys_graph_relations_and_restoring_shows_them(mem, fake_llm):
    graph_says(fake_llm)
    eid = mem.journal.write("나는 부산에 산다", timestamp=T1)
    mem.jobs.process()
    mem.journal.trash(eid)
    assert lives_in(mem) == []
    mem.journal.restore(eid)
    assert lives_in(mem) == ["나 산다 부산"]


def test_without_an_llm_deleting_works_at_once_and_an_edit_waits_marked(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path / "home") as m:
        kept = m.add("I keep bees", infer=False)["results"][0]["id"]
        eid = m.journal.write("I keep bees")
        assert m.jobs.process()[0]["state"] == "pending"
        assert m.search_field.search_entries("bees")[0]["id"] == eid  # no LLM, still searchable
        m.journal.edit(eid, "I keep wasps")
        m.journal.edit(eid, "I keep wasps and bees")
        # Not read yet: its memorize job will read the text as it is then; no second job waits.
        assert [j["kind"] for j in m.jobs.all("pending")] == ["memorize"]
        m.journal.trash(eid)
        assert m.search_field.search_entries("bees") == [] and m.search_field.search_entries("wasps") == []
        assert m.get(kept)["state"] == "active"  # typed by the user, from no entry


@pytest.fixture(params=["encrypted", "plain"])
def any_journal(request, mem, fake_llm, tmp_path):
    """The conftest journal (encrypted, where a byte scan proves little) and a plain one, where
    the words would be found in the file if anything kept them."""
    if request.param == "encrypted":
        yield mem
        return
    from memoir_desktop.core import Memoir

    m = Memoir.open(tmp_path / "plain", encrypt=False, llm_base_url=fake_llm.url, llm_model="fake-model")
    assert not m.keys.encrypted
    yield m
    m.close()


def test_delete_forever_only_from_the_trash_and_it_removes_the_text_everywhere(any_journal, fake_llm, tmp_path):
    mem = any_journal
    secret = "나의 비밀 일기장 문장 7291"
    eid = mem.journal.write(secret, timestamp=T1)
    mem.jobs.process()
    other = mem.journal.write("오늘은 날씨가 맑았다", timestamp=T1)
    mem.jobs.process()
    with pytest.raises(InvalidInput):
        mem.journal.purge(eid)  # not in the trash yet
    mem.journal.trash(eid)
    preview = mem.journal.purge_preview(eid)
    assert preview["text"] == secret and preview["memories"] == [secret] and preview["graph_relations"] == 0
    assert "backups" in preview["backups_note"]
    mem.journal.purge(eid)
    assert mem.journal.in_trash() == [] and [e["id"] for e in mem.journal.entries()] == [other]
    assert all(secret not in m["memory"] for m in mem.get_all(include_invalid=True)["results"])
    assert all(secret not in str(j) for j in mem.jobs.all())
    mem.close()
    for path in mem.home.rglob("*"):
        if path.is_file() and "backups" not in path.parts:
            assert secret.encode("utf-8") not in path.read_bytes(), path


def test_moving_an_entry_rereads_its_relative_times_from_the_new_day(mem, fake_llm):
    eid = mem.journal.write("어제 영화를 봤다", timestamp=T1)
    mem.jobs.process()
    [m] = mem.get_all()["results"]
    assert m["about"] == ["2026-03-09", "2026-03-09"] and m["memory"] == "2026년 3월 9일 영화를 봤다"
    mem.journal.move(eid, datetime(2026, 3, 20, 12))
    mem.jobs.process()
    [m] = mem.get_all()["results"]
    assert m["about"] == ["2026-03-19", "2026-03-19"]
    assert mem.journal.entry(eid)["created_at"].startswith("2026-03-20")
    assert mem.journal.days() == [datetime(2026, 3, 20).date()]


def test_writing_on_a_past_day_counts_relative_times_from_that_day(mem, fake_llm):
    mem.journal.write("내일 부산에 간다", timestamp=datetime(2025, 7, 1, 12))
    mem.jobs.process()
    [m] = mem.get_all()["results"]
    assert m["about"] == ["2025-07-02", "2025-07-02"]
    assert mem.journal.days() == [datetime(2025, 7, 1).date()]


def test_search_finds_a_korean_word_that_is_only_in_an_entry_and_marks_it(mem, fake_llm):
    fake_llm.on("save_facts", lambda req: tool({"facts": []}))  # the entry made no memory
    eid = mem.journal.write("퇴근길에 붕어빵을 세 개 샀다. 따뜻했다.", timestamp=T1)
    mem.jobs.process()
    assert mem.get_all()["results"] == []
    found = mem.search_field.find("붕어빵 사 먹은 날")
    assert found["memories"] == []
    [hit] = found["entries"]
    assert hit["id"] == eid
    # 붕어빵 and 사(다), the query's words, marked where the entry says them
    assert [hit["snippet"][a:b] for a, b in hit["highlights"]] == ["붕어빵을", "샀다."]


def test_entry_actions_say_what_they_changed(mem, fake_llm):
    eid = mem.journal.write("I keep bees", timestamp=T1)
    mem.jobs.process()
    [m] = mem.get_all()["results"]
    assert mem.journal.trash(eid).changes == Changes.of(memories=[m["id"]], entries=[eid])
    assert mem.journal.restore(eid).changes.memories == {m["id"]}


def test_a_memorize_job_of_an_entry_trashed_before_it_ran_makes_no_memory(mem, fake_llm):
    eid = mem.journal.write("I keep bees", timestamp=T1)
    mem.journal.trash(eid)
    assert mem.jobs.process()[0]["state"] == "done"
    assert mem.get_all(include_invalid=True)["results"] == []


def test_the_entries_edits_are_refused_for_trashed_or_unknown_entries(mem):
    eid = mem.journal.write("x", timestamp=T1)
    mem.journal.trash(eid)
    with pytest.raises(InvalidInput):
        mem.journal.edit(eid, "y")
    with pytest.raises(KeyError):
        mem.journal.edit(9999, "y")


NONSENSE = ["xyzzy", "123", "asdf qwer", "!!!", "ㅋㅋㅋㅋ", "lorem ipsum dolor", "the quick brown fox",
            "양자역학의 슈뢰딩거 방정식"]


def test_a_nonsense_query_finds_nothing_in_memories_or_entries(mem, fake_llm):
    texts = [f"{i}번째 날: 동네 카페에서 라떼를 마시고 책을 읽었다" for i in range(40)] + [
        "I went hiking with Mina on Saturday", "매주 금요일에 요가를 한다"]
    mem.add(texts, infer=False)
    for t in texts[:5]:
        mem.journal.write(t)
    mem.jobs.process()
    for q in NONSENSE:  # the search field lists nothing (search() ranks: it drops no real match)
        assert mem.search_field.find(q) == {"entries": [], "memories": []}, q
        assert mem.search_field.search_entries(q) == [], q
    assert mem.search_field.find("라떼")["memories"] and mem.search_field.search_entries("라떼")
    assert mem.search("hiking")["results"][0]["memory"] == "I went hiking with Mina on Saturday"


def test_the_companions_reply_goes_to_the_trash_with_the_entry_it_answers(mem, fake_llm):
    out = mem.companion.chat("오늘 처음으로 도자기 수업에 갔다", timestamp=T1)
    assert out["reply_entry_id"]
    mem.journal.trash(out["entry_id"])
    assert mem.journal.entries() == []
    mem.journal.restore(out["entry_id"])
    assert [e["role"] for e in mem.journal.entries()] == ["user", "assistant"]
    mem.journal.trash(out["entry_id"])
    mem.journal.purge(out["entry_id"])
    assert mem.journal.in_trash() == [] and mem.journal.entries() == []


def test_asking_later_about_a_past_entry_puts_the_reply_on_that_day(mem, fake_llm):
    eid = mem.journal.write("주말에 제주에 다녀왔다", timestamp=T1)
    out = mem.companion.reply_to(eid)
    assert out["reply"] and mem.journal.entry(out["reply_entry_id"])["created_at"].startswith("2026-03-10")
    assert [j["kind"] for j in mem.jobs.all(entry_ids=[eid])] == ["memorize"]
    mem.jobs.process()
    mem.journal.edit(eid, "주말에 부산에 다녀왔다")  # read already: a re-read job is what follows it
    assert [j["kind"] for j in mem.jobs.all(entry_ids=[eid])] == ["memorize", "graph", "reconcile"]


def test_edits_and_moves_while_a_re_read_waits_leave_one_job(mem, fake_llm):
    eid = mem.journal.write("나는 부산에 산다", timestamp=T1)
    mem.jobs.process()
    before = len(mem.jobs.all())
    mem.journal.edit(eid, "나는 서울에 산다")
    mem.journal.edit(eid, "나는 서울 마포에 산다")
    mem.journal.move(eid, T1.replace(hour=9))
    waiting = mem.jobs.all("pending")
    assert len(mem.jobs.all()) == before + 1 and [j["kind"] for j in waiting] == ["reconcile"]
    mem.jobs.process()
    assert "나는 서울 마포에 산다" in [m["memory"] for m in mem.get_all()["results"]]


def test_the_waiting_count_leaves_out_entries_in_the_trash(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path / "home") as m:  # no LLM: every entry waits
        kept = [m.journal.write("오늘은 비가 왔다"), m.journal.write("고양이 병원에 다녀왔다")]
        trashed = m.journal.write("지울 기록")
        m.journal.trash(trashed)
        assert m.jobs.status()["pending_jobs"] == len(kept)
        m.journal.restore(trashed)
        assert m.jobs.status()["pending_jobs"] == 3
