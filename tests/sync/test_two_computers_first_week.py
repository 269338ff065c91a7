"""A laptop and a desktop sharing one journal through a folder, as in a diarist's first week: an entry
written where no AI is set is remembered on the computer that has one (it stayed unread for ever), and
both computers show the same journal in the same order."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memoir_desktop.core.sync import service
from tests.fakes.fake_llm import FakeLLM


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
    assert [r["state"] for r in desk.jobs.process()] == ["done", "done"]
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
