"""A conversion to an encrypted journal that was cut short still ends by handing back a recovery key
that opens the journal (the first run's key was never shown), and leaves no secret on disk."""

import pytest

from memoir_desktop import cli
from memoir_desktop.core import Memoir, logs
from memoir_desktop.core.archive import conversion
from memoir_desktop.core.keys import crypto
from tests.fakes.memory_keyring import MemoryKeyring

PASS = "resume conversion passphrase"
WORDS = "변환 중에 꺼진 일기 resumed-words-6620"


@pytest.fixture(autouse=True)
def _fresh_keyring():
    MemoryKeyring._store.clear()
    yield
    MemoryKeyring._store.clear()


class Killed(BaseException):
    """Stands for the process being killed: nothing after it runs."""


def _plain(home, n=12):
    with Memoir.open(home, encrypt=False) as m:
        for i in range(n):
            m.journal.write(f"{WORDS} {i}")
        m.archive.backup_now()


def _kill_during_copy(home, monkeypatch):
    monkeypatch.setattr(conversion, "CHUNK", 3)

    def progress(done, total):
        raise Killed  # after the first chunk: the key file exists, the journal is still plain

    with pytest.raises(Killed):
        conversion.convert_to_encrypted(home, passphrase=PASS, progress=progress)
    assert crypto.is_encrypted(home) and conversion.is_plain_journal(home) is False
    assert (home / "memoir.db").read_bytes().startswith(b"SQLite format 3")


def _opens_the_journal(home, recovery):
    assert crypto.KeyFile.load(home).unlock_secret(recovery).via == "recovery"
    with Memoir.open(home, passphrase=recovery) as m:
        assert m.keys.encrypted and len(m.journal.entries()) == 12


def _no_secret_left(home, recovery):
    assert not conversion.conversion_pending(home)
    clean = crypto.normalize_recovery(recovery).encode()
    for p in home.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            assert recovery.encode() not in data and clean not in data, p


def test_a_conversion_resumed_after_a_kill_hands_back_a_recovery_key_that_opens_it(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _plain(home)
    _kill_during_copy(home, monkeypatch)
    key = conversion.convert_to_encrypted(home, passphrase=PASS)
    assert key.recovery_key and crypto.looks_like_recovery_key(key.recovery_key)
    _no_secret_left(home, key.recovery_key)
    _opens_the_journal(home, key.recovery_key)


def test_the_app_opening_a_journal_whose_conversion_was_killed_shows_the_recovery_key(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _plain(home)
    _kill_during_copy(home, monkeypatch)
    with Memoir.open(home, passphrase=PASS) as m:  # the app's and the CLI's next start
        recovery = m.keys.take_recovery_key()
    assert recovery
    _no_secret_left(home, recovery)
    _opens_the_journal(home, recovery)


def test_a_kill_after_the_swap_still_ends_with_a_recovery_key(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _plain(home)
    monkeypatch.setattr(conversion, "_encrypt_backups", lambda *a: (_ for _ in ()).throw(Killed()))
    with pytest.raises(Killed):
        conversion.convert_to_encrypted(home, passphrase=PASS)
    monkeypatch.undo()
    assert not conversion.is_plain_journal(home)  # swapped: only the clean-up and the key were left
    with Memoir.open(home, passphrase=PASS) as m:
        recovery = m.keys.take_recovery_key()
    assert recovery
    _no_secret_left(home, recovery)
    _opens_the_journal(home, recovery)


def test_memoir_cli_encrypt_resumes_and_prints_the_recovery_key(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(logs, "_configured", True)
    home = tmp_path / "home"
    _plain(home)
    _kill_during_copy(home, monkeypatch)
    monkeypatch.setenv("MEMOIR_HOME", str(home))
    monkeypatch.setenv("MEMOIR_PASSPHRASE", PASS)
    assert cli.main(["encrypt"]) == 0
    recovery = capsys.readouterr().out.strip().splitlines()[-1].strip()
    assert crypto.looks_like_recovery_key(recovery)
    _no_secret_left(home, recovery)
    _opens_the_journal(home, recovery)


def test_an_uninterrupted_conversion_shows_its_key_once_and_leaves_no_marker(tmp_path):
    home = tmp_path / "home"
    _plain(home)
    key = conversion.convert_to_encrypted(home, passphrase=PASS)
    _no_secret_left(home, key.recovery_key)
    with Memoir.open(home, passphrase=PASS) as m:
        assert m.keys.take_recovery_key() is None  # shown by the conversion; opening again makes no other
    _opens_the_journal(home, key.recovery_key)
