"""A laptop and a desktop sharing one journal through a folder, as in a diarist's first week: an entry
written where no AI is set is remembered on the computer that has one (it stayed unread for ever), both
computers show the same journal in the same order, and the journal carries its AI settings (never the
key: each computer asks for its own)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from sqlmodel import Session

from memoir_desktop.core import Memoir, config
from memoir_desktop.core.keys import secrets
from memoir_desktop.core.llm import shared_settings
from memoir_desktop.core.sync import service
from tests.cli_in_process import run_cli
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.memory_keyring import MemoryKeyring
from tests.sync.conftest import PASS


@pytest.fixture
def ai():
    server = FakeLLM()
    yield server
    server.close()


def memory_texts(mem) -> list[str]:
    return sorted(m["memory"] for m in mem.get_all()["results"])


def test_an_entry_written_where_no_ai_is_set_is_remembered_on_the_other(devices, ai, monkeypatch):
    monkeypatch.setattr(service, "TAKE_OVER_AFTER", timedelta(0))  # the laptop had its chance
    laptop = devices.first("laptop", llm_base_url="")  # no AI on the laptop
    laptop.journal.write("Started a new sketchbook today", timestamp=datetime(2026, 3, 1, 21))
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk", llm_base_url=ai.url, llm_model="fake-model")
    assert desk.sync.last_report.taken_over == 1  # the join's own round finds the first entry unread
    laptop.journal.write("I adopted a grey cat called Miso", timestamp=datetime(2026, 3, 2, 21))
    laptop.sync.run()

    report = desk.sync.run()
    assert report.taken_over == 1
    # Both entries' memories, then the graph's readings that follow them.
    done = desk.jobs.process()
    assert [r["state"] for r in done] == ["done"] * 4 and [r["kind"] for r in done][2:] == ["graph", "graph"]
    assert memory_texts(desk) == ["I adopted a grey cat called Miso", "Started a new sketchbook on March 1, 2026"]

    desk.sync.run()
    laptop.sync.run()
    assert memory_texts(laptop) == memory_texts(desk)
    assert all(e["read"] for e in laptop.journal.entries())
    # Nothing is read twice: the desk has nothing left to take over, and the laptop's own jobs, once an
    # AI is set there, find their entries read.
    assert desk.sync.run().taken_over == 0
    asked = len(ai.calls("save_facts"))
    settings = laptop.settings
    settings.llm_base_url, settings.llm_model = ai.url, "fake-model"
    laptop.reconfigure(settings)
    done = laptop.jobs.process()
    assert done and all(r["state"] == "done" and r["result"].get("skipped") for r in done)
    assert len(ai.calls("save_facts")) == asked

    # The same journal in the same order, and the same numbers for its entries, on both computers.
    def shown(mem):
        return [(e["ref"], e["created_at"], e["content"]) for e in mem.journal.entries()]

    assert shown(laptop) == shown(desk)


def test_an_entry_its_own_computer_reads_is_not_taken_over(devices, ai, monkeypatch):
    monkeypatch.setattr(service, "TAKE_OVER_AFTER", timedelta(0))
    laptop = devices.first("laptop", llm_base_url=ai.url, llm_model="fake-model")
    laptop.journal.write("Made kimchi with grandmother")
    laptop.jobs.process()
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk", llm_base_url=ai.url, llm_model="fake-model")
    assert desk.sync.run().taken_over == 0 and desk.jobs.all("pending") == []
    assert memory_texts(desk) == ["Made kimchi with grandmother"]


def test_the_journal_carries_its_ai_settings_and_never_the_key(devices, monkeypatch):
    url = "https://llm.example.test/v1"
    desk = devices.first("desk")
    secrets.set_api_key("sk-desk-only-4821")
    config.persist(desk.home, desk.settings, llm_base_url=url, llm_model="writer-large",
                   llm_key_endpoint=secrets.endpoint_of(url), not_remembered=["health"])
    desk.reconfigure(desk.settings)  # saved in Settings → AI companion
    desk.journal.write("Booked the train to Busan")
    desk.sync.run(devices.place.url)

    MemoryKeyring._store.clear()  # the laptop is another computer: its keyring is its own, and empty
    laptop = devices.join("laptop")
    assert laptop.sync.last_report.settings_taken
    s = laptop.settings
    assert (s.llm_base_url, s.llm_model, s.not_remembered) == (url, "writer-large", ["health"])
    saved = (laptop.home / "settings.json").read_text()
    assert url in saved and "sk-desk" not in saved
    with Session(laptop.engine) as db:
        assert "sk-desk" not in json.dumps(shared_settings.read(db))  # what travelled
    # The laptop asks for its own key: its jobs say so, and so does memoir-cli status.
    status = laptop.jobs.status()["llm"]
    assert status["from_journal"] and status["needs_key"]
    laptop.journal.write("Packed for Busan")
    assert [j["reason"]["kind"] for j in laptop.jobs.all("pending") if j["kind"] == "memorize"] == ["needs_key"]
    laptop.close()
    devices.open.remove(laptop)
    r = run_cli("status", env={"MEMOIR_HOME": str(laptop.home), "MEMOIR_PASSPHRASE": PASS})
    assert r.returncode == 0 and "needs its API key here too" in r.stdout, r.stdout + r.stderr

    # A change made where the journal's settings are followed becomes the journal's; a computer whose AI
    # was set there keeps its own; a third computer takes the latest.
    laptop = Memoir.open(laptop.home, passphrase=PASS)
    devices.open.append(laptop)
    config.persist(laptop.home, laptop.settings, llm_model="writer-small")
    laptop.reconfigure(laptop.settings)
    laptop.sync.run()
    assert not desk.sync.run().settings_taken and desk.settings.llm_model == "writer-large"
    third = devices.join("third")
    assert third.settings.llm_model == "writer-small" and third.settings.not_remembered == ["health"]


def test_a_computer_with_its_own_ai_keeps_it(devices, ai):
    laptop = devices.first("laptop")
    config.persist(laptop.home, laptop.settings, llm_base_url="http://127.0.0.1:9/v1", llm_model="far-away")
    laptop.reconfigure(laptop.settings)
    laptop.journal.write("Rain all day")
    laptop.sync.run(devices.place.url)
    desk = devices.join("desk")
    config.persist(desk.home, desk.settings, llm_base_url=ai.url, llm_model="fake-model")
    desk.reconfigure(desk.settings)
    desk.sync.run()
    laptop.sync.run()
    # Both had their own: each keeps it (the journal's are the latest saved, for the next computer).
    assert (laptop.settings.llm_base_url, desk.settings.llm_base_url) == ("http://127.0.0.1:9/v1", ai.url)
    assert devices.join("third").settings.llm_base_url == ai.url
