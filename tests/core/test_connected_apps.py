"""Connected apps (core/apps/connected_apps.py): who asked, what each may do, and a log without text."""

import sqlite3
import sysconfig

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.apps import app_suggestions, connected_apps
from memoir_desktop.core.db import SCHEMA_VERSION
from memoir_desktop.core.inputs import InvalidInput, NotFound


@pytest.fixture
def mem(tmp_path):
    with Memoir.open(tmp_path / "home", encrypt=False) as m:
        yield m


def test_a_new_app_gets_the_defaults_and_keeps_its_grants(mem):
    first = connected_apps.seen(mem.engine, "Claude Desktop")
    assert (first["allowed"], first["read_memories"], first["propose"], first["read_entries"],
            first["write_directly"]) == (True, True, True, False, False)
    mem.apps.set_app_grant("Claude Desktop", "read_entries", True)
    mem.apps.pause_app("Claude Desktop")
    again = connected_apps.seen(mem.engine, "Claude Desktop")
    assert again["paused"] and again["read_entries"] and not again["write_directly"]
    assert again["first_seen"] == first["first_seen"]
    mem.apps.pause_app("Claude Desktop", paused=False)
    assert [a["name"] for a in mem.apps.connected_apps()] == ["Claude Desktop"]
    assert mem.apps.connected_apps()[0]["allowed"]


def test_names_are_one_bounded_line_and_unknowns_are_refused(mem):
    assert connected_apps.seen(mem.engine, "  Cur\nsor  ")["name"] == "Cur sor"
    assert connected_apps.seen(mem.engine, "")["name"] == connected_apps.UNNAMED
    assert len(connected_apps.seen(mem.engine, "x" * 500)["name"]) == connected_apps.MAX_NAME
    with pytest.raises(NotFound):
        mem.apps.set_app_grant("never connected", "allowed", False)
    with pytest.raises(InvalidInput):
        mem.apps.set_app_grant("Cur sor", "delete_everything", True)


def test_the_log_is_newest_first_bounded_and_holds_no_text(mem):
    for n in range(5):
        connected_apps.log_call(mem.engine, "Cursor", "search_memories", items=n)
    connected_apps.log_call(mem.engine, "VS Code", "get_memory", outcome=connected_apps.REFUSED)
    log = mem.apps.app_log()
    assert [(c["app"], c["tool"], c["items"]) for c in log[:2]] == [("VS Code", "get_memory", 0),
                                                                   ("Cursor", "search_memories", 4)]
    assert set(log[0]) == {"at", "app", "tool", "items", "outcome"}
    assert len(mem.apps.app_log(limit=3)) == 3 and len(mem.apps.app_log(app="Cursor")) == 5


def test_a_suggestion_becomes_a_memory_only_when_accepted(mem):
    a = app_suggestions.suggest(mem.engine, "Cursor", app_suggestions.checked_text(" 고양이 이름은\n나비다 "))
    b = app_suggestions.suggest(mem.engine, "Cursor", "The diarist hates cilantro")
    again = app_suggestions.suggest(mem.engine, "Cursor", "The diarist hates cilantro")
    assert again["id"] == b["id"] and [x["text"] for x in mem.apps.memory_suggestions()] == ["고양이 이름은 나비다",
                                                                                         "The diarist hates cilantro"]
    made = mem.memories.decide_suggestion(a["id"], accept=True)
    assert mem.get(made.memory_id)["memory"] == "고양이 이름은 나비다"
    assert mem.get(made.memory_id)["metadata"] == {"suggested_by": "Cursor"}
    assert mem.history(made.memory_id)[0]["actor"] == "user"  # the user accepted it
    assert mem.memories.decide_suggestion(b["id"], accept=False).memory_id is None
    assert mem.apps.memory_suggestions() == []
    assert [m["memory"] for m in mem.get_all()["results"]] == ["고양이 이름은 나비다"]
    with mem.engine.connect() as conn:  # a decided one keeps no text (the accepted one's is in its memory)
        held = str(conn.exec_driver_sql("SELECT * FROM memory_suggestion").all())
        assert "cilantro" not in held and "나비" not in held and made.memory_id in held
    with pytest.raises(NotFound):
        mem.memories.decide_suggestion(b["id"], accept=True)


def test_an_apps_memory_is_checked(mem):
    for bad in ["", " \n\t ", "x" * (app_suggestions.MAX_CHARS + 1), 5]:
        with pytest.raises(InvalidInput):
            app_suggestions.checked_text(bad)


def test_a_schema_7_journal_gains_the_connected_apps_tables(tmp_path):
    home = tmp_path / "home"
    with Memoir.open(home, encrypt=False) as m:
        m.journal.write("오늘은 비가 왔다")
    con = sqlite3.connect(home / "memoir.db")
    con.execute("DROP TABLE connected_app")
    con.execute("DROP TABLE app_call")
    con.execute("DROP TABLE memory_suggestion")
    con.execute("UPDATE meta SET value='7' WHERE key='schema_version'")
    con.commit()
    con.close()
    with Memoir.open(home, encrypt=False) as m:
        assert [e["content"] for e in m.journal.entries()] == ["오늘은 비가 왔다"]
        connected_apps.seen(m.engine, "Cursor")
        connected_apps.log_call(m.engine, "Cursor", "list_memories", 2)
        assert m.apps.connected_apps()[0]["name"] == "Cursor" and m.apps.app_log()[0]["items"] == 2
        with m.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar() \
                == str(SCHEMA_VERSION)


def test_the_cli_lists_apps_changes_grants_shows_the_log_and_decides_suggestions(tmp_path):
    from tests.cli_in_process import run_cli

    home = tmp_path / "home"
    with Memoir.open(home, encrypt=False) as m:
        connected_apps.seen(m.engine, "Cursor")
        connected_apps.log_call(m.engine, "Cursor", "search_memories", 3)
        held = app_suggestions.suggest(m.engine, "Cursor", "The diarist plays the cello")

    def cli(*args):
        return run_cli(*args, env={"MEMOIR_HOME": str(home)})

    assert "Cursor: allowed; reads entries: no; writes directly: no" in cli("apps").stdout
    assert cli("apps", "set", "Cursor", "read_entries", "on").returncode == 0
    assert cli("apps", "pause", "Cursor").stdout.strip() == "Cursor: paused"
    assert "search_memories  answered  3 item(s)" in cli("apps", "log").stdout
    unknown = cli("apps", "pause", "Nobody")
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
    assert "Cursor: The diarist plays the cello" in cli("suggestions").stdout
    assert cli("suggestions", "--accept", str(held["id"])).returncode == 0
    with Memoir.open(home, encrypt=False) as m:
        a = m.apps.connected_apps()[0]
        assert a["paused"] and a["read_entries"] and m.apps.memory_suggestions() == []
        assert [x["memory"] for x in m.get_all()["results"]] == ["The diarist plays the cello"]


def _venv(tmp_path, monkeypatch, *, with_cli: bool):
    """A virtual environment as `python -m venv` makes it: bin/python a link to the base Python."""
    import os
    import sys
    from pathlib import Path

    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.symlink_to(Path(sys.executable).resolve())
    if with_cli:
        (bin_dir / "memoir-cli").write_text(f"#!{python}\nfrom memoir_desktop.cli import main\nmain()\n")
        (bin_dir / "memoir-cli").chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setenv("PATH", "")  # memoir-cli is not on PATH, as for an app started from a menu
    monkeypatch.setattr(os, "name", "posix")
    return bin_dir


def test_the_server_command_is_this_installations_memoir_cli_named_by_its_full_path(tmp_path, monkeypatch):
    from memoir_desktop.core.apps import app_access

    bin_dir = _venv(tmp_path, monkeypatch, with_cli=True)
    assert app_access.server_command() == [str(bin_dir / "memoir-cli"), "mcp"]


def test_without_memoir_cli_the_command_is_this_environments_python_not_the_base_one(tmp_path, monkeypatch):
    # The base Python has none of memoir's packages: a client given it could not start the server.
    from memoir_desktop.core.apps import app_access

    bin_dir = _venv(tmp_path, monkeypatch, with_cli=False)
    monkeypatch.setattr(sysconfig, "get_path", lambda name, scheme=None: str(bin_dir))  # the venv's scheme
    command = app_access.server_command()
    assert command == [str(bin_dir / "python"), "-m", "memoir_desktop.cli", "mcp"]


def test_the_module_command_finds_memoirs_code_from_any_folder(tmp_path, monkeypatch):
    # Run from a source folder that is not installed (this worktree): started elsewhere, with only the
    # environment the configuration names, `-m memoir_desktop.cli` must still find this code.
    import subprocess

    from memoir_desktop.core.apps import app_access

    monkeypatch.setattr(app_access, "installed_cli", lambda: None)
    command = app_access.server_command()
    env = {"PATH": "", **app_access.server_environment(command)}
    done = subprocess.run([*command[:-1], "--help"], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "mcp" in done.stdout, done.stderr
