"""Import (memoir JSON, Day One) with memories built in the background as a batch; text export; backups."""

import io
import json
import zipfile
from datetime import datetime

from memoir_desktop.core import Memoir


def dayone_zip(path, entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}, "entries": entries}))
        z.writestr("photos/abc.jpeg", b"\xff\xd8")
    path.write_bytes(buf.getvalue())
    return path


ENTRIES = [
    {"uuid": "A1", "creationDate": "2023-05-01T14:30:00Z", "timeZone": "Asia/Seoul",
     "text": "# 제주 여행\n\n한라산에 올랐다\\. 정말 힘들었다\\!\n\n![](dayone-moment://ABC)", "tags": ["여행"]},
    {"uuid": "B2", "creationDate": "2023-05-02T23:10:00Z", "timeZone": "America/New_York",
     "text": "Dinner with Grace at the ramen place.", "tags": []},
    {"uuid": "C3", "creationDate": "2023-05-03T01:00:00Z", "timeZone": "Asia/Seoul", "text": "",
     "photos": [{"identifier": "X"}]},
]


def test_dayone_import_keeps_dates_tags_and_zones_and_builds_memories_as_a_cancellable_batch(mem, fake_llm, tmp_path):
    out = mem.archive.import_file(dayone_zip(tmp_path / "dayone.zip", ENTRIES))
    assert out["kind"] == "dayone" and out["entries"] == 2 and out["skipped"] == 1
    rows = mem.journal.entries()
    assert [e["content"] for e in rows] == ["제주 여행\n\n한라산에 올랐다. 정말 힘들었다!",
                                           "Dinner with Grace at the ramen place."]
    assert rows[0]["created_at"] == "2023-05-01T23:30:00" and rows[0]["tags"] == ["여행"]
    assert rows[0]["time_zone"] == "Asia/Seoul"
    assert rows[1]["created_at"] == "2023-05-02T19:10:00"  # New York wall clock, EDT
    batch = out["batch"]
    assert mem.archive.batch_progress(batch) == {"total": 2, "done": 0, "failed": 0, "pending": 2, "cancelled": 0}
    mem.jobs.process(limit=1)
    assert mem.archive.cancel_batch(batch) == 1
    assert mem.archive.batch_progress(batch)["cancelled"] == 1
    assert mem.jobs.process() == []  # a cancelled job does not run
    assert mem.archive.resume_batch(batch) == 1
    mem.jobs.process()
    assert mem.archive.batch_progress(batch)["done"] == 2
    assert len(mem.get_all()["results"]) >= 2
    again = mem.archive.import_file(tmp_path / "dayone.zip")
    assert again["entries"] == 0 and again["already_there"] == 2


def test_a_file_that_is_neither_export_is_refused_clearly(mem, tmp_path):
    import pytest

    from memoir_desktop.core.inputs import InvalidInput

    bad = tmp_path / "notes.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(InvalidInput) as e:
        mem.archive.import_file(bad)
    assert "notes.zip" in str(e.value)
    assert mem.journal.entries() == []


def test_memoir_export_round_trip_keeps_edits_trash_tags_and_sources(mem, fake_llm, tmp_path):
    eid = mem.journal.write("I keep bees", timestamp=datetime(2026, 3, 1, 9))
    mem.jobs.process()
    mem.journal.edit(eid, "I keep bees and hens")
    mem.jobs.process()
    gone = mem.journal.write("old note", timestamp=datetime(2026, 3, 2, 9))
    mem.journal.trash(gone)
    path = tmp_path / "export.json"
    mem.archive.export(path)
    with Memoir.open(tmp_path / "other", llm_base_url=fake_llm.url, llm_model="fake-model") as m2:
        counts = m2.archive.import_file(path)
        assert counts["kind"] == "memoir" and counts["entries"] == 2
        [e] = m2.journal.entries()
        assert e["content"] == "I keep bees and hens" and e["edited"]
        assert [h["event"] for h in m2.journal.history(e["id"])] == ["EDIT"]
        assert [t["content"] for t in m2.journal.in_trash()] == ["old note"]
        # the memory knows its source entry in the new journal too: trashing it takes the memory along
        m2.journal.trash(e["id"])
        assert m2.get_all()["results"] == []


def test_text_export_of_the_journal_and_backup_now(mem, fake_llm, tmp_path):
    mem.journal.write("첫 줄\n둘째 줄", timestamp=datetime(2026, 3, 1, 21, 5))
    mem.journal.write("# 제목처럼 보이는 줄", timestamp=datetime(2026, 3, 2, 8, 0))
    files = mem.archive.export_text(tmp_path / "days", fmt="md", per_day=True)
    assert [f.rsplit("/", 1)[-1] for f in files] == ["2026-03-01.md", "2026-03-02.md"]
    assert "\\# 제목처럼" in open(files[1], encoding="utf-8").read()
    [txt] = mem.archive.export_text(tmp_path / "all.txt", fmt="txt")
    body = open(txt, encoding="utf-8").read()
    assert "첫 줄\n둘째 줄" in body and "# 제목처럼 보이는 줄" in body
    made = mem.archive.backup_now()
    assert made in mem.archive.backups()
