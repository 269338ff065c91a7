"""Journal entries exported as Markdown or plain text, per day or in one file: the layout. The Markdown
text's escaping and what Obsidian reads are tests/core/test_obsidian_export.py's."""

from datetime import date, datetime

import pytest

from memoir_desktop.core.archive.markdown_format import escape_body
from memoir_desktop.core.archive.text_export import export_text, format_day

TRICKY = "# 제목\n- item\n1. item\n> quote\n```\ncode\n```\n+ plus\n* star\n2026. 3. 1. 일기\n===\n---"

ENTRIES = [
    # given out of order: the export sorts by time
    {"id": 3, "role": "assistant", "content": "좋은 하루였네요.\n푹 쉬세요.", "created_at": "2026-03-01T21:06:00",
     "source": "chat"},
    {"id": 2, "role": "user", "content": "오늘은 산책을 했다.\n\n저녁엔 비가 왔다.", "created_at": "2026-03-01T21:05:00",
     "source": "journal", "tags": ["산책", "날씨"]},
    {"id": 4, "role": "user", "content": TRICKY, "created_at": "2026-03-02T08:00:00", "source": "journal"},
    {"id": 1, "role": "user", "content": "Imported from Day One", "created_at": "2026-02-28T23:59:00",
     "source": "import", "tags": []},
]  # fmt: skip


def read(path) -> str:
    return path.read_bytes().decode("utf-8")


def test_day_headings_in_both_languages():
    assert format_day(date(2026, 3, 1), "ko") == "2026년 3월 1일 일요일"
    assert format_day(date(2026, 3, 1), "en") == "Sunday, March 1, 2026"
    assert format_day(date(2024, 2, 29), "ko") == "2024년 2월 29일 목요일"
    assert format_day(date(2024, 12, 30), "en") == "Monday, December 30, 2024"


def test_single_markdown_file_in_korean(tmp_path):
    [path] = export_text(ENTRIES, tmp_path / "journal")
    assert path == tmp_path / "journal.md"
    text = read(path)
    # Front matter: the tags of its entries, whether it holds a private one, whose Markdown it is.
    assert text.startswith('---\ntags: ["산책", "날씨"]\nprivate: false\nexported_from: memoir\n---\n'
                           "# 2026년 2월 28일 토요일\n\n## 23:59\n<!-- memoir ")
    assert "-->\n\nImported from Day One\n\n# 2026년 3월 1일 일요일\n" in text
    assert "\n# 2026년 3월 1일 일요일\n" in text and "\n# 2026년 3월 2일 월요일\n" in text
    # days, then times, in order
    assert text.index("2월 28일") < text.index("3월 1일") < text.index("3월 2일")
    assert text.index("## 21:05\n") < text.index("## 21:06 · memoir\n")
    # a single newline is a hard break (two trailing spaces); a blank line stays a paragraph break
    assert "-->\n\n좋은 하루였네요.  \n푹 쉬세요.\n" in text
    assert '<!-- memoir {"date": "2026-03-01T21:05:00", "tags": ["산책", "날씨"], "private": false, "id": ""} -->\n\n' \
           "오늘은 산책을 했다.\n\n저녁엔 비가 왔다.\n" in text
    assert "\r" not in text and text.endswith("\n")


def test_markdown_escapes_line_starts(tmp_path):
    [path] = export_text(ENTRIES, tmp_path / "j.md", lang="en")
    text = read(path)
    body = "\\# 제목  \n\\- item  \n1\\. item  \n\\> quote  \n\\`\\`\\`  \ncode  \n\\`\\`\\`  \n\\+ plus  \n"
    body += "\\* star  \n2026\\. 3. 1. 일기  \n\\=\\=\\=  \n\\---\n"
    assert "## 08:00\n<!-- memoir " in text and f" -->\n\n{body}" in text
    assert "# Monday, March 2, 2026\n" in text and "## 21:06 · memoir\n" in text


@pytest.mark.parametrize(
    ("content", "source"),
    [
        (
            "*별* _밑줄_ `코드` [링크](x) <b>태그</b>",
            "\\*별\\* \\_밑줄\\_ \\`코드\\` \\[링크\\](x) \\<b>태그\\</b>",
        ),
        ("a|b ~~취소~~ $5 and $6", "a\\|b \\~\\~취소\\~\\~ \\$5 and \\$6"),
        ("C:\\Users\\ 끝\\", "C:\\\\Users\\\\ 끝\\\\"),
        ("&amp; &#39; & 그리고", "\\&amp; \\&\\#39; & 그리고"),
        ("    들여쓰기", "&nbsp;&nbsp;&nbsp;&nbsp;들여쓰기"),
        ("\t# tab", "&#9;\\# tab"),
        ("1) 둘째 방식\n10.\n1.5kg", "1\\) 둘째 방식  \n10\\.  \n1.5kg"),
        ("끝 공백   \n다음", "끝 공백&#32;&#32;&#32;  \n다음"),
        ("첫 문단\n\n\n\n둘째\n", "첫 문단\n\n\n\n둘째\n"),
        ("#해시태그 [[링크]] %%숨김%% ==형광==", "\\#해시태그 \\[\\[링크\\]\\] \\%\\%숨김\\%\\% \\=\\=형광\\=\\="),
    ],
)
def test_markdown_escape_source(content, source):
    assert escape_body(content) == source


def test_plain_text_keeps_content_exactly(tmp_path):
    [path] = export_text(ENTRIES, tmp_path / "journal.txt", fmt="txt")
    text = read(path)
    assert path.name == "journal.txt"
    for entry in ENTRIES:
        assert entry["content"] in text  # no escaping, line breaks as written
    assert text.startswith("2026년 2월 28일 토요일\n\n[23:59]\nImported from Day One\n")
    assert (
        "[21:05]\n오늘은 산책을 했다.\n\n저녁엔 비가 왔다.\n태그: 산책, 날씨\n\n[21:06 · memoir]\n좋은 하루였네요."
        in text
    )
    assert f"[08:00]\n{TRICKY}\n" in text


def test_suffix_added_when_missing(tmp_path):
    assert export_text(ENTRIES, tmp_path / "a", fmt="txt") == [tmp_path / "a.txt"]
    assert export_text(ENTRIES, tmp_path / "b.MD") == [tmp_path / "b.MD"]
    assert export_text(ENTRIES, tmp_path / "c.txt") == [tmp_path / "c.txt.md"]
    assert export_text(ENTRIES, tmp_path / "new" / "dir" / "d.md") == [tmp_path / "new" / "dir" / "d.md"]


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_one_file_per_day(tmp_path, fmt):
    out = tmp_path / "export"
    paths = export_text(ENTRIES, out, fmt=fmt, per_day=True, lang="en")
    assert [p.name for p in paths] == [f"2026-02-28.{fmt}", f"2026-03-01.{fmt}", f"2026-03-02.{fmt}"]
    assert sorted(out.iterdir()) == paths  # no temp file left behind
    day = read(out / f"2026-03-01.{fmt}")
    heading = "# Sunday, March 1, 2026\n" if fmt == "md" else "Sunday, March 1, 2026\n"
    if fmt == "md":  # the day's properties first
        assert day.startswith('---\ndate: 2026-03-01\ntags: ["산책", "날씨"]\nprivate: false\nexported_from: memoir\n---\n')
        day = day.split("\n---\n", 1)[1]
    assert day.startswith(heading)
    assert "February" not in day and "March 2" not in day
    assert day.index("21:05") < day.index("21:06 · memoir")


def test_atomic_write_leaves_no_temp_file_and_replaces(tmp_path):
    target = tmp_path / "journal.md"
    target.write_text("old", encoding="utf-8")
    export_text(ENTRIES, target)
    assert read(target).startswith("---\ntags: ")
    assert [p.name for p in tmp_path.iterdir()] == ["journal.md"]


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "journal.md"
    target.write_text("old", encoding="utf-8")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr("memoir_desktop.core.archive.text_export.os.replace", broken_replace)
    with pytest.raises(OSError):
        export_text(ENTRIES, target)
    assert read(target) == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["journal.md"]


def test_newlines_ties_datetimes_and_empty_content(tmp_path):
    entries = [
        {"id": 1, "role": "user", "content": "윈도\r\n줄바꿈\r끝", "created_at": datetime(2026, 3, 1, 9, 0)},
        {"id": 2, "role": "assistant", "content": "", "created_at": "2026-03-01T09:00:00+09:00"},
        {"id": 3, "role": "user", "content": None, "created_at": "2026-03-01T09:00:00", "tags": "하나"},
    ]
    [path] = export_text(entries, tmp_path / "t", fmt="txt")
    assert read(path) == (
        "2026년 3월 1일 일요일\n\n[09:00]\n윈도\n줄바꿈\n끝\n\n[09:00 · memoir]\n\n[09:00]\n태그: 하나\n"
    )
    [path] = export_text(entries, tmp_path / "m")
    text = read(path)
    # Markdown keeps the text as it is held, carriage returns too (written as references).
    assert "-->\n\n윈도&#13;  \n줄바꿈&#13;끝\n\n## 09:00 · memoir\n" in text
    assert text.endswith('"tags": ["하나"], "private": false, "id": ""} -->\n\n\n\n')


def test_nothing_to_export(tmp_path):
    assert export_text([], tmp_path / "days", per_day=True) == []
    [path] = export_text([], tmp_path / "empty", fmt="txt")
    assert read(path) == ""
    [path] = export_text([], tmp_path / "empty")
    assert read(path) == "---\ntags: []\nprivate: false\nexported_from: memoir\n---\n"


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        export_text(ENTRIES, tmp_path / "x", fmt="html")
    with pytest.raises(ValueError):
        export_text(ENTRIES, tmp_path / "x", lang="fr")
    with pytest.raises(ValueError):
        export_text([{"id": 9, "content": "x"}], tmp_path / "x")
    with pytest.raises(ValueError):
        export_text(ENTRIES, tmp_path / "x", fmt="txt", per_entry=True)
