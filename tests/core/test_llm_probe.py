"""Each server is asked the way it answers best: the probe, its cache, and the 400s it must tell apart."""

import json

import pytest

from memoir_desktop.core import Memoir
from tests.fakes.fake_llm import FakeLLM, error, raw, tool


def open_mem(home, server, model="fake-model"):
    m = Memoir.open(home, llm_base_url=server.url, llm_model=model, llm_max_retries=1)
    m.llm.client.backoff_base = 0.01
    return m


def probes(server):
    return [r for r in server.calls() if "memoir_check" in json.dumps(r)]


@pytest.mark.parametrize("capabilities,mode", [
    ({"tools", "json_schema", "json_object"}, "tools"),
    ({"json_schema", "json_object"}, "json_schema"),
    ({"json_object"}, "json_object"),
    (set(), "text"),
])
def test_each_server_gets_the_mode_it_supports(tmp_path, capabilities, mode):
    server = FakeLLM(capabilities=capabilities)
    try:
        with open_mem(tmp_path / "home", server) as m:
            out = m.add("나는 판교에서 일해")
            assert [r["memory"] for r in out["results"]] == ["나는 판교에서 일해"]
            assert m.jobs.status()["llm"]["mode"] == mode
            last = server.calls("save_facts") or [r for r in server.calls() if "save_facts" in json.dumps(r)]
            assert last, "the extraction call was made"
            # No request after the probe used a feature the server lacks.
            assert not any(r.get("tools") for r in server.calls()[len(probes(server)):]) or mode == "tools"
    finally:
        server.close()


def test_the_mode_is_remembered_per_endpoint_and_probed_again_for_another_model(tmp_path):
    server = FakeLLM(capabilities={"json_object"})
    try:
        with open_mem(tmp_path / "home", server) as m:
            m.add("I like tea")
        first = len(probes(server))
        assert first >= 1
        with open_mem(tmp_path / "home", server) as m:
            m.add("I like coffee")
            assert m.jobs.status()["llm"]["mode"] == "json_object"
        assert len(probes(server)) == first, "a known endpoint was probed again"
        with open_mem(tmp_path / "home", server, model="other-model") as m:
            m.add("I like cocoa")
        assert len(probes(server)) > first
    finally:
        server.close()


def test_a_context_length_400_is_not_a_missing_feature(tmp_path):
    server = FakeLLM(max_prompt_chars=3_000)
    try:
        with open_mem(tmp_path / "home", server) as m:
            m.settings.graph_enabled = False
            for i in range(12):  # recent messages and a summary grow the prompt past the limit
                m.journal.write(f"{i}번째 기록: 오늘은 동네 도서관에서 책을 읽고 산책을 했다. " * 4)
            results = m.jobs.process()
            assert all(r["state"] == "done" for r in results), [r.get("error") for r in results]
            assert m.jobs.status()["llm"]["mode"] == "tools"
            assert not any(r.get("response_format") for r in server.calls()), "moved off tool calls"
            assert any("(left out)" in json.dumps(r, ensure_ascii=False) for r in server.calls("save_facts"))
    finally:
        server.close()


def test_a_prompt_too_long_even_alone_fails_the_job_visibly(tmp_path):
    server = FakeLLM(max_prompt_chars=2_600)
    try:
        with open_mem(tmp_path / "home", server) as m:
            m.settings.graph_enabled = False
            m.journal.write("긴 글 " * 2000)
            [res] = m.jobs.process()
            # Chunked down to the smallest size the extraction uses, the prompt (its rules and
            # examples alone) still does not fit: the job fails, says why, and can be retried.
            assert res["state"] == "failed" and "context window" in res["error"]
            assert m.jobs.status()["llm"]["mode"] == "tools"
    finally:
        server.close()


def test_a_working_mode_is_kept_through_unusable_replies(tmp_path):
    # Unusable replies used to make the client forget the mode after three, and the probe that
    # followed, on a server that refused a mode with HTTP 500, stopped the queue for good.
    server = FakeLLM()
    try:
        with open_mem(tmp_path / "home", server) as m:
            m.add("I like tea")
            before = len(probes(server))
            server.on("save_facts", lambda req: raw("sorry, I can't do that"))
            for text in ("a", "b", "c"):
                m.journal.write(text)
                [res] = m.jobs.process()
                assert res["state"] == "failed" and "sorry" in m.jobs.all("failed")[-1]["raw_reply"]
            assert m.llm.capabilities is not None and m.llm.capabilities.mode == "tools"
            server.on("save_facts", lambda req: tool({"facts": ["I like cake"]}))
            assert [r["memory"] for r in m.add("I like cake")["results"]] == ["I like cake"]
            assert len(probes(server)) == before, "the endpoint was probed again"
    finally:
        server.close()


def test_a_missing_tool_feature_found_mid_session_moves_down_and_is_remembered(tmp_path):
    server = FakeLLM()
    try:
        with open_mem(tmp_path / "home", server) as m:
            m.add("I like tea")
            server.tools_supported = False  # the user swapped the model behind the same name
            out = m.add("I like coffee")
            assert [r["memory"] for r in out["results"]] == ["I like coffee"]
            assert m.jobs.status()["llm"]["mode"] == "json_schema"
    finally:
        server.close()


def test_an_unreachable_server_is_not_cached_as_a_text_only_one(tmp_path):
    server = FakeLLM()
    try:
        with open_mem(tmp_path / "home", server) as m:
            server.push(error(503), times=2)  # both attempts of the probe's call
            m.journal.write("I like tea")
            assert m.jobs.process()[0]["state"] == "pending"
            assert m.llm.capabilities is None
            assert m.jobs.process()[0]["state"] == "done"
            assert m.jobs.status()["llm"]["mode"] == "tools"
    finally:
        server.close()
