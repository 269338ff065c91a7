"""Two processes on one journal (the app and the MCP server): what one writes, the other's search
finds and its screens hear of, without a restart. Two Memoir objects stand for the two processes:
each has its own engine, its own origin in the change feed and its own in-memory indexes."""

import pytest
from sqlalchemy import text

from memoir_desktop.core import Memoir
from memoir_desktop.core.apps import app_suggestions
from memoir_desktop.core.storage import outside_changes

PASS = "outside changes pass"


@pytest.fixture
def pair(tmp_path):
    app = Memoir.open(tmp_path, passphrase=PASS)
    server = Memoir.open(tmp_path, passphrase=PASS)
    yield app, server
    server.close()
    app.close()


def _texts(mem, query, limit=5):
    return [m["memory"] for m in mem.search(query, limit=limit)["results"]]


def _warm(*mems):
    """Each side has built its indexes (BM25 and vectors) before the other writes."""
    for mem in mems:
        mem.search("anything at all")
        mem.search_field.search_entries("anything")


def test_a_fresh_journal_finds_what_the_other_side_writes_later(pair):
    app, server = pair
    _warm(app, server)  # no collection exists yet: the server looked and found none
    app.add("I keep bees on the roof of my flat", infer=False)
    assert "I keep bees on the roof of my flat" in _texts(server, "bees")
    assert "I keep bees on the roof of my flat" in _texts(server, "what insects do I look after?")


def test_memories_added_edited_and_forgotten_elsewhere_are_followed(pair):
    app, server = pair
    app.add("My sister lives in Busan", infer=False)
    _warm(app, server)
    added = server.add("I play the cello on Sunday mornings", infer=False)["results"][0]["id"]
    assert _texts(app, "cello")[0] == "I play the cello on Sunday mornings"
    server.update(added, "I play the violin on Sunday mornings")
    assert "I play the violin on Sunday mornings" in _texts(app, "violin")
    assert not any("cello" in t for t in _texts(app, "cello"))
    server.delete(added)
    assert not any("violin" in t for t in _texts(app, "violin"))


def test_entries_written_and_trashed_elsewhere_are_followed(pair):
    app, server = pair
    _warm(app, server)
    entry = app.journal.write("오늘 제주도 바다에서 수영을 했다")
    assert [e["id"] for e in server.search_field.search_entries("제주도")] == [entry]
    app.journal.trash(entry)
    assert server.search_field.search_entries("제주도") == []


def test_the_screens_hear_of_the_other_sides_changes_only(pair):
    app, server = pair
    app.outside_changes()
    mine = app.add("I take the 7:40 train to work", infer=False)["results"][0]["id"]
    assert not app.outside_changes()  # its own write is no outside change
    theirs = server.add("I am learning Portuguese", infer=False)["results"][0]["id"]
    app_suggestions.suggest(server.engine, "Claude Desktop", "Likes hiking")
    seen = app.outside_changes()
    assert theirs in seen.memories and mine not in seen.memories
    assert seen.proposals
    assert not app.outside_changes()  # told once


def test_a_side_that_fell_behind_the_trimmed_feed_starts_over(pair, monkeypatch):
    app, server = pair
    app.add("I grow tomatoes on the balcony", infer=False)
    _warm(app, server)
    app.add("I ride a red bicycle to the office", infer=False)
    app.add("My cat is called Mochi", infer=False)
    monkeypatch.setattr(outside_changes, "KEEP_ROWS", 1)
    outside_changes.trim(app.engine)
    with server.engine.connect() as con:
        assert con.execute(text("SELECT COUNT(*) FROM change_feed")).scalar() <= 2
    assert _texts(server, "bicycle")[0] == "I ride a red bicycle to the office"
    assert "My cat is called Mochi" in _texts(server, "what is my cat's name?")
