"""Rotating backups, restore, and a corrupted database handled with a clear message."""

from datetime import datetime, timedelta

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.archive import backup
from memoir_desktop.core.db import DatabaseCorrupt
from tests.cli_in_process import run_cli


def test_daily_backup_rotates_and_restores(tmp_path):
    home = tmp_path / "h"
    with Memoir.open(home) as m:
        m.add(["first fact"], infer=False)
    # The first open had nothing to back up; the next one makes today's backup.
    with Memoir.open(home) as m:
        assert m.last_backup is not None
        m.add(["second fact"], infer=False)
    with Memoir.open(home) as m:
        assert m.last_backup is None  # one a day
    todays = backup.list_backups(home)[0]
    base = datetime(2020, 1, 1)
    for i in range(10):
        backup.make_backup(home, keep=3, when=base + timedelta(days=i))
    names = [p.name for p in backup.list_backups(home)]
    assert names == [todays.name, "memoir-20200110-000000.db", "memoir-20200109-000000.db"]
    with Memoir.open(home) as m:
        m.add(["third fact"], infer=False)
    kept = backup.restore_backup(home, todays)  # taken at the second open: only the first fact
    assert kept.exists()
    with Memoir.open(home) as m:
        assert [x["memory"] for x in m.get_all()["results"]] == ["first fact"]
        assert m.search("first")["results"][0]["memory"] == "first fact"  # index rebuilt


PASS = "backup test passphrase"


def test_corrupted_database_is_kept_and_reported(tmp_path):
    home = tmp_path / "h"
    with Memoir.open(home, passphrase=PASS) as m:  # the CLI below opens it with MEMOIR_PASSPHRASE
        m.add(["precious fact"], infer=False)
    with Memoir.open(home):
        pass  # makes a backup
    db = home / "memoir.db"
    for side in ("memoir.db-wal", "memoir.db-shm"):
        (home / side).unlink(missing_ok=True)
    raw = bytearray(db.read_bytes())
    raw[0:100] = b"\x00" * 100  # destroy the header
    db.write_bytes(bytes(raw))
    damaged = db.read_bytes()
    with pytest.raises(DatabaseCorrupt):
        Memoir.open(home)
    assert db.read_bytes() == damaged  # left untouched for recovery
    env = {"MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": PASS}
    r = run_cli("memories", env=env)
    assert r.returncode == 1 and "restore-backup" in r.stderr and "Traceback" not in r.stderr
    last = backup.list_backups(home)[0]
    r = run_cli("restore-backup", str(last), env=env)
    assert r.returncode == 0, r.stderr
    with Memoir.open(home) as m:
        assert [x["memory"] for x in m.get_all()["results"]] == ["precious fact"]
