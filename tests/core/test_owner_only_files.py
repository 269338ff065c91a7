"""Every file that holds journal text and leaves the database (exports, backups) is owner-only (0600),
whatever the umask; so is the key file."""

import os
import stat
import sys

import pytest

from memoir_desktop import cli
from memoir_desktop.core import Memoir, logs
from memoir_desktop.core.archive import backup, conversion
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.keys.private_files import create_private, write_private

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")

PASS = "owner only passphrase"


@pytest.fixture(autouse=True)
def _umask_022():
    old = os.umask(0o022)  # the usual umask: a file created the ordinary way is world-readable
    yield
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _journal(home, **open_args) -> Memoir:
    m = Memoir.open(home, **open_args)
    m.journal.write("오늘은 아무에게도 보여주지 않을 일기 private-words-3391", timestamp="2026-03-01T21:00")
    m.journal.write("another day", timestamp="2026-03-02T08:00")
    return m


def test_the_helper_creates_owner_only_files_from_the_start(tmp_path):
    assert mode(write_private(tmp_path / "a.txt", "words")) == 0o600
    assert mode(write_private(tmp_path / "a.txt", b"again")) == 0o600  # replacing keeps it so
    assert (tmp_path / "a.txt").read_bytes() == b"again"
    assert mode(create_private(tmp_path / "b.db")) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.db"]  # no temporary file left


@pytest.mark.parametrize("encrypted", [False, True])
def test_every_export_format_and_backup_is_owner_only(tmp_path, encrypted):
    with _journal(tmp_path / "home", encrypt=encrypted) as m:
        m.archive.export(tmp_path / "all.json")
        m.archive.export(tmp_path / "sealed.json", passphrase=PASS)
        written = [tmp_path / "all.json", tmp_path / "sealed.json"]
        for fmt in ("md", "txt"):
            written += m.archive.export_text(tmp_path / f"all.{fmt}", fmt=fmt)
            written += m.archive.export_text(tmp_path / f"days-{fmt}", fmt=fmt, per_day=True)
        written.append(m.archive.backup_now())
        home = m.home
    assert len(written) == 9  # two JSON, two single files, four days, a backup
    assert {str(p): oct(mode(p)) for p in written} == {str(p): "0o600" for p in written}
    with Memoir.open(home) as m:  # the daily backup made at open
        pass
    assert all(mode(p) == 0o600 for p in backup.list_backups(home))
    if encrypted:
        assert mode(home / crypto.KEY_FILE) == 0o600


def test_backups_converted_with_the_journal_stay_owner_only(tmp_path):
    home = tmp_path / "home"
    with _journal(home, encrypt=False) as m:
        m.archive.backup_now()
    conversion.convert_to_encrypted(home, passphrase=PASS)
    assert [mode(p) for p in backup.list_backups(home)] == [0o600]
    assert mode(home / crypto.KEY_FILE) == 0o600


def test_cli_exports_are_owner_only(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(logs, "_configured", True)  # the test's own logging stays as it is
    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMOIR_PASSPHRASE", PASS)
    _journal(tmp_path / "home", passphrase=PASS).close()
    for args, path in ((["export", str(tmp_path / "out.json")], tmp_path / "out.json"),
                       (["export", str(tmp_path / "out.md"), "--format", "md"], tmp_path / "out.md"),
                       (["export", str(tmp_path / "out.txt"), "--format", "txt"], tmp_path / "out.txt")):
        assert cli.main(args) == 0, capsys.readouterr().err
        assert mode(path) == 0o600, args


def _memoir_cli(env, *args):
    import subprocess

    # A real process with the usual umask, as a diarist's terminal starts it.
    return subprocess.run([sys.executable, "-m", "memoir_desktop.cli", *args], env=env, capture_output=True,
                          text=True, timeout=300, preexec_fn=lambda: os.umask(0o022))


def test_every_file_memoir_writes_is_owner_only_and_its_folders_private(tmp_path):
    """Under umask 022: the data folder, the log folder and the sync place hold nothing another account
    can read: folders 0700, files 0600 (settings, logs, the database and its -wal/-shm, backups, sync files)."""
    home, logs_at, place = tmp_path / "home", tmp_path / "logs", tmp_path / "Dropbox" / "memoir"
    env = {**os.environ, "MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": PASS, "MEMOIR_LOG_DIR": str(logs_at)}
    for args in (["journal", "a day no one else may read", "--no-process"], ["sync", place.as_uri()],
                 ["export", str(tmp_path / "out" / "all.json"), "--encrypt"], ["status"]):
        (tmp_path / "out").mkdir(exist_ok=True)
        done = _memoir_cli({**env, "MEMOIR_EXPORT_PASSPHRASE": PASS}, *args)
        assert done.returncode == 0, (args, done.stderr)
    with Memoir.open(home, passphrase=PASS) as m:
        m.archive.backup_now()  # (in this process: the umask fixture is 022 too)
    seen = {}
    for root in (home, logs_at, place):
        assert mode(root) == 0o700, root
        for p in root.rglob("*"):
            seen[str(p.relative_to(tmp_path))] = mode(p)
    assert any(name.endswith("settings.json") for name in seen) and any("memoir.log" in n for n in seen)
    assert any("/devices/" in n for n in seen) and any("backups" in n for n in seen)
    loose = {name: oct(m) for name, m in seen.items()
             if m != (0o700 if (tmp_path / name).is_dir() else 0o600)}
    assert loose == {}
