"""Slow and small models finish: every request carries its purpose's reply cap, the time limit suits
where the server is, and a local server still generating is not sent the same work again."""

import json

import pytest

from memoir_desktop.core import config
from memoir_desktop.core.llm import PURPOSES, LLMClient
from memoir_desktop.core.llm.servers import default_timeout
from tests.fakes.fake_llm import FakeLLM, error


def test_every_request_carries_its_purposes_reply_cap(mem, fake_llm):
    mem.settings.graph_enabled = False
    mem.add("I like coffee")  # a memory to compare the next fact with
    mem.add("I like tea")
    mem.companion.chat("what do I like?")
    sent = {r["_purpose"]: r.get("max_tokens") for r in fake_llm.calls()}
    assert set(sent) >= {"probe", "extraction", "update", "answer"}
    # Extraction asks for less than its purpose's cap when the text it reads is short (test_prompt_cost.py).
    assert {k: v for k, v in sent.items() if k != "extraction"} == {
        name: PURPOSES[name].max_tokens for name in sent if name != "extraction"}
    assert 0 < sent["extraction"] <= PURPOSES["extraction"].max_tokens
    assert all(isinstance(n, int) and 0 < n <= 2048 for n in sent.values())


def test_the_caps_fit_what_each_stage_writes():
    caps = {name: p.max_tokens for name, p in PURPOSES.items()}
    assert caps["probe"] <= 256 and caps["followup"] <= 256  # one word; one or two sentences
    assert caps["extraction"] >= 1024 and caps["update"] >= 1024  # many facts from one long entry


def test_a_server_that_refuses_max_tokens_is_asked_without_it_from_then_on():
    server = FakeLLM()
    try:
        refusal = json.dumps({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this "
                                                   "model. Use 'max_completion_tokens' instead.",
                                        "type": "invalid_request_error", "param": "max_tokens"}})
        server.push(error(400, body=refusal))
        client = LLMClient(base_url=server.url, api_key="k", model="o-model", max_retries=0)
        assert client.probe().mode == "tools"
        first, second, *rest = server.calls()
        assert "max_tokens" in first and "max_tokens" not in second
        assert all("max_tokens" not in r for r in rest)
    finally:
        server.close()


def test_a_prompt_that_fits_only_without_the_reply_cap_is_sent_without_it():
    # vLLM counts max_tokens against the context: a prompt that fits alone was refused with the cap.
    server = FakeLLM()
    try:
        too_long = json.dumps({"error": {"message": "This model's maximum context length is 2048 tokens. However, "
                                                    "you requested 2600 tokens (1064 in the messages, 1536 in the "
                                                    "completion). Please reduce the length of the messages or "
                                                    "completion.", "type": "BadRequestError"}})
        server.push(error(400, body=too_long))
        client = LLMClient(base_url=server.url, api_key=None, model="m", max_retries=0)
        assert client.probe().mode == "tools"
        assert "max_tokens" in server.calls()[0] and "max_tokens" not in server.calls()[1]
    finally:
        server.close()


@pytest.mark.parametrize("url,seconds", [
    ("http://localhost:11434/v1", 300), ("http://127.0.0.1:8080/v1", 300), ("http://192.168.0.7:8000/v1", 300),
    ("http://10.1.2.3:1234/v1", 300), ("http://gpu-box.local:8080/v1", 300),
    ("https://api.openai.com/v1", 60), ("https://openrouter.ai/api/v1", 60), ("", 60), (None, 60),
])
def test_the_time_limit_is_generous_near_the_diarist_and_a_minute_elsewhere(url, seconds):
    assert default_timeout(url) == seconds
    assert LLMClient(base_url=url, api_key="k", model="m").timeout == seconds
    assert LLMClient(base_url=url, api_key="k", model="m", timeout=42).timeout == 42


def test_the_time_limit_comes_from_the_settings_and_the_environment(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    assert config.load_settings(home).llm_timeout_s == 0  # chosen by where the server is
    monkeypatch.setenv("MEMOIR_LLM_TIMEOUT", "450")
    assert config.load_settings(home).llm_timeout_s == 450.0
    monkeypatch.setenv("MEMOIR_LLM_TIMEOUT", "soon")
    assert config.load_settings(home).llm_timeout_s == 0


def test_the_minute_earlier_versions_saved_for_every_server_is_read_as_chosen_by_memoir(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"version": 1, "llm_base_url": "http://localhost:8080/v1",
                                                    "llm_timeout_s": 60.0}))
    assert config.load_settings(home).llm_timeout_s == 0
    config.persist(home, config.load_settings(home), llm_timeout_s=60.0)  # chosen now: kept
    assert config.load_settings(home).llm_timeout_s == 60.0


def test_a_smaller_cap_asked_for_by_a_stage_is_dropped_like_the_purposes_when_it_does_not_fit(mem, fake_llm):
    """Extraction asks for less than its purpose's cap; vLLM's "too long" for prompt + cap still sends
    the prompt again without a cap, rather than reading the entry in smaller parts."""
    too_long = json.dumps({"error": {"message": "This model's maximum context length is 2048 tokens. However, "
                                                "you requested 2100 tokens (1800 in the messages, 300 in the "
                                                "completion). Please reduce the length of the messages or "
                                                "completion.", "type": "BadRequestError"}})
    mem.llm.client.probe()
    fake_llm.push(error(400, body=too_long))
    mem.journal.write("첼로를 배우기 시작했다", timestamp="2026-11-29T21:00")
    mem.jobs.process()
    first, second, *_ = fake_llm.calls("save_facts")
    assert 0 < first["max_tokens"] < PURPOSES["extraction"].max_tokens and "max_tokens" not in second
    assert "(left out)" not in second["messages"][1]["content"]  # the same prompt, context and all
    assert [m["memory"] for m in mem.get_all()["results"]] == ["첼로를 배우기 시작했다"]
