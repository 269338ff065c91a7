"""memoir-cli exit codes and one-line errors.

Run in-process (tests/cli_in_process.py), each call as a fresh process would start; the one test that
needs the real process (the exit status a shell sees, no traceback) runs it as one."""

import json
import os
import subprocess
import sys

from tests.cli_in_process import run_cli

PASSPHRASE = "cli test passphrase"


def cli(home, *args, env_extra=None):
    # Headless: a process has no keyring of its own here, so the passphrase opens the journal.
    return run_cli(*args, env={"MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": PASSPHRASE, **(env_extra or {})})


def cli_process(home, *args, env_extra=None):
    env = {**os.environ, "MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": PASSPHRASE, **(env_extra or {})}
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
    r = cli_process(tmp_path, "journal", "saved while offline",
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


def test_cli_entries_edit_move_delete_restore_trash_and_search(tmp_path, fake_llm):
    env = {"MEMOIR_LLM_BASE_URL": fake_llm.url, "MEMOIR_LLM_MODEL": "fake"}
    eid = json.loads(cli(tmp_path, "--json", "journal", "퇴근길에 붕어빵을 샀다", "--date", "2026-03-10T20:00",
                         env_extra=env).stdout)["entry_id"]
    found = json.loads(cli(tmp_path, "--json", "entries", "--search", "붕어빵", env_extra=env).stdout)
    assert [e["id"] for e in found] == [eid]
    r = cli(tmp_path, "entry", "edit", str(eid), "퇴근길에 호떡을 샀다", env_extra=env)
    assert r.returncode == 0 and "re-read" in r.stdout, r.stderr
    r = cli(tmp_path, "entry", "move", str(eid), "2026-03-11T09:30", env_extra=env)
    assert r.returncode == 0 and "2026-03-11 09:30" in r.stdout.replace("T", " "), r.stdout
    r = cli(tmp_path, "entry", "private", str(eid), env_extra=env)
    assert r.returncode == 0 and "no LLM reads it" in r.stdout, r.stderr
    assert json.loads(cli(tmp_path, "--json", "entries").stdout)[0]["private"] is True
    assert cli(tmp_path, "entry", "share", str(eid), env_extra=env).returncode == 0
    hist = json.loads(cli(tmp_path, "--json", "entry", "history", str(eid)).stdout)
    assert [h["event"] for h in hist] == ["EDIT", "MOVE", "PRIVATE", "SHARED"]
    assert cli(tmp_path, "entry", "delete", str(eid)).returncode == 0
    assert json.loads(cli(tmp_path, "--json", "entries").stdout) == []
    assert [e["id"] for e in json.loads(cli(tmp_path, "--json", "trash").stdout)] == [eid]
    assert cli(tmp_path, "entry", "restore", str(eid)).returncode == 0
    assert [e["content"] for e in json.loads(cli(tmp_path, "--json", "entries").stdout)] == ["퇴근길에 호떡을 샀다"]
    r = cli(tmp_path, "entry", "purge", str(eid))
    assert r.returncode == 2 and "trash" in r.stderr  # only from the trash
    r = cli(tmp_path, "export", str(tmp_path / "days"), "--format", "md", "--per-day")
    assert r.returncode == 0 and (tmp_path / "days" / "2026-03-11.md").exists()


def test_cli_encrypted_journal_wrong_passphrase_recovery_key_and_encrypted_export(tmp_path):
    r = cli(tmp_path, "journal", "비밀 일기 secret-cli-4471", "--no-process", "--private")
    assert r.returncode == 0, r.stderr
    assert "recovery key" in r.stderr
    recovery = r.stderr.strip().splitlines()[-1].strip()
    assert (tmp_path / "memoir.key").exists()
    r = cli(tmp_path, "entries", env_extra={"MEMOIR_PASSPHRASE": "a wrong passphrase"})
    assert r.returncode == 4
    assert "does not open this journal. Nothing was changed" in r.stderr and "Traceback" not in r.stderr
    r = cli(tmp_path, "--json", "entries", env_extra={"MEMOIR_PASSPHRASE": recovery})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["private"] is True
    r = cli(tmp_path, "export", str(tmp_path / "out.json"), "--encrypt",
            env_extra={"MEMOIR_EXPORT_PASSPHRASE": "export passphrase"})
    assert r.returncode == 0, r.stderr
    assert b"secret-cli-4471" not in (tmp_path / "out.json").read_bytes()
    other = tmp_path / "other"
    r = cli(other, "import", str(tmp_path / "out.json"), env_extra={"MEMOIR_EXPORT_PASSPHRASE": "not it, sorry"})
    assert r.returncode == 4 and "Nothing was imported" in r.stderr
    r = cli(other, "import", str(tmp_path / "out.json"), env_extra={"MEMOIR_EXPORT_PASSPHRASE": "export passphrase"})
    assert r.returncode == 0, r.stderr
    r = cli(tmp_path, "privacy")
    assert r.returncode == 0 and "Private entries" in r.stdout


def test_cli_encrypt_converts_a_plain_journal(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path, encrypt=False) as m:
        m.journal.write("plain words here-5512")
    r = cli(tmp_path, "entries")
    assert "not encrypted" in r.stderr
    r = cli(tmp_path, "encrypt")
    assert r.returncode == 0, r.stderr
    assert b"here-5512" not in (tmp_path / "memoir.db").read_bytes()
    r = cli(tmp_path, "--json", "entries")
    assert r.returncode == 0 and json.loads(r.stdout)[0]["content"] == "plain words here-5512"


def test_cli_installs_the_reranker_from_a_folder(tmp_path):
    from tests.fakes.tiny_models import make_cross_encoder

    tiny = make_cross_encoder(tmp_path / "tiny", ["사랑니를 뽑았다"])
    models = tmp_path / "models"
    r = cli(tmp_path / "home", "model", "--reranker", "--from", str(tiny), env_extra={"MEMOIR_MODELS_DIR": str(models)})
    assert r.returncode == 0, r.stderr
    assert (models / "reranker-mminilm-l12" / "manifest.json").is_file() and "Settings" in r.stdout
    r = cli(tmp_path / "home", "model", "--reranker", "--from", str(tmp_path / "nowhere"),
            env_extra={"MEMOIR_MODELS_DIR": str(models)})
    assert r.returncode == 1 and "holds no model.onnx" in r.stderr and "Traceback" not in r.stderr


def test_cli_installs_the_larger_embedder_and_switches_search_to_it(tmp_path):
    from memoir_desktop.core import Memoir
    from tests.fakes.tiny_models import make_embedder

    with Memoir.open(tmp_path / "home", encrypt=False) as m:
        m.add([{"role": "user", "content": "사랑니를 뽑았다"}], infer=False)
    tiny = make_embedder(tmp_path / "tiny", ["사랑니를 뽑았다"])
    env = {"MEMOIR_MODELS_DIR": str(tmp_path / "models")}
    r = cli(tmp_path / "home", "search-model", "bge-m3", env_extra=env)
    assert r.returncode == 1 and "not downloaded" in r.stderr and "Traceback" not in r.stderr
    r = cli(tmp_path / "home", "model", "--embedder", "--from", str(tiny), env_extra=env)
    assert r.returncode == 0, r.stderr
    r = cli(tmp_path / "home", "search-model", "bge-m3", env_extra=env)
    assert r.returncode == 0 and "search now uses bge-m3" in r.stdout, r.stderr
    r = cli(tmp_path / "home", "--json", "status", env_extra=env)
    assert json.loads(r.stdout)["embedder"]["active"] == "bge-m3"
