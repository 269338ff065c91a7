"""A memory the user keeps by hand from a private entry ("Remember this") is as private as the
entry: the companion is never sent it, and it leaves with the entry to the trash."""

from datetime import datetime

T = datetime(2026, 5, 4, 21)


def test_a_memory_remembered_from_a_private_entry_is_never_sent(mem, fake_llm):
    eid = mem.journal.write("지우에게 아직 말 못 한 이직 이야기", private=True, timestamp=T)
    mid = mem.add("지우에게 이직 이야기를 아직 못 했다", infer=False, entry_id=eid, timestamp=T)["results"][0]["id"]
    assert mem.get(mid)["memory"] == "지우에게 이직 이야기를 아직 못 했다"
    mem.add("지우와 점심에 이직 이야기를 했다", infer=False, timestamp=T)  # shared: the model is asked with it
    mem.companion.chat("지우한테 이직 얘기 했었나?", timestamp=T.replace(day=5), remember=False)
    sent = " ".join(str(r.get("messages")) for r in fake_llm.requests)
    assert "이직 이야기를 아직 못 했다" not in sent and "지우와 점심에" in sent
    mem.journal.trash(eid)
    assert mid not in [m["id"] for m in mem.get_all()["results"]]


def test_a_memory_remembered_from_a_shared_entry_is_sent(mem, fake_llm):
    eid = mem.journal.write("지우에게 이직 이야기를 했다", timestamp=T)
    mem.add("지우에게 이직 이야기를 했다", infer=False, entry_id=eid, timestamp=T)
    mem.companion.chat("지우한테 이직 얘기 했었나?", timestamp=T.replace(day=5), remember=False)
    answer = [r for r in fake_llm.requests if r.get("_purpose") == "answer"][-1]
    assert "지우에게 이직 이야기를 했다" in str(answer["messages"])
