"""A model server near the diarist reads the next entry's beginning while memoir is idle.

Such a server keeps only the last prompt it read; after an entry the graph's requests come last, and
the next extraction was read whole again: 10-12 s of each entry with Qwen2.5 0.5B on two cores
(memoir_desktop/eval/results/real-llm-qwen.txt). Once the app's writer has nothing left to do, it
sends the next extraction's beginning with a one-token reply; the next extraction must then start
with exactly that text, or the server reads it all again.
"""

from datetime import date, datetime, timedelta

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm.purposes import PURPOSES
from tests.fakes.fake_llm import FakeLLM, echo_facts, error

DAY = datetime(2026, 12, 1, 21, 0)
ENTRIES = ["오늘 회사에서 새 프로젝트 발표를 했다.", "여동생 지민이가 다음 달에 부산으로 이사 간다고 한다.",
           "I started a new job at a bakery in Portland this week."]


def _of(server, name):
    return [r for r in server.requests if r.get("_purpose") == name]


def _text(req) -> str:
    return "\n".join(str(m.get("content") or "") for m in req["messages"])


def _write(m: Memoir, text: str, n: int, **kw) -> int:
    """Written now, as a diarist writes (`n` only orders them): the read-ahead is for today's next entry."""
    return m.journal.write(text, **kw)


def test_the_next_extraction_starts_with_what_was_read_ahead(mem, fake_llm, monkeypatch):
    for n, text in enumerate(ENTRIES):
        _write(mem, text, n)
        mem.jobs.process(idle=True)
    ahead, extractions = _of(fake_llm, "prefill"), _of(fake_llm, "extraction")
    assert len(ahead) == len(ENTRIES)
    assert all(r["max_tokens"] == 1 for r in ahead)
    # Each read-ahead is the beginning of the extraction after it: the same instructions, the same
    # summary and recent entries, word for word up to where the new entry goes.
    for before, after in zip(ahead, extractions[1:]):
        assert before["messages"][0] == after["messages"][0]
        begun = before["messages"][1]["content"]
        assert after["messages"][1]["content"].startswith(begun)
        assert begun.startswith(f"Today is {date.today().isoformat()}") and begun.endswith("\n\n")
    assert ENTRIES[1] in ahead[-1]["messages"][1]["content"]  # the entries before the next one


def test_private_entries_are_not_read_ahead(mem, fake_llm):
    _write(mem, ENTRIES[0], 0)
    _write(mem, "QZXWV 아무에게도 말 안 했지만 도예공방에 다닌다", 1, private=True)
    _write(mem, ENTRIES[1], 2)
    mem.jobs.process(idle=True)
    ahead = _of(fake_llm, "prefill")
    assert ahead and ENTRIES[1] in _text(ahead[-1])
    assert all("QZXWV" not in _text(r) and "도예공방" not in _text(r) for r in ahead)


def test_not_read_ahead_in_a_chat_nor_by_a_one_off_command(mem, fake_llm):
    _write(mem, ENTRIES[0], 0)
    mem.jobs.process()  # memoir-cli, another app: they stop when the jobs are done
    assert not _of(fake_llm, "prefill")
    mem.companion.chat("요즘 아침에 뭐 마시지?", timestamp=DAY + timedelta(days=1))
    mem.jobs.process(idle=True)
    # A chat's next request is the companion's answer, which would push the beginning out again.
    assert not _of(fake_llm, "prefill")


def test_a_server_that_cannot_read_ahead_changes_nothing(tmp_path):
    server = FakeLLM()
    try:
        with Memoir.open(tmp_path / "home", llm_base_url=server.url, llm_model="m", llm_max_retries=0) as m:
            _write(m, ENTRIES[0], 0)
            server.on("save_facts", lambda req: error(500) if req.get("max_tokens") == 1 else echo_facts(req))
            done = m.jobs.process(idle=True)
            assert {r["state"] for r in done} == {"done"}
            assert _of(server, "prefill"), "it was asked"
            assert m.jobs.status()["pending_jobs"] == 0 and m.job_queue.outage() is None
    finally:
        server.close()


def test_only_for_a_server_nearby():
    p = PURPOSES["prefill"]

    class Settings:
        llm_base_url = "https://api.openai.com/v1"

    assert not p.active(Settings())
    for nearby in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://192.168.0.12:1234/v1"):
        Settings.llm_base_url = nearby
        assert p.active(Settings())


def test_a_new_journal_reads_the_instructions_ahead_of_its_first_entry(mem, fake_llm):
    from memoir_desktop.core.llm.connection import check_connection

    check_connection(fake_llm.url, "fake-model", probe_cache=mem.probe_cache)
    mem.jobs.process(idle=True)  # the app's writer at its start, nothing to do yet
    [ahead] = _of(fake_llm, "prefill")
    _write(mem, ENTRIES[0], 0)
    mem.jobs.process(idle=True)
    first = _of(fake_llm, "extraction")[0]
    assert first["messages"][0] == ahead["messages"][0]
    assert first["messages"][1]["content"].startswith(ahead["messages"][1]["content"])


def test_a_new_day_reads_ahead_again(mem, fake_llm):
    """What was read ahead last night carries last night's date: the writer, woken just after
    midnight, has the server read today's beginning."""
    _write(mem, ENTRIES[0], 0)
    mem.jobs.process(idle=True)
    mem.jobs.process(idle=True)  # woken again the same day with nothing to do: nothing sent
    assert len(_of(fake_llm, "prefill")) == 1
    mem.jobs.today = lambda: date.today() + timedelta(days=1)
    mem.jobs.process(idle=True)
    assert len(_of(fake_llm, "prefill")) == 2
