"""Imports attacked as a hostile file or a killed process would (issue 40, 7), through memoir-cli:
every importer keeps the entry limit, a damaged encrypted export is called damaged (not a wrong
passphrase), and an import cut short is said to have been cut short when it is run again."""

import json
import zipfile

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.inputs import MAX_ENTRY_CHARS
from memoir_desktop.core.journal.entries import Journal
from tests.cli_in_process import run_cli

PASS = "import limits passphrase"


def cli(home, *args, **env):
    return run_cli(*args, env={"MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": PASS, **env})


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    Memoir.open(home, passphrase=PASS).close()
    return home


def _dayone(path, entries):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}, "entries": entries}))
    return path


def _entry(i, text):
    return {"uuid": f"E{i:05d}", "creationDate": f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:{i % 60:02d}Z",
            "timeZone": "Asia/Seoul", "text": text}


def _count(home) -> int:
    with Memoir.open(home, passphrase=PASS) as mem:
        return len(mem.journal.entries(limit=100_000))


def test_day_one_keeps_the_entry_limit_and_imports_nothing_above_it(home, tmp_path):
    long = "긴 일기 " * (MAX_ENTRY_CHARS // 4)  # 250,000 characters
    path = _dayone(tmp_path / "dayone.zip", [_entry(1, "a short day"), _entry(2, long), _entry(3, "another day")])
    done = cli(home, "import", str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{MAX_ENTRY_CHARS:,}" in done.stderr and "Nothing was imported" in done.stderr
    assert "Traceback" not in done.stderr
    assert _count(home) == 0


def test_a_memoir_export_keeps_the_entry_limit_too(home, tmp_path):
    data = {"format": "memoir-export", "version": 3, "entries": [
        {"id": 1, "user_id": "me", "role": "user", "content": "x" * (MAX_ENTRY_CHARS + 1),
         "created_at": "2024-01-01T10:00:00"}]}
    (tmp_path / "big.json").write_text(json.dumps(data))
    done = cli(home, "import", str(tmp_path / "big.json"))
    assert done.returncode == 2 and f"{MAX_ENTRY_CHARS:,}" in done.stderr and "nothing was imported" in done.stderr
    assert _count(home) == 0


def test_a_damaged_encrypted_export_is_called_damaged_not_a_wrong_passphrase(home, tmp_path):
    with Memoir.open(home, passphrase=PASS) as mem:
        mem.journal.write("a day to export")
        mem.archive.export(tmp_path / "sealed.json", passphrase="export passphrase 1")
    blob = bytearray((tmp_path / "sealed.json").read_bytes())
    blob[-40] ^= 0x01  # one bit of the body, as a bad disk or a cut download leaves it
    (tmp_path / "damaged.json").write_bytes(bytes(blob))
    other = tmp_path / "other"
    Memoir.open(other, passphrase=PASS).close()
    wrong = cli(other, "import", str(tmp_path / "sealed.json"), MEMOIR_EXPORT_PASSPHRASE="not the passphrase")
    assert wrong.returncode == 4 and "passphrase does not open" in wrong.stderr
    damaged = cli(other, "import", str(tmp_path / "damaged.json"), MEMOIR_EXPORT_PASSPHRASE="export passphrase 1")
    assert damaged.returncode != 0 and "damaged" in damaged.stderr, damaged.stderr
    assert "passphrase does not open" not in damaged.stderr
    cut = tmp_path / "cut.json"
    cut.write_bytes(bytes(blob[:60]))  # cut inside its header
    short = cli(other, "import", str(cut), MEMOIR_EXPORT_PASSPHRASE="export passphrase 1")
    assert short.returncode != 0 and "damaged" in short.stderr and "Traceback" not in short.stderr
    assert _count(other) == 0


class Killed(BaseException):
    """The process dies here."""


def test_an_import_cut_short_is_said_so_when_it_is_run_again(home, tmp_path, monkeypatch):
    path = _dayone(tmp_path / "many.zip", [_entry(i, f"day {i} of the old journal") for i in range(1, 601)])
    real = Journal.import_entries
    chunks = []

    def killed_after_two_chunks(self, rows, *, user_id, batch):
        # The journal writes 200 a transaction: the process dies after the second commits.
        out = real(self, rows[:400], user_id=user_id, batch=batch)
        chunks.append(len(out))
        raise Killed()

    with monkeypatch.context() as m:
        m.setattr(Journal, "import_entries", killed_after_two_chunks)
        with pytest.raises(Killed):
            cli(home, "import", str(path))
    assert chunks == [400] and _count(home) == 400
    again = cli(home, "import", str(path))
    assert again.returncode == 0, again.stderr
    said = again.stdout + again.stderr
    assert "cut short" in said and "400 of 600" in said, said
    assert _count(home) == 600
    third = cli(home, "import", str(path))  # complete now: nothing more to say about it
    assert "cut short" not in third.stdout + third.stderr
