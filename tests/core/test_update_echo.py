"""A model that answers the memory-sorting step with the instruction's own example is not asked it on
every entry.

Qwen2.5-Coder-0.5B on llama.cpp (JSON mode) sent back the shape it was shown to fill in, as it is, for
every sorting step of twelve entries (memoir_desktop/eval/results/real-llm-qwen.txt): each step cost
6-9 s of an entry wanted in 10 and decided nothing. After three such replies in a row the step is
asked again only every tenth time, each fact is kept meanwhile, and a model that compares is asked
every time.
"""

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm.probe import ProbeCache
from memoir_desktop.core.pipeline.update import NOT_ASKED
from tests.fakes.fake_llm import FakeLLM, add_all, raw

# What Qwen2.5 0.5B answered, byte for byte, to every sorting step (the instruction's shape).
QWEN_ECHO = '{"operations": [{"fact": 0, "event": "ADD", "id": null, "text": "..."}]}'

FACTS = [f"I visited museum number {n} in town" for n in range(12)]


def _journal(tmp_path, server, cache=None) -> Memoir:
    m = Memoir.open(tmp_path / "home", llm_base_url=server.url, llm_model="qwen", llm_max_retries=2)
    m.llm.client.backoff_base = 0.01
    if cache is not None:
        m.llm.client.cache = cache
    return m


def _sorting_calls(server) -> int:
    # In JSON mode the tool's name travels in the last message's instruction.
    return sum("`memory_operations`" in (r["messages"][-1]["content"] or "") for r in server.calls())


def test_a_model_that_echoes_the_example_is_asked_again_only_now_and_then(tmp_path):
    server = FakeLLM(capabilities={"json_object"})
    server.on("memory_operations", lambda req: raw(QWEN_ECHO))
    try:
        with _journal(tmp_path, server) as m:
            for fact in FACTS:
                m.add(fact)
            stored = sorted(x["memory"] for x in m.get_all()["results"])
        # Asked from the second entry (the first has nothing to compare with) to the fourth, then once more
        # at the twelfth (ASK_AGAIN_EVERY).
        assert _sorting_calls(server) == 4
        assert stored == sorted(FACTS), "a fact was lost while the step was not asked"
    finally:
        server.close()


def test_a_model_that_compares_is_asked_every_time(tmp_path):
    server = FakeLLM(capabilities={"json_object"})
    server.on("memory_operations", add_all)
    try:
        with _journal(tmp_path, server) as m:
            for fact in FACTS:
                m.add(fact)
        assert _sorting_calls(server) == len(FACTS) - 1  # all but the first, which has nothing to compare with
    finally:
        server.close()


def test_what_was_learnt_is_kept_for_the_endpoint_and_undone_by_a_real_answer(tmp_path):
    server = FakeLLM(capabilities={"json_object"})
    server.on("memory_operations", lambda req: raw(QWEN_ECHO))
    cache = ProbeCache(tmp_path / "modes.json")
    try:
        with _journal(tmp_path, server, cache) as m:
            for fact in FACTS[:4]:  # the first has nothing to compare with: three are asked
                m.add(fact)
        with _journal(tmp_path, server, ProbeCache(tmp_path / "modes.json")) as m:
            out = m.add(FACTS[4])
            assert _sorting_calls(server) == 3, "a journal opened again asked the echoing model again"
            [kept] = out["results"]
            assert kept["memory"] == FACTS[4] and m.history(kept["id"])[0]["note"] == NOT_ASKED
            # The model behind the address changes and compares: the next time it is asked, it counts.
            server.on("memory_operations", add_all)
            for fact in FACTS[5:12]:
                m.add(fact)
            assert _sorting_calls(server) == 4  # asked at the tenth step since the echoes began
            m.add("I visited museum number 12 in town")
            assert _sorting_calls(server) == 5, "a model that answered properly was still not asked"
    finally:
        server.close()


def test_testing_the_connection_again_does_not_forget_the_echoes(tmp_path):
    """Test connection asks the model every way again; the same model in the same mode still echoes."""
    server = FakeLLM(capabilities={"json_object"})
    server.on("memory_operations", lambda req: raw(QWEN_ECHO))
    try:
        with _journal(tmp_path, server) as m:
            for fact in FACTS[:4]:
                m.add(fact)
            assert _sorting_calls(server) == 3
            m.llm.client.probe(force=True, every_mode=True)
            m.add(FACTS[4])
            assert _sorting_calls(server) == 3, "the test of the connection made memoir ask the echoing model again"
    finally:
        server.close()


def _asked(server, purpose: str) -> int:
    return sum(r.get("_purpose") == purpose and "`memory_operations`" in (r["messages"][-1]["content"] or "")
               for r in server.calls())


def _tested_then_written(tmp_path, rule, facts: list[str]):
    """Test connection, then `facts` written as the app writes them (its writer's idle work after
    each); the server, and the memories stored."""
    from memoir_desktop.core.llm.connection import check_connection

    server = FakeLLM(capabilities={"json_object"})
    server.on("memory_operations", rule)
    try:
        with _journal(tmp_path, server) as m:
            check_connection(server.url, "qwen", probe_cache=m.probe_cache)
            for fact in facts:
                m.journal.write(fact)
                m.jobs.process(idle=True)
            return server, sorted(x["memory"] for x in m.get_all()["results"])
    finally:
        server.close()


def test_test_connection_finds_the_echo_before_any_entry_pays_for_it(tmp_path):
    server, stored = _tested_then_written(tmp_path, lambda req: raw(QWEN_ECHO), FACTS[:9])
    assert _asked(server, "update") == 0, "an entry waited for a step the model cannot do"
    # Test connection's made-up case (no journal text), and at the tenth skipped step the same again
    # while idle, not on an entry.
    assert _asked(server, "probe") == 2
    assert stored == sorted(FACTS[:9])


def test_a_model_that_sorts_the_made_up_case_is_asked_on_every_entry(tmp_path):
    server, _ = _tested_then_written(tmp_path, add_all, FACTS[:4])
    assert _asked(server, "probe") == 1 and _asked(server, "update") == 3
