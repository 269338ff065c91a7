"""A server that refuses a way of asking is not a server that is down.

llama.cpp's server (llama-cpp-python) answers a json_schema request with HTTP 500 and a validation
error, and accepts tools with the chatml format only to ignore them; the bodies here are the ones it
sent (tests/data/llm_servers/llama_cpp.json).
"""

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm import LLMClient
from memoir_desktop.core.llm.probe import Capabilities, ProbeCache, endpoint_key
from tests.fakes.fake_llm import FakeLLM, raw, recorded_refusals, request_mode

LLAMA_CPP = recorded_refusals("llama_cpp")


def llama_cpp_like() -> FakeLLM:
    return FakeLLM(refuses={"json_schema": LLAMA_CPP["json_schema"]}, tools_ignored=True)


def sent(server, mode):
    return [r for r in server.calls() if request_mode(r) == mode]


def test_the_recording_holds_llama_cpps_500_for_json_schema():
    status, body = LLAMA_CPP["json_schema"]
    assert status == 500 and "json_object" in body and "response_format" in body


def test_the_probe_moves_past_a_refused_mode_to_the_one_that_answers():
    server = llama_cpp_like()
    try:
        client = LLMClient(base_url=server.url, api_key=None, model="qwen", max_retries=2, backoff_base=0.01)
        caps = client.probe()
        assert caps.mode == "json_object"
        assert caps.tried["json_schema"].startswith("refused") and "json_object" in caps.tried["json_schema"]
        assert caps.tried["tools"].startswith("unusable")
        assert len(sent(server, "json_schema")) == 1, "a refusal was sent again as if the server were down"
    finally:
        server.close()


def test_a_structured_call_in_a_mode_the_server_now_refuses_moves_down_and_remembers(tmp_path):
    server = llama_cpp_like()
    try:
        cache = ProbeCache(tmp_path / "modes.json")
        # Remembered from before the model behind this address was swapped for one llama.cpp serves.
        cache.put(endpoint_key(server.url, "qwen"), Capabilities("json_schema", "2026-01-01T00:00:00"))
        with Memoir.open(tmp_path / "home", llm_base_url=server.url, llm_model="qwen", llm_max_retries=2) as m:
            m.llm.client.cache = cache
            m.llm.client.backoff_base = 0.01
            out = m.add("I like tea")
            assert [r["memory"] for r in out["results"]] == ["I like tea"]
            assert m.jobs.status()["llm"]["mode"] == "json_object"
            assert len(sent(server, "json_schema")) == 1
    finally:
        server.close()


def test_a_journal_on_llama_cpp_makes_memories_and_test_connection_says_how(tmp_path):
    server = llama_cpp_like()
    try:
        with Memoir.open(tmp_path / "home", llm_base_url=server.url, llm_model="qwen", llm_max_retries=2) as m:
            m.llm.client.backoff_base = 0.01
            m.settings.graph_enabled = False
            for text in ("I like tea", "My sister lives in Busan"):
                m.journal.write(text)
            assert [r["state"] for r in m.jobs.process()] == ["done", "done"]
            assert sorted(x["memory"] for x in m.get_all()["results"]) == ["I like tea", "My sister lives in Busan"]
            assert m.connection.test(server.url, "qwen")["mode"] == "json_object"
    finally:
        server.close()


def test_a_retry_one_mode_down_that_is_refused_leaves_the_working_mode_remembered(tmp_path):
    server = FakeLLM(refuses={"json_schema": LLAMA_CPP["json_schema"]})
    try:
        with Memoir.open(tmp_path / "home", llm_base_url=server.url, llm_model="qwen", llm_max_retries=2) as m:
            m.llm.client.backoff_base = 0.01
            m.add("I like tea")
            assert m.jobs.status()["llm"]["mode"] == "tools"
            server.on("save_facts", lambda req: raw("no idea"))
            m.journal.write("I like coffee")
            [res] = m.jobs.process()
            assert res["state"] == "failed" and "no idea" in m.jobs.all("failed")[0]["raw_reply"]
            assert m.jobs.status()["llm"]["mode"] == "tools"
    finally:
        server.close()
