"""The Markdown export as Obsidian reads it, and back: each file's front matter parsed by a YAML library
(PyYAML, as Obsidian's own parser reads YAML), the body free of Obsidian's syntax where the diarist wrote
none ([[links]], #tags, %%comments%%, ==highlights==), private entries marked or left out and said, and
the export imported into an empty journal giving the same entries, whitespace and all."""

from __future__ import annotations

import re
from datetime import date, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_desktop.core import Memoir
from memoir_desktop.core.archive import markdown_format

# What the diarist wrote, as it must come back: Obsidian's marks typed as text, Markdown's marks at line
# starts, a first line "---" (a front matter fence to Obsidian), indents, tabs, trailing spaces, blank runs.
OBSIDIAN_WORDS = "오늘 [[지수]]랑 #여행 계획을 세웠다. %%비밀%% ==중요== ^블록 $5 [^1]\n부산 가는 KTX는 9:30."
FENCE_AND_SPACES = "---\ntitle: 머리말 아님\n---\n  들여쓴 줄\t\n\n\n\t탭으로 시작\n마지막 줄 뒤 공백  "
EDGES = "\n  앞뒤에 빈 줄과 공백이 있는 기록  \n\n"
ENGLISH = "Met Grace at Café Luna. It cost $5 & <b>tips</b>, a \\ backslash, ~~x~~ | a | table |\n1. one\n- two"
PRIVATE = "아무에게도 말 못 한 이야기"
REPLY = "좋은 계획이네요!\n부산 여행 즐겁게 다녀오세요."
LETTER = "# 이번 주의 편지\n\n지수와 부산 여행을 계획한 한 주였어요."


def _write(mem, text, when, **kw):
    """An entry exactly as given (the journal's own writing trims its edges; what the round trip must keep
    is the text the journal holds, however it came)."""
    return mem.journal.commit(text, user_id="me", timestamp=when, memorize=False, **kw).entry.id


@pytest.fixture
def journal(tmp_path):
    mem = Memoir.open(tmp_path / "home", encrypt=False, llm_base_url=None)
    first = _write(mem, OBSIDIAN_WORDS, datetime(2026, 3, 1, 21, 5), tags=["여행", "지수"])
    _write(mem, REPLY, datetime(2026, 3, 1, 21, 6), role="assistant", source="chat", reply_to=first)
    _write(mem, PRIVATE, datetime(2026, 3, 2, 8, 0), tags=["비밀"], private=True)
    _write(mem, "placeholder", datetime(2026, 3, 2, 9, 0))
    _write(mem, "placeholder", datetime(2026, 3, 2, 9, 30, 15, 250000))
    _write(mem, ENGLISH, datetime(2026, 3, 3, 7, 45), tags=["friends", "café"])
    _write(mem, LETTER, datetime(2026, 3, 8, 23, 59, 59), role="assistant", source="reflection", kind="letter",
           source_ref="2026-W10")
    trashed = _write(mem, "휴지통에 버린 기록", datetime(2026, 3, 4, 10, 0))
    mem.journal.trash(trashed)
    # Whitespace at the edges, which the journal's own writing would trim: set as the journal holds it.
    with mem.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE entry SET content = ? WHERE created_at = ?",
                             (FENCE_AND_SPACES, "2026-03-02 09:00:00.000000"))
        conn.exec_driver_sql("UPDATE entry SET content = ? WHERE created_at LIKE '2026-03-02 09:30:15%'", (EDGES,))
    yield mem
    mem.close()


def _held(mem) -> list[dict]:
    """Each entry as the diarist's journal holds it, by what identifies it everywhere."""
    keep = ("uuid", "role", "content", "created_at", "tags", "private", "kind", "time_zone", "source_ref")
    with mem.engine.connect() as conn:
        rows = conn.exec_driver_sql(
            f"SELECT {', '.join(keep)}, (SELECT uuid FROM entry r WHERE r.id = e.reply_to) FROM entry e "
            "WHERE deleted_at IS NULL ORDER BY created_at, id").all()
    return [{**dict(zip(keep, r[:-1], strict=True)), "reply_to": r[-1]} for r in rows]


def _obsidian_reads(path: Path) -> tuple[dict, str]:
    """Front matter (YAML between the first two `---` lines, as Obsidian takes it) and the body."""
    text = path.read_bytes().decode("utf-8")
    assert text.startswith("---\n"), path.name
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]), text[end + 5:]


# Obsidian's own syntax, where the diarist's text would turn into it: unescaped by a backslash.
OBSIDIAN_SYNTAX = {
    "a wiki link": re.compile(r"(?<!\\)\[\["),
    "a tag": re.compile(r"(?:^|(?<=\s))#[^\s#]"),
    "a comment": re.compile(r"(?<!\\)%%"),
    "a highlight": re.compile(r"(?<!\\)=="),
    "a block id": re.compile(r"(?<!\\)\^[\w-]+\s*$", re.M),
    "math": re.compile(r"(?<!\\)\$"),
}


def _no_obsidian_syntax(body: str) -> None:
    for what, pattern in OBSIDIAN_SYNTAX.items():
        assert not pattern.search(body), f"{what} in {body!r}"


def test_one_note_per_entry_has_front_matter_obsidian_reads(journal, tmp_path):
    out = journal.archive.export_text(tmp_path / "vault", fmt="md", per_entry=True)
    notes = sorted(Path(p) for p in out)
    assert [p.parent for p in notes] == [tmp_path / "vault"] * 6  # not the private one, not the trashed one
    read = {p.name: _obsidian_reads(p) for p in notes}
    front, body = read["2026-03-01 2105.md"]
    assert front["date"] == datetime(2026, 3, 1, 21, 5)  # a date-time property
    assert front["tags"] == ["여행", "지수"] and front["private"] is False
    assert isinstance(front["id"], str) and len(front["id"]) >= 16
    _no_obsidian_syntax(body)
    assert "지수" in body and "여행" in body
    reply, _ = read["2026-03-01 2106 memoir.md"]
    assert reply["kind"] == "reply" and reply["reply_to"] == front["id"]
    letter, _ = read["2026-03-08 2359 memoir.md"]
    assert letter["kind"] == "letter" and letter["date"] == datetime(2026, 3, 8, 23, 59, 59)
    fenced, body = read["2026-03-02 0900.md"]
    assert not body.startswith("---") and fenced["tags"] == []
    assert read["2026-03-02 0930.md"][0]["date"] == datetime(2026, 3, 2, 9, 30, 15, 250000)
    # What the export left out is said, with the way to include it.
    assert out.entries == 6 and out.left_out == {"private": 1, "trash": 1}
    assert "1 private entry was left out" in " ".join(out.said)


def test_private_entries_when_included_are_marked(journal, tmp_path):
    out = journal.archive.export_text(tmp_path / "vault", fmt="md", per_entry=True, include_private=True)
    fronts = [_obsidian_reads(Path(p))[0] for p in out]
    private = [f for f in fronts if f["private"]]
    assert len(private) == 1 and private[0]["tags"] == ["비밀"] and out.left_out["private"] == 0


def test_day_files_and_one_file_have_front_matter_too(journal, tmp_path):
    days = journal.archive.export_text(tmp_path / "days", fmt="md", per_day=True, include_private=True)
    read = {Path(p).name: _obsidian_reads(Path(p)) for p in days}
    assert sorted(read) == ["2026-03-01.md", "2026-03-02.md", "2026-03-03.md", "2026-03-08.md"]
    front, body = read["2026-03-02.md"]
    assert front["date"] == date(2026, 3, 2) and front["private"] is True and front["tags"] == ["비밀"]
    front, body = read["2026-03-01.md"]
    assert front["private"] is False and front["tags"] == ["여행", "지수"]
    _no_obsidian_syntax(body)
    [one] = journal.archive.export_text(tmp_path / "journal.md", fmt="md")
    front, body = _obsidian_reads(Path(one))
    assert front["tags"] == ["여행", "지수", "friends", "café"] and front["private"] is False
    assert PRIVATE not in body  # left out unless asked for


@pytest.mark.parametrize("layout", ["one", "per_day", "per_entry"])
def test_the_export_imports_back_into_an_empty_journal_as_the_same_entries(journal, tmp_path, layout):
    kw = {"per_day": layout == "per_day", "per_entry": layout == "per_entry"}
    target = tmp_path / ("journal.md" if layout == "one" else "export")
    journal.archive.export_text(target, fmt="md", include_private=True, **kw)
    with Memoir.open(tmp_path / "empty", encrypt=False, llm_base_url=None) as fresh:
        done = fresh.archive.import_file(target)
        assert done["kind"] == "markdown" and done["entries"] == 7 and done["already_there"] == 0
        assert _held(fresh) == _held(journal)
        again = fresh.archive.import_file(target)  # the ids match them back: nothing twice
        assert again["entries"] == 0 and again["already_there"] == 7
        # The diarist's own entries get their memories made again; private ones never go to an AI.
        made = fresh.archive.batch_progress(done["batch"])
        assert made["total"] == 4


def test_memoir_cli_exports_a_vault_and_imports_it_back(journal, tmp_path):
    from tests.cli_in_process import run_cli

    home = str(journal.home)
    journal.close()
    out = run_cli("export", str(tmp_path / "vault"), "--format", "md", "--per-entry", env={"MEMOIR_HOME": home})
    assert out.returncode == 0, out.stderr
    assert "6 entries" in out.stdout and "1 private entry was left out" in out.stdout
    other_env = {"MEMOIR_HOME": str(tmp_path / "other"), "MEMOIR_PASSPHRASE": "round trip passphrase"}
    back = run_cli("import", str(tmp_path / "vault"), env=other_env)
    assert back.returncode == 0, back.stderr
    assert "imported 6 entries" in back.stdout
    with Memoir.open(tmp_path / "other", passphrase="round trip passphrase", llm_base_url=None) as other:
        assert PRIVATE not in str(_held(other)) and EDGES in [e["content"] for e in _held(other)]


def test_a_markdown_file_that_is_not_memoirs_is_refused_in_one_sentence(journal, tmp_path):
    from memoir_desktop.core.inputs import InvalidInput

    note = tmp_path / "note.md"
    note.write_text("# Shopping\n- milk\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"note\.md.*not a memoir Markdown export"):
        journal.archive.import_file(note)


# -- the body's escaping: exact both ways, and rendered as written -----------------------------------

TEXT = st.text(alphabet="#>-+*=_`~|[]()<>!&;:\\$%^.1a가\u3000\xa0 \t\n\r", max_size=40)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_any_text_comes_back_exactly(text):
    assert markdown_format.unescape_body(markdown_format.escape_body(text)) == text


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


def _rendered(source: str) -> str:
    from markdown_it import MarkdownIt

    html_out = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(source)
    assert re.fullmatch(r"(<p>.*?</p>\n)*", html_out, re.S), html_out  # nothing but paragraphs
    parser = _Text()
    parser.feed(html_out)
    return "".join(parser.parts)


def _as_seen(text: str) -> str:
    """What rendered Markdown can show of a text: leading spaces as no-break spaces, line edges kept,
    one blank line between paragraphs, none around the whole."""
    lines = []
    for line in text.split("\n"):
        body = line.lstrip(" \t")
        lead = line[: len(line) - len(body)].replace(" ", "\xa0")
        lines.append(lead + body)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_any_text_renders_as_written(text):
    shown = _rendered(markdown_format.escape_body(text))
    assert shown == _as_seen(text)
    _no_obsidian_syntax(markdown_format.escape_body(text).replace("\\\\", ""))


def test_a_line_that_looks_like_a_table_rule_stays_text():
    """Found by a property test: "|" then ":-" on the next line rendered as a table."""
    for content in ("|\r:-", "a | b\n:--|--:", "x\n|:-|"):
        assert _rendered(markdown_format.escape_body(content)) == _as_seen(content)


def test_the_mood_memoir_noted_is_a_property_of_the_note(mem, fake_llm, tmp_path):
    from tests.fakes.fake_llm import tool

    fake_llm.on("save_facts", lambda req: tool({"facts": [], "mood": "good"}))
    mem.settings.mood_tracking = True
    mem.journal.write("친구를 만나서 즐거웠다", timestamp=datetime(2026, 3, 3, 21, 0))
    mem.jobs.process()
    [note] = mem.archive.export_text(tmp_path / "vault", fmt="md", per_entry=True)
    assert _obsidian_reads(Path(note))[0]["mood"] == "good"
