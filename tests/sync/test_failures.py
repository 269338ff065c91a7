"""What can go wrong in a round: a kill, a connection cut in the middle of an upload, a damaged or
foreign file in the target, a wrong passphrase, another journal's place, no network."""

import os
from pathlib import Path

import pytest

from memoir_desktop.core import Memoir, sync
from memoir_desktop.core.sync import sealing
from memoir_desktop.core.sync.apply import Applier
from memoir_desktop.core.sync.target import Target
from tests.sync.conftest import PASS
from tests.sync.servers import WEBDAV_PASSWORD, WEBDAV_USER, free_port
from tests.sync.test_join_and_merge import texts


class Killed(BaseException):
    """The process dies here (nothing after this line runs; nothing catches it)."""


def folder_of(place) -> Path:
    from urllib.parse import unquote, urlsplit

    return Path(unquote(urlsplit(place.url).path))


def test_a_kill_in_the_middle_of_a_round_loses_nothing(devices, monkeypatch):
    laptop = devices.first()
    laptop.journal.write("one: the morning market")
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk")
    real_write = Target.put

    laptop.journal.write("two: a letter from Hana")
    with monkeypatch.context() as m:  # offline: the round's segment waits in the outbox
        m.setattr(Target, "put", lambda self, name, data: (_ for _ in ()).throw(sync.Offline(sync.errors.OFFLINE)))
        with pytest.raises(sync.Offline):
            laptop.sync.run()
    laptop.journal.write("three: rain all afternoon")
    uploads: list[str] = []

    def killed_after_one_upload(self, name, data):
        if uploads:
            raise Killed()
        real_write(self, name, data)
        uploads.append(name)

    with monkeypatch.context() as m:
        m.setattr(Target, "put", killed_after_one_upload)
        with pytest.raises(Killed):
            laptop.sync.run()
    assert len(uploads) == 1
    desk.sync.run()
    assert texts(desk) == ["one: the morning market", "two: a letter from Hana"]  # what got there whole

    # Killed while applying what came from the other computer: the batch is all or nothing.
    desk.journal.write("four: the desk's own entry")
    desk.journal.write("five: and another")
    desk.sync.run()
    real_entry = Applier._entry
    with monkeypatch.context() as m:
        calls = []

        def killed_in_apply(self, r):
            calls.append(r["id"])
            if len(calls) == 2:
                raise Killed()
            return real_entry(self, r)

        m.setattr(Applier, "_entry", killed_in_apply)
        with pytest.raises(Killed):
            laptop.sync.run()
    assert texts(laptop) == ["one: the morning market", "three: rain all afternoon", "two: a letter from Hana"]
    laptop.sync.run()
    desk.sync.run()
    want = ["five: and another", "four: the desk's own entry", "one: the morning market",
            "three: rain all afternoon", "two: a letter from Hana"]
    assert texts(laptop) == texts(desk) == want
    assert len(laptop.journal.entries()) == len(desk.journal.entries()) == 5


def test_a_connection_cut_in_the_middle_of_an_upload(tmp_path, webdav_server, relay, monkeypatch):
    monkeypatch.setenv("MEMOIR_SYNC_USER", WEBDAV_USER)
    monkeypatch.setenv("MEMOIR_SYNC_PASSWORD", WEBDAV_PASSWORD)
    through_relay, direct = webdav_server.url("cut", port=relay.port), webdav_server.url("cut")
    laptop = Memoir.open(tmp_path / "laptop", passphrase=PASS)
    try:
        laptop.sync.run(through_relay)
        for i in range(30):
            laptop.journal.write(f"Entry {i}: " + os.urandom(40).hex())  # hardly compressible: a segment of some size
        relay.cut_after(3_000)
        with pytest.raises(sync.Offline) as err:
            laptop.sync.run()
        assert relay.cuts >= 1 and "cannot be reached" in str(err.value)
        device_files = [p.name for p in (webdav_server.root / "cut").rglob("*") if p.is_file()]
        assert not [n for n in device_files if n.startswith("seg-")]  # no half file under a real name
        desk = Memoir.join(direct, PASS, home=tmp_path / "desk")
        try:
            assert desk.journal.entries() == []
            relay.heal()
            laptop.sync.run()
            desk.sync.run()
            assert len(desk.journal.entries()) == 30
            assert sorted(texts(desk)) == sorted(texts(laptop))
            left = [p.name for p in (webdav_server.root / "cut").rglob("*") if p.is_file()]
            assert not [n for n in left if n.startswith("tmp-")]  # the cut upload's leftover was removed
        finally:
            desk.close()
    finally:
        laptop.close()


def test_damaged_and_foreign_files_are_skipped_reported_and_never_applied(devices):
    laptop = devices.first()
    laptop.journal.write("A kept entry about the garden")
    laptop.sync.run(devices.place.url)
    laptop.journal.write("An entry whose file gets damaged")
    laptop.sync.run()
    root = folder_of(devices.place)
    mine = root / "devices" / laptop.sync.status().device
    seg2 = mine / "seg-0000000002"
    blob = bytearray(seg2.read_bytes())
    blob[len(blob) // 2] ^= 0x40
    seg2.write_bytes(bytes(blob))
    (mine / "seg-0000000009").write_bytes((mine / "seg-0000000001").read_bytes())  # a file moved: fails its check
    (root / "README.txt").write_text("notes of someone else")
    (root / "devices" / "notes.txt").write_text("not memoir's")
    stranger = root / "devices" / "0123456789abcdef"
    stranger.mkdir()
    (stranger / "seg-0000000001").write_bytes(b"garbage that is not sealed")
    other_key = sealing.sync_key(os.urandom(32))
    name = "devices/fedcba9876543210/seg-0000000001"
    (root / "devices" / "fedcba9876543210").mkdir()
    (root / name).write_bytes(sealing.seal(other_key, name, {"v": 1, "device": "fedcba9876543210", "seq": 1,
                                                             "records": [{"t": "entry", "id": "x"}]}))
    desk = devices.join("desk")
    report = desk.sync.run()
    skipped = {k.name: k.kind for k in report.skipped}
    assert skipped == {
        f"devices/{laptop.sync.status().device}/seg-0000000002": "damaged",
        f"devices/{laptop.sync.status().device}/seg-0000000009": "damaged",
        "README.txt": "foreign",
        "devices/notes.txt": "foreign",
        "devices/0123456789abcdef/seg-0000000001": "foreign",
        name: "damaged",
    }
    assert all(k.reason for k in report.skipped)
    assert texts(desk) == ["A kept entry about the garden"]
    assert laptop.sync.run().skipped  # the laptop sees the strangers too, and goes on


def test_a_wrong_passphrase_is_refused_and_changes_nothing_here_or_there(devices, tmp_path):
    laptop = devices.first()
    laptop.journal.write("Something only the right passphrase shows")
    laptop.sync.run(devices.place.url)
    before = devices.place.files()
    with pytest.raises(sync.WrongPassphrase) as err:
        Memoir.join(devices.place.url, "not the passphrase at all", home=tmp_path / "desk")
    assert "Nothing was changed" in str(err.value)
    assert not (tmp_path / "desk").exists()
    assert devices.place.files() == before


def test_another_journal_is_not_synced_into_this_ones_place(devices, tmp_path):
    laptop = devices.first()
    laptop.journal.write("The first journal")
    laptop.sync.run(devices.place.url)
    before = devices.place.files()
    other = Memoir.open(tmp_path / "other", passphrase=PASS)  # another journal, even with the same passphrase
    try:
        other.journal.write("A second, separate journal")
        with pytest.raises(sync.NotThisJournal):
            other.sync.run(devices.place.url)
        assert devices.place.files() == before
        assert other.settings.sync_url == ""
    finally:
        other.close()


def test_no_network_and_a_refused_login_are_said_in_words(tmp_path, webdav_server, monkeypatch):
    mem = Memoir.open(tmp_path / "home", passphrase=PASS)
    try:
        with pytest.raises(sync.Offline) as err:
            mem.sync.run(f"webdav://127.0.0.1:{free_port()}/journal")
        assert "cannot be reached" in str(err.value)
        monkeypatch.setenv("MEMOIR_SYNC_USER", WEBDAV_USER)
        monkeypatch.setenv("MEMOIR_SYNC_PASSWORD", "wrong password")
        with pytest.raises(sync.AccessRefused) as err:
            mem.sync.run(webdav_server.url("refused"))
        assert "user name or password" in str(err.value)
        with pytest.raises(sync.CannotSync):
            mem.sync.run()  # nothing remembered: no round ever succeeded
        plain = Memoir.open(tmp_path / "plain", encrypt=False)
        try:
            with pytest.raises(sync.CannotSync, match="encrypted"):
                plain.sync.run((tmp_path / "place").as_uri())
        finally:
            plain.close()
    finally:
        mem.close()
