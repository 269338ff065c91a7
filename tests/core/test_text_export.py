"""Journal entries exported as Markdown or plain text, per day or in one file."""

import re
from datetime import date, datetime
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_desktop.core.archive.text_export import export_text, format_day, markdown_escape

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
    assert text.startswith("# 2026년 2월 28일 토요일\n\n## 23:59\n\nImported from Day One\n")
    assert "\n# 2026년 3월 1일 일요일\n" in text and "\n# 2026년 3월 2일 월요일\n" in text
    # days, then times, in order
    assert text.index("2월 28일") < text.index("3월 1일") < text.index("3월 2일")
    assert text.index("## 21:05\n") < text.index("## 21:06 · memoir\n")
    # a single newline is a hard break (two trailing spaces); a blank line stays a paragraph break
    assert "## 21:06 · memoir\n\n좋은 하루였네요.  \n푹 쉬세요.\n" in text
    assert "## 21:05\n\n오늘은 산책을 했다.\n\n저녁엔 비가 왔다.\n\n태그: 산책, 날씨\n" in text
    assert "\r" not in text and text.endswith("\n")


def test_markdown_escapes_line_starts(tmp_path):
    [path] = export_text(ENTRIES, tmp_path / "j.md", lang="en")
    text = read(path)
    body = "\\# 제목  \n\\- item  \n1\\. item  \n\\> quote  \n\\`\\`\\`  \ncode  \n\\`\\`\\`  \n\\+ plus  \n"
    body += "\\* star  \n2026\\. 3. 1. 일기  \n\\===  \n\\---\n"
    assert f"## 08:00\n\n{body}" in text
    assert "# Monday, March 2, 2026\n" in text and "## 21:06 · memoir\n" in text
    assert "Tags: 산책, 날씨\n" in text


@pytest.mark.parametrize(
    ("content", "source"),
    [
        (
            "*별* _밑줄_ `코드` [링크](x) <b>태그</b>",
            "\\*별\\* \\_밑줄\\_ \\`코드\\` \\[링크\\](x) \\<b>태그\\</b>",
        ),
        ("a|b ~~취소~~ $5 and $6", "a\\|b \\~\\~취소\\~\\~ \\$5 and \\$6"),
        ("C:\\Users\\ 끝\\", "C:\\\\Users\\\\ 끝\\\\"),
        ("&amp; &#39; & 그리고", "\\&amp; \\&#39; & 그리고"),
        ("    들여쓰기", "&nbsp;&nbsp;&nbsp;&nbsp;들여쓰기"),
        ("\t# tab", "&nbsp;&nbsp;&nbsp;&nbsp;\\# tab"),
        ("1) 둘째 방식\n10.\n1.5kg", "1\\) 둘째 방식  \n10\\.  \n1.5kg"),
        ("끝 공백   \n다음", "끝 공백  \n다음"),
        ("첫 문단\n\n\n\n둘째\n", "첫 문단\n\n둘째"),
        ("#해시태그", "\\#해시태그"),
    ],
)
def test_markdown_escape_source(content, source):
    assert markdown_escape(content) == source


class _Text(HTMLParser):
    """The text a reader sees in rendered HTML: <br> is a line break, paragraphs are separated by one blank line."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []

    def handle_starttag(self, tag, attrs):
        if tag == "br":
            self.parts.append("\n")
        elif tag == "p" and self.parts:
            self.parts.append("\n\n")

    def handle_data(self, data):
        self.parts.append(data.replace("\n", ""))  # the source newline after <br /> is not text


def rendered(source: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    html_out = md.render(source)
    assert re.fullmatch(r"(<p>.*?</p>\n)*", html_out, re.S), html_out  # nothing but paragraphs
    parser = _Text()
    parser.feed(html_out)
    return "".join(parser.parts)  # character references already decoded by the parser


def as_seen(text: str) -> str:
    """What rendering can keep of a text: indentation as no-break spaces, one blank line between paragraphs."""
    lines = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        body = line.lstrip(" \t")
        lead = line[: len(line) - len(body)].replace("\t", "    ").replace(" ", "\xa0")
        lines.append(lead + body.rstrip(" \t") if body.strip(" \t") else "")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


def test_rendered_markdown_reads_as_written():
    for content in (
        TRICKY,
        ENTRIES[0]["content"],
        ENTRIES[1]["content"],
        "*a* _b_ <i>c</i> [d](e) |f| ~~g~~ $h$",
    ):
        assert rendered(markdown_escape(content)) == as_seen(content)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="#>-+*=_`~|[]()<>!&;:\\$.1a가\u3000\xa0 \t\n\r", max_size=40))
def test_any_text_renders_as_written(content):
    assert rendered(markdown_escape(content)) == as_seen(content)


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
    assert day.startswith(heading)
    assert "February" not in day and "March 2" not in day
    assert day.index("21:05") < day.index("21:06 · memoir")


def test_atomic_write_leaves_no_temp_file_and_replaces(tmp_path):
    target = tmp_path / "journal.md"
    target.write_text("old", encoding="utf-8")
    export_text(ENTRIES, target)
    assert read(target).startswith("# 2026년 2월 28일")
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
    assert read(path) == (
        "# 2026년 3월 1일 일요일\n\n## 09:00\n\n윈도  \n줄바꿈  \n끝\n\n## 09:00 · memoir\n\n## 09:00\n\n태그: 하나\n"
    )


def test_nothing_to_export(tmp_path):
    assert export_text([], tmp_path / "days", per_day=True) == []
    [path] = export_text([], tmp_path / "empty")
    assert read(path) == ""


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        export_text(ENTRIES, tmp_path / "x", fmt="html")
    with pytest.raises(ValueError):
        export_text(ENTRIES, tmp_path / "x", lang="fr")
    with pytest.raises(ValueError):
        export_text([{"id": 9, "content": "x"}], tmp_path / "x")


def test_a_line_that_looks_like_a_table_rule_stays_text():
    """Found by the property test: "|" then ":-" on the next line rendered as a table."""
    for content in ("|\r:-", "a | b\n:--|--:", "x\n|:-|"):
        assert rendered(markdown_escape(content)) == as_seen(content)
