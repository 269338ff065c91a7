"""Every job that waits says why, and a new entry is tried when it is written, whatever an older one
waits on (only the oldest waiting job had a reason, and a new entry's job queued behind it)."""

from __future__ import annotations

import socket

from memoir_desktop.core import Memoir
from tests.cli_in_process import run_cli
from tests.fakes.fake_llm import FakeLLM, slow, tool, user_lines


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_every_waiting_job_says_the_server_is_down_and_since_when(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with Memoir.open(tmp_path / "home", llm_base_url=url, llm_model="m", llm_max_retries=0) as m:
        for text in ("Walked the dog at dawn", "Bought a new kettle", "Called grandma"):
            m.journal.write(text)
        m.jobs.process()
        waiting = m.jobs.all("pending")
        assert len(waiting) == 3
        for job in waiting:  # not only the one that was tried
            assert job["reason"]["kind"] == "not_running", job
            assert "127.0.0.1" in job["reason"]["text"] and job["reason"]["since"]


def test_without_an_ai_each_job_says_none_is_connected(tmp_path):
    with Memoir.open(tmp_path / "home", llm_base_url="", llm_model="m") as m:
        m.journal.write("A quiet Sunday")
        [job] = m.jobs.all("pending")
        assert job["reason"]["kind"] == "not_configured"


def test_a_new_entry_is_tried_when_written_while_an_older_one_waits(tmp_path):
    llm = FakeLLM()
    try:
        # The older entry's extraction outlasts the time limit every time; any other answers at once.
        llm.on("save_facts", lambda req: slow(3.0, tool({"facts": user_lines(req)}))
               if any("long story" in line for line in user_lines(req)) else tool({"facts": user_lines(req)}))
        with Memoir.open(tmp_path / "home", llm_base_url=llm.url, llm_model="m", llm_timeout_s=0.5,
                         llm_max_retries=0) as m:
            m.llm.client.backoff_base = 0.01
            m.journal.write("A long story about the move")
            [first] = m.jobs.process()
            assert first["state"] == "pending" and first["error_kind"] == "timeout"
            new = m.journal.write("I drink green tea every morning")
            [tried] = m.jobs.process(limit=1)
            assert tried["state"] == "done" and tried["result"]["results"], tried
            assert [mm["memory"] for mm in m.get_all()["results"]] == ["I drink green tea every morning"]
            [older] = [j for j in m.jobs.all("pending") if j["kind"] == "memorize"]  # the new one's graph follows
            assert older["payload"]["entry_ids"] != [new]
            assert older["reason"]["kind"] == "timeout" and "0.5 s" in older["reason"]["text"]
    finally:
        llm.close()


def test_the_cli_lists_why_each_job_waits(tmp_path):
    home = tmp_path / "home"
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    env = {"MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": "a long enough passphrase", "MEMOIR_LLM_BASE_URL": url,
           "MEMOIR_LLM_MODEL": "m"}
    for text in ("first", "second"):
        assert run_cli("journal", text, env=env).returncode in (0, 3)
    out = run_cli("jobs", env=env)
    lines = [line for line in out.stdout.splitlines() if "pending" in line]
    assert len(lines) == 2 and all("is not running" in line and "since" in line for line in lines), out.stdout


def test_the_cli_tests_a_connection_and_says_how_long_an_entry_takes(tmp_path):
    llm = FakeLLM()
    try:
        env = {"MEMOIR_HOME": str(tmp_path / "home")}
        ok = run_cli("llm", "test", "--url", llm.url, "--model", "fake-model", env=env)
        assert ok.returncode == 0, ok.stdout + ok.stderr
        assert "answers" in ok.stdout and "an entry takes about" in ok.stdout
        gone = run_cli("llm", "test", "--url", f"http://127.0.0.1:{_closed_port()}/v1", "--model", "m", env=env)
        assert gone.returncode == 3 and "is not running" in gone.stdout
    finally:
        llm.close()
