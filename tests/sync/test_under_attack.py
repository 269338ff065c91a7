"""Sync attacked as a thief, a broken sync place and a hostile file would (issue 40, 1 to 4): memoir-cli
on two (or three) data folders and one folder target, as the diarist's computers use it.

1. A removed computer, and a passphrase change, lock a stolen laptop out of everything written after.
2. A missing segment or a place put back to an older copy is found, said (which computer, since when),
   and nothing is merged from it; the writer re-sends what the place lost.
3. memoir-cli sync exits non-zero, with a sentence, whenever a file was skipped.
4. A foreign or damaged key box is isolated: the others sync on, and it is named.
"""

import json
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.sync import sealing
from tests.cli_in_process import run_cli
from tests.sync.conftest import PASS

NEW_PASS = "a brand new journal passphrase"


class Computer:
    """One data folder, driven through memoir-cli as a diarist's terminal would."""

    def __init__(self, home: Path, place: str, passphrase: str = PASS):
        self.home, self.place, self.passphrase = home, place, passphrase

    def cli(self, *args, **env):
        return run_cli(*args, env={"MEMOIR_HOME": str(self.home), "MEMOIR_PASSPHRASE": self.passphrase, **env})

    def write(self, text: str) -> None:
        done = self.cli("journal", text, "--no-process")
        assert done.returncode in (0, 3), done.stderr

    def sync(self, *args, **env):
        return self.cli("sync", *args, **env)

    def texts(self) -> list[str]:
        done = self.cli("--json", "entries", "--limit", "1000")
        assert done.returncode == 0, done.stderr
        return sorted(e["content"] for e in json.loads(done.stdout))

    def data_key(self) -> bytes:
        return crypto.KeyFile.load(self.home).unlock_secret(self.passphrase).data_key


@pytest.fixture
def place(tmp_path) -> str:
    root = tmp_path / "Dropbox" / "memoir"
    root.mkdir(parents=True)
    return root.as_uri()


def folder(place: str) -> Path:
    return Path(unquote(urlsplit(place).path))


@pytest.fixture
def laptop(tmp_path, place) -> Computer:
    c = Computer(tmp_path / "laptop", place)
    Memoir.open(c.home, passphrase=PASS).close()
    c.write("one: the first day of the journal")
    assert c.sync(place).returncode == 0
    return c


def join(tmp_path, place, name, passphrase=PASS) -> Computer:
    c = Computer(tmp_path / name, place, passphrase)
    done = c.sync(place)
    assert done.returncode == 0, done.stderr
    return c


def readable_with(data_key: bytes, place: str) -> str:
    """Every sync file of the place that the journal's data key alone opens (what a stolen laptop has)."""
    key = sealing.sync_key(data_key)
    out = []
    for p in folder(place).rglob("*"):
        if p.is_file():
            name = str(p.relative_to(folder(place))).replace("\\", "/")
            try:
                out.append(json.dumps(sealing.unseal(key, name, p.read_bytes()), ensure_ascii=False))
            except sealing.Unreadable:
                pass
    return "\n".join(out)


# -- 1: revocation ---------------------------------------------------------------------------------

def _device_of(computer: Computer) -> str:
    done = computer.cli("--json", "computers")
    assert done.returncode == 0, done.stderr
    return next(c["id"] for c in json.loads(done.stdout) if c["this"])


def test_a_removed_computer_reads_nothing_written_after(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    assert laptop.sync().returncode == 0  # the laptop has everything so far, then it is stolen
    stolen = _device_of(laptop)
    listed = json.loads(desk.cli("--json", "computers").stdout)
    assert {c["id"] for c in listed} == {stolen, _device_of(desk)}
    removed = desk.cli("computers", "remove", stolen)
    assert removed.returncode == 0, removed.stderr
    desk.write("two: after the theft, the new flat is at 12 Elm Street")
    assert desk.sync().returncode == 0
    # The thief's laptop: told, nothing new, and its key opens nothing written after.
    thief = laptop.sync()
    assert thief.returncode != 0 and "removed" in thief.stderr and "Traceback" not in thief.stderr
    assert "12 Elm" not in " ".join(laptop.texts())
    assert "12 Elm" not in readable_with(laptop.data_key(), place)
    # The computers that remain go on; a new one joins with the passphrase and finds everything.
    phone = join(tmp_path, place, "phone")
    assert phone.texts() == ["one: the first day of the journal", "two: after the theft, the new flat is at 12 Elm Street"]
    phone.write("three: written on the phone")
    assert phone.sync().returncode == 0 and desk.sync().returncode == 0
    assert "three: written on the phone" in desk.texts()
    # The thief cannot come back by putting its key box back either: it is not the journal's now.
    assert laptop.sync().returncode != 0 and "three" not in " ".join(laptop.texts())


def test_a_passphrase_change_locks_the_old_passphrase_and_a_lost_computer_out(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    changed = desk.cli("passphrase", MEMOIR_NEW_PASSPHRASE=NEW_PASS)
    assert changed.returncode == 0, changed.stderr
    desk.passphrase = NEW_PASS
    desk.write("two: written after the passphrase changed")
    assert desk.sync().returncode == 0
    # The lost laptop knows only the old passphrase: it reads nothing new.
    lost = laptop.sync()
    assert lost.returncode != 0 and "passphrase" in lost.stderr and "Traceback" not in lost.stderr
    assert "two: written after" not in " ".join(laptop.texts())
    assert "written after the passphrase" not in readable_with(laptop.data_key(), place)
    # A new computer: the old passphrase opens nothing, the new one everything.
    old = Computer(tmp_path / "old-pass", place)
    refused = old.sync(place)
    assert refused.returncode == 4 and not (old.home / "memoir.key").exists()
    phone = join(tmp_path, place, "phone", passphrase=NEW_PASS)
    assert phone.texts() == ["one: the first day of the journal", "two: written after the passphrase changed"]
    # The laptop, given the new passphrase by its owner, goes on (and opens with it from now on).
    back = laptop.sync(MEMOIR_NEW_PASSPHRASE=NEW_PASS)
    assert back.returncode == 0, back.stderr
    laptop.passphrase = NEW_PASS
    assert "two: written after the passphrase changed" in laptop.texts()


# -- 2 and 3: gaps, rollbacks, repair, honest exit codes ----------------------------------------------

def test_a_missing_segment_is_found_said_and_the_writer_sends_it_again(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    for text in ("two: a walk by the river", "three: soup for dinner", "four: rain"):
        laptop.write(text)
        assert laptop.sync().returncode == 0
    mine = next(p for p in (folder(place) / "devices").iterdir() if p.name == _device_of(laptop))
    segments = sorted(p for p in mine.iterdir() if p.name.startswith("seg-"))
    segments[-2].unlink()  # "three" is lost on the way; "four" arrived
    done = desk.sync()
    assert done.returncode != 0, done.stdout
    assert "missing" in done.stderr and "laptop" in done.stderr.lower() or _device_of(laptop)[:6] in done.stderr
    assert "three: soup for dinner" not in desk.texts() and "four: rain" not in desk.texts()  # nothing past the gap
    assert "two: a walk by the river" in desk.texts()
    assert laptop.sync().returncode == 0  # the writer sees what it lost and sends it again
    again = desk.sync()
    assert again.returncode == 0, again.stderr
    assert desk.texts() == laptop.texts()


def test_a_place_put_back_to_an_older_copy_is_refused_and_repaired(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    for text in ("two", "three", "four"):
        laptop.write(f"{text}: before the copy")
    assert laptop.sync().returncode == 0
    old_copy = tmp_path / "old-copy"
    shutil.copytree(folder(place), old_copy)
    for text in ("five", "six", "seven"):
        laptop.write(f"{text}: after the copy")
        assert laptop.sync().returncode == 0
    assert desk.sync().returncode == 0 and len(desk.texts()) == 7
    shutil.rmtree(folder(place))
    shutil.copytree(old_copy, folder(place))  # the place is rolled back to the older copy
    before = desk.texts()
    refused = desk.sync()
    assert refused.returncode != 0
    assert "older copy" in refused.stderr and "since" in refused.stderr, refused.stderr
    assert desk.texts() == before  # nothing lost here
    assert laptop.sync().returncode == 0  # the writer finds its files gone and sends them again
    phone = join(tmp_path, place, "phone")
    assert len(phone.texts()) == 7
    assert desk.sync().returncode == 0


def test_memoir_cli_sync_exits_non_zero_whenever_a_file_was_skipped(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    laptop.write("two: a day")
    assert laptop.sync().returncode == 0
    (folder(place) / "notes.txt").write_text("a stranger's file")
    done = desk.sync()
    assert done.returncode != 0
    assert "skipped" in done.stderr and "notes.txt" in done.stdout + done.stderr
    assert "two: a day" in desk.texts()  # the rest was synced


# -- 4: a foreign or damaged key box ------------------------------------------------------------------

def test_a_foreign_key_box_is_isolated_and_named_while_the_others_sync_on(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    stranger = Computer(tmp_path / "stranger", place)
    with Memoir.open(stranger.home, passphrase=PASS) as other:  # another journal, same passphrase
        other.journal.write("someone else's journal")
        box = sealing.lock_box(other.keys.key_file)
    odd = folder(place) / "devices" / "00112233aabbccdd"
    odd.mkdir()
    (odd / "key").write_bytes(box)
    damaged = folder(place) / "devices" / "ffeeddccbbaa9988"
    damaged.mkdir()
    (damaged / "key").write_bytes(b'{"box": "memoir-sync-key", "format": "memoir-key"')
    laptop.write("two: still syncing")
    assert laptop.sync().returncode != 0  # said: but it synced
    done = desk.sync()
    assert done.returncode != 0
    assert "00112233aabbccdd" in done.stdout + done.stderr and "ffeeddccbbaa9988" in done.stdout + done.stderr
    assert "another journal" in done.stdout + done.stderr
    assert "two: still syncing" in desk.texts()


def test_a_removed_computer_cannot_slip_files_in_under_an_older_key(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    assert laptop.sync().returncode == 0
    stolen, desk_id = _device_of(laptop), _device_of(desk)
    assert desk.cli("computers", "remove", stolen).returncode == 0
    desk.write("two: after the theft")
    assert desk.sync().returncode == 0
    # The thief still has the data key, so the oldest sync key: it seals forged changes with it, in its
    # own folder (as an older memoir would) and in the desk's, under the next numbers.
    old_key = sealing.sync_key(laptop.data_key())
    own = folder(place) / "devices" / stolen
    first = sorted(own.glob("seg-*"))[0]
    genuine = sealing.unseal(old_key, f"devices/{stolen}/{first.name}", first.read_bytes())
    record = json.loads(json.dumps(genuine["records"][0]))
    record["id"] = "f" * 32
    record["fields"]["content"] = "forged by the thief"
    for dev in (stolen, desk_id):
        seqs = [int(p.name[4:]) for p in (folder(place) / "devices" / dev).glob("s*-*")]
        n = max(seqs + [0]) + 1
        name = f"devices/{dev}/seg-{n:010d}"
        (folder(place) / name).write_bytes(sealing.seal(old_key, name, {"v": 1, "device": dev, "seq": n,
                                                                        "records": [record]}))
    phone = Computer(tmp_path / "phone", place)
    joined = phone.sync(place)
    assert joined.returncode == 5 and "not written by it" in joined.stderr  # said, and the rest is there
    assert phone.texts() == ["one: the first day of the journal", "two: after the theft"]
    desk_round = desk.sync()
    assert "forged by the thief" not in desk.texts()
    assert desk_round.returncode == 0 or "skipped" in desk_round.stderr


def test_the_computers_that_stay_go_on_without_a_word_after_a_removal(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    phone = join(tmp_path, place, "phone")  # joined before the removal: it stays, and is wrapped for
    for c in (laptop, desk, phone):
        assert c.sync().returncode == 0  # every computer has read every key box
    assert desk.cli("computers", "remove", _device_of(laptop)).returncode == 0
    desk.write("two: written after the removal")
    assert desk.sync().returncode == 0
    went_on = phone.sync()  # no passphrase typed: the new key came wrapped for the phone
    assert went_on.returncode == 0, went_on.stderr
    assert "two: written after the removal" in phone.texts()
    phone.write("three: from the phone")
    assert phone.sync().returncode == 0 and desk.sync().returncode == 0
    assert "three: from the phone" in desk.texts()
    listed = {c["id"]: c for c in json.loads(phone.cli("--json", "computers").stdout)}
    assert listed[_device_of(laptop)]["removed"]
    assert laptop.sync().returncode != 0 and "three" not in " ".join(laptop.texts())


def test_a_journal_synced_before_heads_and_key_epochs_syncs_on(tmp_path, place, laptop):
    """The previous format: no heads, key boxes without a computer key, nothing remembered of them."""
    desk = join(tmp_path, place, "desk")
    desk.write("desk: before the update")
    assert desk.sync().returncode == 0
    for p in folder(place).rglob("head"):
        p.unlink()
    for p in folder(place).rglob("key"):
        box = json.loads(p.read_text())
        box.pop("device_pub", None)
        p.write_text(json.dumps(box))
    for c in (laptop, desk):
        with Memoir.open(c.home, passphrase=PASS) as mem, mem.engine.begin() as con:
            con.exec_driver_sql("DELETE FROM sync_state WHERE key IN ('uploaded', 'chain', 'head', 'device_key', "
                                "'pins', 'heads_seen', 'box')")
    laptop.write("two: after the update")
    for c in (laptop, desk, laptop):
        done = c.sync()
        assert done.returncode == 0, done.stderr
    assert desk.texts() == laptop.texts() == ["desk: before the update", "one: the first day of the journal",
                                              "two: after the update"]
    assert len(list(folder(place).rglob("head"))) == 2  # each computer's files named by a head now


def test_a_file_damaged_in_the_place_is_sent_again_by_its_writer(tmp_path, place, laptop):
    desk = join(tmp_path, place, "desk")
    laptop.write("two: a day whose file gets damaged")
    assert laptop.sync().returncode == 0
    mine = folder(place) / "devices" / _device_of(laptop)
    last = sorted(mine.glob("seg-*"))[-1]
    blob = bytearray(last.read_bytes())
    blob[len(blob) // 2] ^= 0x01  # same size: only reading it back shows it
    last.write_bytes(bytes(blob))
    damaged = desk.sync()
    assert damaged.returncode == 5 and last.name in damaged.stderr
    assert "two: a day whose file gets damaged" not in desk.texts()
    mended = laptop.cli("--json", "sync")
    assert mended.returncode == 0 and json.loads(mended.stdout)["repaired"] >= 1
    assert desk.sync().returncode == 0
    assert "two: a day whose file gets damaged" in desk.texts()
