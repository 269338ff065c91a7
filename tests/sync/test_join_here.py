"""A second computer whose own journal is still empty joins the journal kept in a sync place: the empty
one is set aside (never deleted), put back when joining fails, and a journal with an entry or a memory
is never replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoir_desktop.core import Memoir, sync
from memoir_desktop.core.sync import engine, joining
from memoir_desktop.core.sync.service import Sync
from tests.sync.conftest import PASS
from tests.sync.test_join_and_merge import texts


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _empty_journal(home: Path) -> bytes:
    """This computer's first start: a journal of its own, nothing written in it. Returns its data key."""
    mem = Memoir.open(home, passphrase="this computer's own passphrase", llm_base_url=None)
    try:
        return mem.keys.data_key
    finally:
        mem.close()


def test_an_empty_journal_is_set_aside_and_the_journal_kept_there_comes_in_its_place(devices, tmp_path):
    laptop = devices.first()
    laptop.journal.write("Walked to the lighthouse with Mina")
    laptop.sync.run(devices.place.url)
    home = tmp_path / "desk"
    key = _empty_journal(home)
    empty = _files(home)
    with pytest.raises(sync.CannotSync) as err:  # engine.join alone refuses a home with a journal
        Memoir.join(devices.place.url, PASS, home=home)
    assert err.value.code == "has_journal"

    opened = engine.open_place(devices.place.url, PASS)
    desk = joining.join_here(Memoir, home, opened, data_key=key, llm_base_url=None)
    try:
        assert texts(desk) == ["Walked to the lighthouse with Mina"]
        assert desk.settings.sync_url == devices.place.url
    finally:
        desk.close()
    [aside] = [p for p in home.iterdir() if p.name.startswith(joining.ASIDE_PREFIX)]
    assert _files(aside) == {name: data for name, data in empty.items() if name != "settings.json"}


def test_a_journal_with_an_entry_or_a_memory_is_never_replaced(devices, tmp_path):
    laptop = devices.first()
    laptop.journal.write("The laptop's day")
    laptop.sync.run(devices.place.url)
    opened = engine.open_place(devices.place.url, PASS)
    for name, write in (("entry", lambda m: m.journal.write("The desk's own day")),
                        ("memory", lambda m: m.add("Mina is my sister", infer=False)),
                        ("trash", lambda m: m.journal.trash(m.journal.write("Written, then put in the trash")))):
        home = tmp_path / name
        mem = Memoir.open(home, passphrase="this computer's own passphrase", llm_base_url=None)
        try:
            write(mem)
            key = mem.keys.data_key
        finally:
            mem.close()
        before = _files(home)
        with pytest.raises(joining.NotEmpty):
            joining.join_here(Memoir, home, opened, data_key=key)
        assert _files(home) == before, name
        assert not [p for p in home.iterdir() if p.name.startswith(joining.ASIDE_PREFIX)]


def test_a_failed_join_puts_the_empty_journal_back_as_it_was(devices, tmp_path, monkeypatch):
    laptop = devices.first()
    laptop.journal.write("The laptop's day")
    laptop.sync.run(devices.place.url)
    home = tmp_path / "desk"
    key = _empty_journal(home)
    before = _files(home)
    opened = engine.open_place(devices.place.url, PASS)

    def offline(self, url=None, progress=None):
        raise sync.Offline(sync.errors.OFFLINE)

    monkeypatch.setattr(Sync, "run", offline)  # the network goes during the first round
    with pytest.raises(sync.Offline):
        joining.join_here(Memoir, home, opened, data_key=key, llm_base_url=None)
    assert _files(home) == before
    assert sorted(p.name for p in home.iterdir()) == sorted({n.split("/")[0] for n in before})
    monkeypatch.undo()
    mem = Memoir.open(home, passphrase="this computer's own passphrase", llm_base_url=None)
    try:
        assert mem.journal.entries() == []
    finally:
        mem.close()


def test_opening_the_place_says_what_stops_a_join_and_writes_nothing(devices, tmp_path):
    empty_place = (tmp_path / "nothing here yet").as_uri()
    with pytest.raises(sync.CannotSync) as err:
        engine.open_place(empty_place, PASS)
    assert err.value.code == "nothing_there"
    laptop = devices.first()
    recovery = laptop.keys.take_recovery_key()  # shown once at the first start
    laptop.journal.write("The laptop's day")
    laptop.sync.run(devices.place.url)
    before = devices.place.files()
    with pytest.raises(sync.WrongPassphrase):
        engine.open_place(devices.place.url, "not the passphrase at all")
    with pytest.raises(sync.CannotSync) as err:
        engine.open_place(devices.place.url, recovery)
    assert err.value.code == "recovery_key"
    assert devices.place.files() == before
