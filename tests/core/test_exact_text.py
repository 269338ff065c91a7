"""An entry keeps the diarist's exact text: a poem's indentation, a blank line before the last one, a
trailing line (they were stripped at both ends)."""

from __future__ import annotations

import pytest

from memoir_desktop.core.inputs import InvalidInput

POEM = "  별 헤는 밤\n\n    계절이 지나가는 하늘에는\n    가을로 가득 차 있습니다.\n\n"


def test_an_entry_keeps_its_indentation_and_its_blank_lines(mem):
    eid = mem.journal.write(POEM)
    assert mem.journal.entry(eid)["content"] == POEM
    edited = "\t들여쓴 첫 줄\n끝줄 뒤의 빈 줄\n"
    assert mem.journal.edit(eid, edited).entry["content"] == edited
    assert mem.journal.entry(eid)["content"] == edited
    assert [h["old_content"] for h in mem.journal.history(eid) if h.get("old_content")] == [POEM]


def test_a_blank_entry_is_still_refused(mem):
    with pytest.raises(InvalidInput):
        mem.journal.write(" \n\t \n")


def test_an_export_and_its_import_keep_the_exact_text(mem, tmp_path):
    from memoir_desktop.core import Memoir

    mem.journal.write(POEM)
    mem.archive.export(tmp_path / "out.json")
    with Memoir.open(tmp_path / "other", encrypt=False) as other:
        other.archive.import_(tmp_path / "out.json")
        assert [e["content"] for e in other.journal.entries()] == [POEM]
