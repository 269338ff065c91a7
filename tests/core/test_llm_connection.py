"""Test connection, as Settings and the command line run it: each step said as it happens, each
way of asking judged, the speed measured and an entry's time estimated, with the configured limit."""

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm.connection import check_connection
from tests.fakes.fake_llm import FakeLLM, recorded_refusals

COUNT = ", ".join(f"n{i}" for i in range(1, 41))  # forty words: forty streamed pieces


def llama_cpp_like(**kw) -> FakeLLM:
    server = FakeLLM(refuses={"json_schema": recorded_refusals("llama_cpp")["json_schema"]}, tools_ignored=True, **kw)
    server.on_text(lambda req: COUNT)
    return server


def test_a_server_that_refuses_a_mode_is_reachable_with_each_verdict_and_a_speed():
    server = llama_cpp_like(token_delay=0.01)
    steps: list[str] = []
    try:
        report = check_connection(server.url, "qwen", progress=steps.append)
        assert report.ok and report.reachable and report.mode == "json_object"
        assert report.verdicts["tools"].startswith("unusable")
        assert report.verdicts["json_schema"].startswith("refused") and "json_object" in report.verdicts["json_schema"]
        assert report.verdicts["json_object"] == "ok" and set(report.verdicts) == {"tools", "json_schema",
                                                                                     "json_object", "text"}
        assert report.models == ["fake-model"] and report.timeout_s == 300
        # Forty pieces 10 ms apart: about a hundred a second, well below the unthrottled fake's rate.
        assert report.tokens_per_s is not None and 30 < report.tokens_per_s < 110
        assert report.seconds_per_entry is not None and report.seconds_per_entry > 0
        assert steps[0].startswith("Connecting to 127.0.0.1:") and any("JSON mode" in s for s in steps)
        assert steps[-1].startswith("Timing")
    finally:
        server.close()


def test_the_estimate_grows_with_a_slower_model():
    fast, slow = llama_cpp_like(token_delay=0.0), llama_cpp_like(token_delay=0.02)
    try:
        quick = check_connection(fast.url, "qwen")
        slower = check_connection(slow.url, "qwen")
        assert slower.tokens_per_s < quick.tokens_per_s
        assert slower.seconds_per_entry > quick.seconds_per_entry
    finally:
        fast.close()
        slow.close()


def test_nothing_running_at_the_address_is_a_report_not_an_exception():
    report = check_connection("http://127.0.0.1:9/v1", "qwen", timeout_s=5)
    assert not report.reachable and not report.ok and report.problem_kind == "not_running"
    assert "127.0.0.1:9 is not running" in report.problem and report.timeout_s == 5


def test_memoirs_connection_test_uses_the_configured_limit_not_a_fixed_one(tmp_path):
    server = llama_cpp_like()
    try:
        with Memoir.open(tmp_path / "home", llm_timeout_s=123.0) as m:
            report = m.connection.check_connection(server.url, "qwen")
            assert report.ok and report.timeout_s == 123.0
            result = m.connection.test(server.url, "qwen")
            assert result["mode"] == "json_object" and result["timeout_s"] == 123.0
            assert result["seconds_per_entry"] > 0
            assert m.probe_cache.get(f"{server.url}|qwen").mode == "json_object"  # saving needs no second probe
    finally:
        server.close()


def test_the_estimate_counts_what_a_nearby_server_has_read_ahead_and_a_skipped_step():
    """A server nearby reads the next entry's beginning while memoir is idle, and a model that echoes
    the sorting step's example is not asked it: Qwen2.5 0.5B then took 3-6 s an entry, not the 22 s the
    whole prompts would (real-llm-qwen.txt)."""
    from memoir_desktop.core.llm.connection import seconds_per_entry
    from memoir_desktop.core.llm.probe import Speed

    speed = Speed(first_token_s=4.0, tokens_per_s=16.0, prompt_tokens=500, tokens=40)
    whole = seconds_per_entry(speed, 0.1, read_ahead=False, sorting=True)
    ahead = seconds_per_entry(speed, 0.1, read_ahead=True, sorting=True)
    unsorted = seconds_per_entry(speed, 0.1, read_ahead=True, sorting=False)
    assert whole and ahead and unsorted
    assert unsorted < ahead < whole and 5 < unsorted < 9 < 15 < whole
