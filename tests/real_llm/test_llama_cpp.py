"""memoir against a real llama.cpp server and two small models (Qwen2.5-Coder 0.5B, SmolLM2 135M):
the probe finds a way that works past the server's refusals, a structured call returns the entry's
facts, a reply stops at its purpose's cap and a call at the time limit, and a server killed
mid-call is said to be not running. The numbers measured are printed (pytest -s)."""

from __future__ import annotations

import threading
import time
from datetime import datetime

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm import Gate, LLMClient, LLMUnavailable
from memoir_desktop.core.llm.connection import check_connection
from memoir_desktop.core.pipeline.extraction import extract_facts
from memoir_desktop.core.storage.models import Entry

pytestmark = [pytest.mark.real_llm, pytest.mark.timeout(1800)]

ENTRY = ("I started learning the cello last month. My sister Mina lives in Busan. "
         "I walk my dog Bori every morning. I don't like coffee any more.")
# SmolLM2 at temperature 0 writes this story until it is stopped (1,280 tokens and on); asked to
# count or repeat, it stops after a line or two, at any temperature.
LONG = [{"role": "user", "content": "Write a long story about a cat who travels around the world. Make it at least "
                                    "two thousand words long."}]


def gate_for(server, **kw) -> tuple[Gate, list]:
    calls: list = []
    client = LLMClient(base_url=server.url, api_key=None, model="local", metric_sink=lambda *row: calls.append(row),
                       **kw)
    return Gate(client, None), calls


@pytest.mark.parametrize("which", ["qwen_server", "smollm2_server"])
def test_the_probe_finds_a_way_that_works_past_the_refusals(which, request):
    server = request.getfixturevalue(which)
    steps: list[str] = []
    report = check_connection(server.url, "local", progress=steps.append)
    print(f"\n{which}: mode {report.mode}, verdicts {report.verdicts}, {report.tokens_per_s and round(report.tokens_per_s, 1)} "
          f"tokens/s, first token {report.first_token_s and round(report.first_token_s, 2)} s, "
          f"about {report.seconds_per_entry and round(report.seconds_per_entry)} s an entry")
    assert report.ok and report.reachable, report.problem
    assert report.verdicts[report.mode] == "ok", report.verdicts
    # llama-cpp-python refuses json_schema with HTTP 500; memoir read that as "server unavailable".
    assert report.verdicts["json_schema"].startswith("refused") and "json_object" in report.verdicts["json_schema"]
    assert report.timeout_s == 300 and report.tokens_per_s and report.seconds_per_entry
    assert steps[0].startswith(f"Connecting to {server.address}")


def test_extraction_returns_the_entrys_facts_with_qwen(qwen_server):
    gate, calls = gate_for(qwen_server)
    today = datetime(2026, 3, 13, 21, 0)
    start = time.perf_counter()
    facts = extract_facts(gate, gate.admit("extraction"), summary="", recent=[],
                          new=[Entry(user_id="me", role="user", content=ENTRY, created_at=today)], today=today)
    took = time.perf_counter() - start
    texts = [f.text for f in facts]
    print(f"\nqwen extraction in {gate.capabilities.mode} mode: {len(texts)} facts in {took:.1f} s "
          f"({len(calls)} calls, {[round(c[1] / 1000, 1) for c in calls]} s): {texts}")
    assert texts, "no fact from a four-fact entry"
    said = " ".join(texts).lower()
    assert sum(word in said for word in ("cello", "mina", "busan", "bori", "coffee")) >= 2, texts
    assert not any(word in said for word in ("지수", "한강", "yoga", "요가")), "facts copied from the prompt's examples"


def test_a_journal_on_qwen_stores_memories(qwen_server, tmp_path):
    with Memoir.open(tmp_path / "home", llm_base_url=qwen_server.url, llm_model="local") as m:
        m.settings.graph_enabled = False
        for text in ("My sister Mina lives in Busan.", "I walk my dog Bori every morning."):
            m.journal.write(text)
        start = time.perf_counter()
        results = m.jobs.process()
        took = time.perf_counter() - start
        memories = [x["memory"] for x in m.get_all()["results"]]
        print(f"\nqwen journal ({m.jobs.status()['llm']['mode']} mode): {len(memories)} memories from 2 entries in "
              f"{took:.1f} s: {memories}; jobs {[r['state'] for r in results]}")
        assert [r["state"] for r in results] == ["done", "done"], [r.get("error") for r in results]
        assert memories


def test_a_reply_stops_at_its_purposes_cap(smollm2_server):
    gate, calls = gate_for(smollm2_server)
    cap = gate.admit("followup").purpose.max_tokens
    start = time.perf_counter()
    gate.complete("followup", LONG, temperature=0)
    print(f"\nsmollm2 followup: {calls[-1][3]} tokens (cap {cap}) in {time.perf_counter() - start:.1f} s")
    assert calls[-1][3] == cap


def test_a_call_stops_at_the_time_limit_and_is_not_sent_again(own_smollm2_server):
    gate, _ = gate_for(own_smollm2_server, timeout=2.0, max_retries=3)
    start = time.perf_counter()
    with pytest.raises(LLMUnavailable) as caught:
        gate.complete("letter", LONG, temperature=0)
    took = time.perf_counter() - start
    print(f"\nsmollm2 letter with a 2 s limit: gave up after {took:.1f} s: {caught.value}")
    assert caught.value.kind == "timeout" and "took longer than 2 s" in str(caught.value)
    # Sent again (three retries allowed), it would have waited 2 s more each time behind the first.
    assert 2.0 <= took < 3.9 and "did not ask again" in str(caught.value)


def test_a_server_killed_mid_call_is_said_to_be_not_running(own_smollm2_server):
    gate, _ = gate_for(own_smollm2_server, max_retries=2, backoff_base=0.2)
    caught: list[BaseException] = []

    def call():
        try:
            gate.complete("letter", LONG, temperature=0)
        except BaseException as exc:  # noqa: BLE001 (the test reads it)
            caught.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    time.sleep(2.0)  # generating by now
    own_smollm2_server.kill()
    assert worker.is_alive(), "the story ended before the server was killed"
    worker.join(60)
    assert caught and isinstance(caught[0], LLMUnavailable), caught
    print(f"\nkilled mid-call: {caught[0]}")
    assert caught[0].kind == "not_running"
    assert f"The model server at {own_smollm2_server.address} is not running" in str(caught[0])
