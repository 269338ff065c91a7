"""Durability and the derived index: crash resume, reconcile, export/import, bad input."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.inputs import InvalidInput

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_export_import_round_trip(mem, tmp_path):
    a = mem.add("I adopted a dog named Bori", timestamp="2025-02-01")["results"][0]["id"]
    mem.journal.write("오늘은 보리랑 산책했다")
    mem.jobs.process()
    mem.update(a, "I adopted a dog named Bori in February")
    mem.delete(mem.add("I dislike rain")["results"][0]["id"])
    path = tmp_path / "export.json"
    counts = mem.archive.export(path)
    assert counts["memories"] == 3
    data = json.loads(path.read_text("utf-8"))
    assert {"entries", "memories", "history", "summaries"} <= data.keys()
    with Memoir.open(tmp_path / "other", reconcile=True) as other:
        got = other.archive.import_(path)
        assert got["memories"] == 3
        assert sorted(m["memory"] for m in other.get_all(include_invalid=True)["results"]) == sorted(
            m["memory"] for m in mem.get_all(include_invalid=True)["results"])
        assert [h["event"] for h in other.history(a)] == ["ADD", "UPDATE"]
        assert other.search("Bori")["results"][0]["id"] == a
        assert [e["content"] for e in other.journal.entries()] == [e["content"] for e in mem.journal.entries()]
        again = other.archive.import_(path)  # importing twice duplicates neither memories nor entries
        assert again["memories"] == 0 and again["entries"] == 0 and again["summaries"] == 0
        assert [e["content"] for e in other.journal.entries()] == [e["content"] for e in mem.journal.entries()]


def test_import_rejects_foreign_file(mem, tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(InvalidInput, match="not a memoir export"):
        mem.archive.import_(bad)


@pytest.mark.parametrize("text,ok", [
    ("", False), ("   \n\t", False), ("a\x00b\x07c", True), ("🙂 شكرا 😊", True),
    ("'; DROP TABLE memory; --", True), ('{"facts": ["x"]}', True), ("가" * 5000, True),
    ("x" * 300_000, False),
])
def test_bad_input_stored_or_refused_clearly(mem, text, ok):
    if ok:
        eid = mem.journal.write(text)
        assert mem.journal.entries()[-1]["id"] == eid
        assert "\x00" not in mem.journal.entries()[-1]["content"]
    else:
        with pytest.raises(InvalidInput) as exc:
            mem.journal.write(text)
        assert str(exc.value)
        assert mem.journal.entries() == []


def test_index_rebuilt_when_qdrant_dir_deleted(tmp_path, fake_llm):
    home = tmp_path / "h"
    with Memoir.open(home, encrypt=False) as m:  # a plain journal's index is Qdrant's folder
        ids = [r["id"] for r in m.add(["I like tea", "I like trains"], infer=False)["results"]]
    import shutil

    shutil.rmtree(home / "qdrant")
    with Memoir.open(home) as m:
        assert m.index_report["rebuilt"] == ["me"]
        assert {r["id"] for r in m.search("tea trains")["results"]} == set(ids)


def test_encrypted_index_rebuilt_when_its_vectors_are_lost(tmp_path, fake_llm):
    home = tmp_path / "h"
    with Memoir.open(home) as m:
        assert m.keys.encrypted
        ids = [r["id"] for r in m.add(["I like tea", "I like trains"], infer=False)["results"]]
        with m.engine.begin() as conn:
            conn.exec_driver_sql("DELETE FROM vector_point")
            conn.exec_driver_sql("DELETE FROM vector_collection")
    with Memoir.open(home) as m:
        assert m.index_report["rebuilt"] == ["me"]
        assert {r["id"] for r in m.search("tea trains")["results"]} == set(ids)


def test_index_reconciled_after_drift(tmp_path):
    home = tmp_path / "h"
    with Memoir.open(home) as m:
        ids = [r["id"] for r in m.add(["one fact", "two facts", "three facts"], infer=False)["results"]]
        name = m.store.collection("me")
        m.vectors.delete(name, [ids[0]])  # as if the process died between commit and upsert
    with Memoir.open(home) as m:
        assert m.index_report["added"] == 1
        assert m.vectors.count(m.store.collection("me")) == 3


def test_index_rebuilt_for_another_model(tmp_path):
    home = tmp_path / "h"
    with Memoir.open(home) as m:
        m.add(["I like tea"], infer=False)
    with Memoir.open(home, embed_model="hashed-ngrams") as m:  # any other model; this one needs nothing installed
        assert m.index_report["rebuilt"] == ["me"]
        assert m.search("tea")["results"][0]["memory"] == "I like tea"


def test_unknown_model_falls_back_visibly(tmp_path):
    with Memoir.open(tmp_path, embed_model="no-such/model-xyz") as m:
        m.add(["I like tea"], infer=False)
        st = m.jobs.status()["embedder"]
        assert st["state"] == "fallback" and "no-such/model-xyz" in st["message"]
        assert m.search("tea")["results"]


CHILD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from memoir_desktop.core import Memoir
    m = Memoir.open({home!r}, llm_base_url={url!r}, llm_model="fake")
    for i in range(3):
        eid = m.journal.write(f"crash entry {{i}}")
        print("ACK", eid, flush=True)
    print("PROCESSING", flush=True)
    m.jobs.process()
    print("DONE", flush=True)
    time.sleep(60)
""")


@pytest.mark.slow
def test_process_killed_during_job_resumes_without_loss(tmp_path, fake_llm):
    from tests.fakes.fake_llm import echo_facts, slow

    os.environ["MEMOIR_PASSPHRASE"] = "crash test passphrase"  # the child's test keyring dies with it

    fake_llm.on("save_facts", lambda req: slow(1.5, echo_facts(req)))
    home = str(tmp_path / "h")
    proc = subprocess.Popen([sys.executable, "-c", CHILD.format(root=ROOT, home=home, url=fake_llm.url)],
                            stdout=subprocess.PIPE, text=True)
    acked = []
    for line in proc.stdout:
        if line.startswith("ACK"):
            acked.append(int(line.split()[1]))
        if line.startswith("PROCESSING"):
            break
    time.sleep(0.8)  # inside the first (slow) extraction call
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    fake_llm.on("save_facts", echo_facts)
    with Memoir.open(home, llm_base_url=fake_llm.url, llm_model="fake") as m:
        assert m.resumed_jobs == 1
        assert [e["id"] for e in m.journal.entries()] == acked
        m.jobs.process()
        assert sorted(x["memory"] for x in m.get_all()["results"]) == [f"crash entry {i}" for i in range(3)]
        assert all(j["state"] == "done" for j in m.jobs.all())
        assert m.vectors.count(m.store.collection("me")) == 3


def test_a_journal_written_by_an_older_schema_is_migrated_and_keeps_everything(tmp_path):
    """tests/data/schemas/memoir_v1.sql: a database as schema 1 wrote it (made once, kept as SQL)."""
    import sqlite3

    from memoir_desktop.core import Memoir
    from memoir_desktop.core.db import SCHEMA_VERSION

    home = tmp_path / "home"
    home.mkdir()
    con = sqlite3.connect(home / "memoir.db")
    con.executescript((Path(__file__).parent.parent / "data" / "schemas" / "memoir_v1.sql").read_text("utf-8"))
    con.close()
    with Memoir.open(home) as m:
        texts = sorted(x["memory"] for x in m.get_all()["results"])
        assert texts == ["I like green tea", "나는 부산에 산다"]
        assert [e["content"] for e in m.journal.entries()] == ["오늘은 비가 왔다"]
        mid = m.add("매주 금요일에 요가를 해", infer=False)["results"][0]["id"]
        assert m.get(mid)["recurrence"] == "FREQ=WEEKLY;BYDAY=FR"
        with m.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar() \
                == str(SCHEMA_VERSION)


def test_a_schema_3_journal_gains_reply_links_and_keeps_its_entries(tmp_path):
    """Journals written at schema 3 have no entry.reply_to: migration 4 adds it, nothing else changes."""
    import sqlite3

    from memoir_desktop.core import Memoir

    home = tmp_path / "home"
    with Memoir.open(home, encrypt=False) as m:
        m.journal.write("오늘은 비가 왔다")
    con = sqlite3.connect(home / "memoir.db")
    con.execute("DROP INDEX ix_entry_user_kind")  # a schema-3 journal has none of schemas 5 and 6 either
    con.execute("ALTER TABLE entry DROP COLUMN kind")
    con.execute("ALTER TABLE entry DROP COLUMN private")
    con.execute("DROP TABLE vector_point")
    con.execute("DROP TABLE vector_collection")
    con.execute("ALTER TABLE entry DROP COLUMN reply_to")
    con.execute("UPDATE meta SET value='3' WHERE key='schema_version'")
    con.commit()
    con.close()
    with Memoir.open(home) as m:
        assert [e["content"] for e in m.journal.entries()] == ["오늘은 비가 왔다"]
        with m.engine.connect() as conn:
            cols = [r[1] for r in conn.exec_driver_sql("PRAGMA table_info(entry)")]
        assert "reply_to" in cols and "private" in cols  # migrations 4 and 6
        assert m.journal.entries()[0]["private"] is False


def test_a_schema_4_journal_gains_entry_kinds_and_follow_ups(tmp_path):
    """Migration 5: entries get a kind ("entry" for all written before), follow-ups a table of their own."""
    import sqlite3

    from memoir_desktop.core import Memoir
    from memoir_desktop.core.db import SCHEMA_VERSION

    home = tmp_path / "home"
    with Memoir.open(home, encrypt=False) as m:
        eid = m.journal.write("오늘은 비가 왔다")
    con = sqlite3.connect(home / "memoir.db")
    con.execute("DROP INDEX ix_entry_user_kind")
    con.execute("ALTER TABLE entry DROP COLUMN kind")
    con.execute("DROP TABLE follow_up")
    con.execute("ALTER TABLE entry DROP COLUMN private")  # and none of schema 6
    con.execute("DROP TABLE vector_point")
    con.execute("DROP TABLE vector_collection")
    con.execute("UPDATE meta SET value='4' WHERE key='schema_version'")
    con.commit()
    con.close()
    with Memoir.open(home, encrypt=False) as m:
        assert [(e["id"], e["kind"]) for e in m.journal.entries()] == [(eid, "entry")]
        with m.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar() \
                == str(SCHEMA_VERSION)
            assert conn.exec_driver_sql("SELECT count(*) FROM follow_up").scalar() == 0
