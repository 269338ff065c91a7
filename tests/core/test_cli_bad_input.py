"""memoir-cli meets bad input with a clear sentence and the right exit status, and changes nothing it
should not. Run in-process (cli.main) against a temporary home."""

import json

import pytest

from memoir_desktop import cli
from memoir_desktop.core import Memoir, logs
from memoir_desktop.core.keys import crypto
from tests.fakes.memory_keyring import MemoryKeyring

PASS = "bad input passphrase"
OFFLINE = "http://127.0.0.1:9/v1"  # nothing listens there: the LLM is unavailable


@pytest.fixture(autouse=True)
def _cli_env(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "_configured", True)  # the test run's logging stays as it is
    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMOIR_PASSPHRASE", PASS)
    MemoryKeyring._store.clear()
    yield
    MemoryKeyring._store.clear()


def run(capsys, *args) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def as_json(capsys, *args):
    code, out, err = run(capsys, "--json", *args)
    assert code == 0, err
    return json.loads(out)


# -- a memoir export with a broken entry ----------------------------------------------------------

def test_an_import_with_an_entry_missing_a_field_names_it_exits_2_and_writes_nothing(tmp_path, capsys):
    export = tmp_path / "export.json"
    with Memoir.open(tmp_path / "from", passphrase=PASS) as m:
        for text in ("the first day", "the second day at the lake", "the third day"):
            m.journal.write(text, timestamp="2026-02-01T10:00")
        m.archive.export(export)
    data = json.loads(export.read_text("utf-8"))
    broken = data["entries"][1]
    del broken["created_at"]
    export.write_text(json.dumps(data), "utf-8")

    code, _, err = run(capsys, "import", str(export))
    assert code == 2
    line = err.strip().splitlines()[-1]
    assert "entry 2" in line and f"id {broken['id']}" in line and "created_at" in line, line
    assert "the second day" in line and "nothing was imported" in line.lower(), line
    assert as_json(capsys, "entries") == []  # not even the two good entries


def test_an_import_with_an_unreadable_date_says_which_entry(tmp_path, capsys):
    export = tmp_path / "export.json"
    with Memoir.open(tmp_path / "from", passphrase=PASS) as m:
        m.journal.write("only one", timestamp="2026-02-01T10:00")
        m.archive.export(export)
    data = json.loads(export.read_text("utf-8"))
    data["entries"][0]["created_at"] = "yesterday-ish"
    export.write_text(json.dumps(data), "utf-8")
    code, _, err = run(capsys, "import", str(export))
    assert code == 2 and "entry 1" in err and "created_at" in err and "yesterday-ish" in err, err
    assert as_json(capsys, "entries") == []


# -- restoring what is not in the trash -----------------------------------------------------------

def test_restoring_an_entry_that_is_not_in_the_trash_says_so(capsys):
    eid = as_json(capsys, "journal", "never thrown away", "--no-process")["entry_id"]
    code, out, err = run(capsys, "entry", "restore", str(eid))
    assert code == 2 and "restored" not in out
    assert f"entry {eid} is not in the trash" in err, err
    assert run(capsys, "entry", "delete", str(eid))[0] == 0
    code, out, _ = run(capsys, "entry", "restore", str(eid))
    assert code == 0 and f"restored entry {eid}" in out


# -- a recovery key typed loosely -----------------------------------------------------------------

def _loosely(recovery: str) -> list[str]:
    groups = recovery.split("-")
    return [" ".join(groups), "  " + "  ".join(groups).lower() + " ", "".join(groups), " - ".join(groups).lower(),
            "-".join(g.lower() if i % 2 else g for i, g in enumerate(groups))]


def test_a_recovery_key_with_spaces_or_mixed_case_opens_the_journal(tmp_path, capsys, monkeypatch):
    code, _, err = run(capsys, "journal", "a key typed by hand", "--no-process")
    assert code == 0
    recovery = err.strip().splitlines()[-1].strip()
    assert crypto.looks_like_recovery_key(recovery)
    MemoryKeyring._store.clear()  # another computer: the keyring does not hold the key
    kf = crypto.KeyFile.load(tmp_path / "home")
    for typed in _loosely(recovery):
        assert kf.unlock_secret(typed).via == "recovery", typed
        monkeypatch.setenv("MEMOIR_PASSPHRASE", typed)
        code, _, err = run(capsys, "entries")
        assert code == 0, (typed, err)
    with Memoir.open(tmp_path / "home", passphrase=PASS) as m:  # the app lock's check reads it the same way
        assert all(m.keys.check_passphrase(typed) for typed in _loosely(recovery))
        assert not m.keys.check_passphrase(recovery.replace(recovery[0], "Z" if recovery[0] != "Z" else "Y"))


# -- dates -------------------------------------------------------------------------------------------

def test_a_date_alone_means_noon_and_a_moved_entry_is_not_edited(capsys):
    eid = as_json(capsys, "journal", "written for a past day", "--date", "2026-11-03", "--no-process")["entry_id"]
    [entry] = as_json(capsys, "entries")
    assert entry["created_at"] == "2026-11-03T12:00:00"
    _, out, err = run(capsys, "entry", "move", str(eid), "2026-11-04")
    assert "2026-11-04T12:00" in out, (out, err)
    [entry] = as_json(capsys, "entries")
    assert entry["created_at"] == "2026-11-04T12:00:00" and entry["edited"] is False
    assert "[edited]" not in run(capsys, "entries")[1]
    run(capsys, "entry", "edit", str(eid), "written again for a past day")
    [entry] = as_json(capsys, "entries")
    assert entry["edited"] is True and "[edited]" in run(capsys, "entries")[1]
    run(capsys, "entry", "move", str(eid), "2026-11-05T08:30")
    [entry] = as_json(capsys, "entries")
    assert entry["created_at"] == "2026-11-05T08:30:00" and entry["edited"] is True  # still edited: its text was


# -- a locked journal in a terminal ------------------------------------------------------------------

def test_the_locked_journal_message_names_memoir_passphrase(capsys, monkeypatch):
    assert run(capsys, "journal", "locked later", "--no-process")[0] == 0
    MemoryKeyring._store.clear()
    monkeypatch.delenv("MEMOIR_PASSPHRASE")
    code, _, err = run(capsys, "entries")
    assert code == 4 and "MEMOIR_PASSPHRASE" in err, err
    assert len(err.strip().splitlines()) == 1


# -- private entries and the LLM ---------------------------------------------------------------------

def test_journaling_a_private_entry_never_exits_3(capsys, monkeypatch):
    monkeypatch.setenv("MEMOIR_LLM_BASE_URL", OFFLINE)
    monkeypatch.setenv("MEMOIR_LLM_MODEL", "fake")
    assert run(capsys, "journal", "a shared entry whose job waits")[0] == cli.EXIT_LLM  # saved, LLM away
    code, out, err = run(capsys, "journal", "a private entry", "--private")
    assert code == 0, err
    assert "saved" in out and "memories will be made" not in err


def test_entries_moved_before_are_no_longer_marked_edited(tmp_path):
    """Migration 7: a move used to set updated_at (the "edited" mark); entries only ever moved lose it."""
    import sqlite3

    home = tmp_path / "old"
    with Memoir.open(home, encrypt=False) as m:
        moved = m.journal.write("only moved", timestamp="2026-01-02T09:00")
        edited = m.journal.write("edited once", timestamp="2026-01-03T09:00")
        m.journal.edit(edited, "edited once, really")
        m.journal.move(moved, "2026-01-05")
    con = sqlite3.connect(home / "memoir.db")
    con.execute("UPDATE entry SET updated_at = '2026-01-06 10:00:00' WHERE id = ?", (moved,))  # as schema 6 did
    con.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    with Memoir.open(home, encrypt=False) as m:
        marks = {e["id"]: e["edited"] for e in m.journal.entries()}
    assert marks == {moved: False, edited: True}
