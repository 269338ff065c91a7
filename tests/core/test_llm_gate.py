"""The gate every LLM request passes: one journal with an entry private from the start and one made
private after its memories exist; every feature that calls the LLM is run against the fake server,
which logs each request and the purpose it came under. The check is parametrised by the purpose
registry: a purpose registered later fails here until the scenario exercises it."""

import dataclasses
from datetime import datetime

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm import Gate, LLMClient, UnregisteredPurpose
from memoir_desktop.core.llm.purposes import app_purposes
from tests.fakes.fake_llm import FakeLLM, prompt, tool

# Words only the private entries hold (an ASCII tag and a Korean word each).
FROM_START = ("QZXWV", "도예공방")
MADE_LATER = ("KLMNB", "옥수수밭")
SHARED = [
    (datetime(2026, 3, 2, 21, 0), "다음 주 토요일에 친구랑 북한산 등산 간다"),
    (datetime(2026, 3, 3, 21, 0), "나는 매일 아침 라떼를 마신다"),
    (datetime(2026, 3, 4, 21, 0), "나는 아침마다 라떼를 한 잔 마신다"),
    (datetime(2026, 3, 5, 21, 0), "나는 매일 아침에 라떼를 마시는 편이다"),
]


def _summary_echo(req):
    """The running summary repeats what it read, so a summary that read a private entry would carry
    its words into every later extraction and answer."""
    first = req["messages"][0]["content"]
    if "summary" in first.lower() and "letter" not in first.lower():
        return "요약: " + prompt(req)[-800:]
    return "응, 기억하고 있어."


def _merge(req):
    return tool({"merge": True, "text": "매일 아침 라떼"})


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    fake = FakeLLM()
    fake.on_text(_summary_echo)
    fake.on(("consolidate_memories"), _merge)
    fake.on("rank_memories", lambda req: tool({"relevant": [1, 0]}))
    mem = Memoir.open(tmp_path_factory.mktemp("gate") / "home", llm_base_url=fake.url, llm_model="fake-model",
                      llm_max_retries=0, summary_interval=1)
    try:
        for when, text in SHARED:
            mem.journal.write(text, timestamp=when)
        mem.journal.write(f"{FROM_START[0]} 아무에게도 말 안 했지만 {FROM_START[1]}에 다닌다", timestamp=datetime(2026, 3, 5, 22),
                    private=True)
        later = mem.journal.write(f"{MADE_LATER[0]} 주말에 {MADE_LATER[1]} 축제에 갔다", timestamp=datetime(2026, 3, 6, 21))
        mem.jobs.process()
        mem.jobs.process()
        assert any(MADE_LATER[0] in m["memory"] for m in mem.get_all()["results"]), "the later entry made memories"
        mem.journal.set_private(later, True)
        start = len(fake.requests)  # from here on, nothing private may leave

        mem.journal.write("오늘은 회사에서 발표를 했다", timestamp=datetime(2026, 3, 7, 21))
        # extraction, update, graph, summary (every entry: summary_interval=1), then prefill: the next
        # entry's beginning, read ahead as the app's writer does
        mem.jobs.process(idle=True)
        mem.jobs.process()
        mem.companion.chat("요즘 아침에 뭐 마시지?", timestamp=datetime(2026, 3, 8, 9))  # answer
        shared_entry = mem.journal.write("퇴근길에 비가 왔다", timestamp=datetime(2026, 3, 8, 20))
        mem.companion.reply_to(shared_entry)  # answer, about one entry
        for private in (later,):
            with pytest.raises(Exception, match="private"):
                mem.companion.reply_to(private)
        mem.reflection.make_letters(now=datetime(2026, 3, 10, 8))  # letter (week of 3/2 holds both private entries)
        letter = mem.reflection.letters()[-1]
        mem.reflection.regenerate_letter(letter["id"])  # letter, written again
        mem.reflection.followups(now=datetime(2026, 3, 16, 9))  # followup (the hike's Saturday has passed)
        st = dataclasses.replace(mem.settings, search_reranker="llm")
        mem.reconfigure(st, rebuild_now=False)
        mem.companion.chat("아침에 마시는 거 기억나?", timestamp=datetime(2026, 3, 16, 10))  # rerank, then answer
        mem.memories.consolidate()
        mem.jobs.process()  # consolidation
        mem.llm.probe(force=True)  # probe
        yield {"mem": mem, "fake": fake, "start": start, "letter": mem.journal.entry(letter["id"])}
    finally:
        mem.close()
        fake.close()


def _words(req) -> str:
    return " ".join(str(m.get("content") or "") for m in req.get("messages", [])) + str(req.get("tools") or "")


@pytest.mark.parametrize("purpose", [p.name for p in app_purposes()])
def test_every_purpose_is_exercised_and_sends_nothing_private(scenario, purpose):
    reqs = scenario["fake"].requests
    after = [r for r in reqs[scenario["start"]:] if r.get("_purpose") == purpose]
    assert after, f"the scenario never sent a {purpose!r} request after the entry was made private: add it"
    for r in after:
        text = _words(r)
        for word in FROM_START + MADE_LATER:
            assert word not in text, f"{purpose}: {word} reached the LLM after it was private"
    for r in reqs:  # private from the start: never, not even before
        assert not any(w in _words(r) for w in FROM_START)


def test_every_request_names_a_registered_purpose(scenario):
    names = {p.name for p in app_purposes()}
    assert {r.get("_purpose") for r in scenario["fake"].requests} <= names


def test_the_letter_says_how_many_private_entries_it_left_out(scenario):
    assert "비공개 기록 2편은 AI에게 보내지 않았어요" in scenario["letter"]["content"]


def test_an_unregistered_purpose_is_refused_before_anything_is_sent(fake_llm):
    gate = Gate(LLMClient(base_url=fake_llm.url, api_key=None, model="m", max_retries=0), None)
    with pytest.raises(UnregisteredPurpose):
        gate.complete("gossip", [{"role": "user", "content": "hello"}])
    assert fake_llm.requests == []


def test_a_feature_that_forgets_to_filter_is_refused_by_the_last_check(mem, fake_llm):
    """The gate reads the finished request too: quoting a private entry's words is refused."""
    from memoir_desktop.core.llm import PrivateRefused

    mem.journal.write("비밀: 나는 사실 복권에 당첨되었다 XYZ-77", private=True)
    n = len(fake_llm.requests)
    with pytest.raises(PrivateRefused):
        mem.llm.complete("answer", [{"role": "user", "content": "요약해 줘: 비밀: 나는 사실 복권에 당첨되었다 XYZ-77"}])
    assert len(fake_llm.requests) == n


def test_making_an_entry_private_drops_the_summary_that_read_it(mem, fake_llm):
    fake_llm.on_text(_summary_echo)
    mem.settings.summary_interval = 1
    e = mem.journal.write("ABCDE 오늘 병원에서 검사 결과를 들었다", timestamp=datetime(2026, 3, 2, 21))
    mem.jobs.process()
    mem.jobs.process()
    assert "ABCDE" in mem.memories.summary()
    mem.journal.set_private(e, True)
    assert "ABCDE" not in mem.memories.summary()
    mem.jobs.process()  # written again without it
    assert "ABCDE" not in mem.memories.summary()


def test_an_answer_says_how_many_private_entries_it_left_out(mem, fake_llm):
    mem.journal.write("첫 번째 공유 기록", timestamp=datetime(2026, 3, 2, 20))
    mem.journal.write("두 번째 비밀 기록 PRIV-1", timestamp=datetime(2026, 3, 2, 21), private=True)
    out = mem.companion.chat("오늘 뭐 했었지?", timestamp=datetime(2026, 3, 2, 22))  # what the search finds
    assert out["left_out"] == 1
    assert all("PRIV-1" not in _words(r) for r in fake_llm.requests)
