"""memoir-cli exit codes and one-line errors."""

import json
import os
import subprocess
import sys


def cli(home, *args, env_extra=None):
    env = dict(os.environ, MEMOIR_HOME=str(home), **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "memoir_desktop.cli", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_cli_journal_search_history_forget_restore(tmp_path, fake_llm):
    env = {"MEMOIR_LLM_BASE_URL": fake_llm.url, "MEMOIR_LLM_MODEL": "fake"}
    r = cli(tmp_path, "journal", "I keep bees on the roof", env_extra=env)
    assert r.returncode == 0, r.stderr
    r = cli(tmp_path, "--json", "search", "bees", env_extra=env)
    hits = json.loads(r.stdout)
    assert hits[0]["memory"] == "I keep bees on the roof"
    mid = hits[0]["id"]
    assert cli(tmp_path, "forget", mid).returncode == 0
    assert json.loads(cli(tmp_path, "--json", "search", "bees").stdout) == []
    assert cli(tmp_path, "restore", mid).returncode == 0
    hist = json.loads(cli(tmp_path, "--json", "history", mid).stdout)
    assert [h["event"] for h in hist] == ["ADD", "DELETE", "RESTORE"]
    r = cli(tmp_path, "export", str(tmp_path / "out.json"))
    assert r.returncode == 0 and "memories" in r.stdout


def test_cli_exit_3_when_llm_unavailable(tmp_path):
    r = cli(tmp_path, "journal", "saved while offline",
            env_extra={"MEMOIR_LLM_BASE_URL": "http://127.0.0.1:9/v1"})
    assert r.returncode == 3
    assert "saved" in r.stdout
    assert "Traceback" not in r.stderr
    jobs = json.loads(cli(tmp_path, "--json", "jobs").stdout)
    assert jobs[0]["state"] == "pending"


def test_cli_bad_usage_and_errors_are_one_line(tmp_path):
    r = cli(tmp_path, "frobnicate")
    assert r.returncode == 2
    r = cli(tmp_path, "journal", "   ")
    assert r.returncode == 2 and "empty" in r.stderr and "Traceback" not in r.stderr
    r = cli(tmp_path, "history", "no-such-id")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
