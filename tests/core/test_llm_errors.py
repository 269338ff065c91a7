"""What a diarist reads when the model cannot be used: the server's address, the likely cause and
what to do, never an exception's class name (errors.explain)."""

import json
import re

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm import LLMClient, LLMUnavailable
from memoir_desktop.core.llm.errors import address, explain, refusal
from tests.fakes.fake_llm import FakeLLM, Reply, error, recorded_refusals

CLASS_NAME = re.compile(r"[A-Za-z]+(?:Error|Exception)\b")


def client_for(url, model="qwen", **kw):
    return LLMClient(base_url=url, api_key=None, model=model, max_retries=kw.pop("max_retries", 0),
                     backoff_base=0.01, **kw)


def failure(client) -> LLMUnavailable:
    with pytest.raises(LLMUnavailable) as caught:
        client.probe()
    assert not CLASS_NAME.search(str(caught.value)), str(caught.value)
    return caught.value


def test_addresses_are_host_and_port():
    assert address("http://127.0.0.1:8080/v1") == "127.0.0.1:8080"
    assert address("http://localhost:11434/v1/") == "localhost:11434"
    assert address("https://api.example.com/v1") == "api.example.com"
    assert address(None) == "api.openai.com"


def test_a_server_that_is_not_running_is_named_by_its_address():
    exc = failure(client_for("http://127.0.0.1:9/v1"))
    assert exc.kind == "not_running"
    assert "127.0.0.1:9 is not running" in str(exc) and "Settings → AI companion" in str(exc)


def test_an_unknown_host_name_is_said_so():
    exc = failure(client_for("http://no-such-host.invalid:8080/v1"))
    assert exc.kind == "unreachable" and "no-such-host.invalid" in str(exc)


@pytest.mark.parametrize("status,body,kind,words", [
    (401, '{"error": {"message": "Incorrect API key provided"}}', "key_refused", "refused the API key"),
    (404, '{"error": {"message": "model \\"qwen9\\" not found, try pulling it first"}}', "model_unknown",
     "does not know the model “qwen9”"),
    (503, '{"error": {"message": "loading model"}}', "server_error", "reported an error (HTTP 503): loading model"),
    # llama-cpp-python after a reply ran its context out: the same for every request until restarted.
    (500, '{"error": {"message": "llama_decode returned 1"}}', "server_error", "restart the model server"),
])
def test_a_server_that_answers_with_an_error_is_quoted_in_its_own_words(status, body, kind, words):
    server = FakeLLM()
    try:
        server.push(error(status, body=body), times=3)
        exc = failure(client_for(server.url, model="qwen9"))
        assert exc.kind == kind and words in str(exc), str(exc)
        assert f"127.0.0.1:{server.url.split(':')[2].split('/')[0]}" in str(exc)
    finally:
        server.close()


def test_a_timeout_names_the_limit_and_where_to_raise_it_and_is_not_sent_again_to_a_local_server():
    server = FakeLLM()
    try:
        server.push(Reply("hang", 3), times=3)
        exc = failure(client_for(server.url, timeout=0.5, max_retries=2))
        assert exc.kind == "timeout"
        assert "took longer than 0.5 s" in str(exc) and "raise the limit in Settings → AI companion" in str(exc)
        assert "did not ask again" in str(exc)
        assert len(server.calls()) == 1, "a local server still generating was sent the request again"
    finally:
        server.close()


def test_a_timeout_on_a_remote_server_is_retried():
    server = FakeLLM()
    try:
        server.push(Reply("hang", 2), times=1)
        client = client_for(server.url, timeout=0.5, max_retries=1)
        client.nearby = False  # as if it were a service elsewhere
        assert client.probe().mode == "tools"
        assert len([r for r in server.calls() if r.get("tools")]) == 2
    finally:
        server.close()


def test_a_journal_whose_server_is_down_says_so_in_the_job():
    import tempfile

    with tempfile.TemporaryDirectory() as home, \
            Memoir.open(home, llm_base_url="http://127.0.0.1:9/v1", llm_max_retries=0) as m:
        m.journal.write("a quiet day")
        [res] = m.jobs.process()
        assert res["state"] == "pending" and "127.0.0.1:9 is not running" in res["error"]
        assert not CLASS_NAME.search(res["error"])


class StatusError(Exception):
    """What errors.refusal reads of the SDK's errors: the status and the parsed body."""

    def __init__(self, status, body):
        super().__init__(str(body))
        self.status_code, self.body = status, body


def test_refusals_are_told_from_outages():
    llama_500 = json.loads(recorded_refusals("llama_cpp")["json_schema"][1])
    schema_req = {"messages": [], "response_format": {"type": "json_schema"}, "max_tokens": 200}
    assert refusal(StatusError(500, llama_500), schema_req) == "no_format"
    assert refusal(StatusError(500, llama_500), {"messages": [], "max_tokens": 200}) is None
    crash = {"error": {"message": "CUDA error: out of memory"}}
    assert refusal(StatusError(500, crash), schema_req) is None
    assert refusal(StatusError(503, {"error": {"message": "loading model"}}), schema_req) is None
    openai_max = {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                       "Use 'max_completion_tokens' instead.", "param": "max_tokens"}}
    assert refusal(StatusError(400, openai_max), {"messages": [], "max_tokens": 1536}) == "no_max_tokens"
    said = explain(StatusError(500, llama_500), base_url="http://127.0.0.1:8080/v1")
    assert said.kind == "server_error" and "127.0.0.1:8080" in said.text and "Input should be" in said.text


def test_a_prompt_too_long_is_said_with_the_servers_words():
    from memoir_desktop.core.llm import Gate
    from memoir_desktop.core.llm.errors import LLMPromptTooLong

    server = FakeLLM(max_prompt_chars=100)
    try:
        gate = Gate(client_for(server.url), None)
        with pytest.raises(LLMPromptTooLong) as caught:
            gate.complete("answer", [{"role": "user", "content": "a long question " * 20}])
        said = str(caught.value)
        assert said.startswith("answer: The prompt is longer than the context window of the model at 127.0.0.1:")
        assert "maximum context length is 4096 tokens" in said and not CLASS_NAME.search(said)
    finally:
        server.close()
