"""Read memoir's Markdown export back (text_export.py writes it): one file, a folder of day files, or a
folder of notes, one per entry, as Obsidian may have kept them.

Pure: stdlib only, no database. What comes out is each entry as the journal held it: its text exactly
(markdown_format.unescape_body), its date and time, tags, privacy, what it is (the diarist's entry, a
reply and the entry it answers, a letter) and its id, which lets an import recognise an entry it holds.

A note's front matter is read as the export wrote it (`key: value` lines: quoted strings, [lists],
true/false, dates) and as Obsidian rewrites it when a property is edited there (plain or single-quoted
strings, a list as `- item` lines below its key). A day's file, or the one file, keeps each entry's
fields in a comment under its heading; its text is the lines between that comment's blank line and the
blank line before the next heading.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from memoir_desktop.core.archive.markdown_format import unescape_body
from memoir_desktop.core.archive.text_export import MARK, SECTION
from memoir_desktop.core.inputs import MAX_ENTRY_CHARS

__all__ = ["MarkdownError", "MarkdownImport", "NoteEntry", "is_markdown_export", "read_markdown_export"]

MAX_FILE_BYTES = 64 * 1024 * 1024  # one Markdown file; a lifetime of entries in one file is far smaller


@dataclass(frozen=True)
class NoteEntry:
    uuid: str
    created_at: datetime
    content: str
    tags: tuple[str, ...] = ()
    private: bool = False
    role: str = "user"  # "assistant" for the companion's replies and memoir's letters
    kind: str = "entry"  # or "letter"
    reply_to: str | None = None  # the id of the entry a reply answers
    time_zone: str | None = None
    source_ref: str | None = None
    mood: str | None = None  # noted by memoir; an import does not keep it (memoir notes moods as it reads)


@dataclass
class MarkdownImport:
    entries: list[NoteEntry] = field(default_factory=list)  # in time order
    files: int = 0  # memoir's files read
    others: list[str] = field(default_factory=list)  # other .md files in the folder, left alone


class MarkdownError(ValueError):
    """The path cannot be imported; str() is one sentence fit to show a user."""


def is_markdown_export(path) -> bool:
    """A .md file, or a folder holding .md files (memoir's or not: reading says which)."""
    p = Path(path)
    if p.is_dir():
        return any(c.suffix.lower() == ".md" for c in p.iterdir())
    return p.suffix.lower() == ".md"


def read_markdown_export(path) -> MarkdownImport:
    p = Path(path)
    files = sorted(c for c in p.iterdir() if c.suffix.lower() == ".md" and c.is_file()) if p.is_dir() else [p]
    out = MarkdownImport()
    for f in files:
        text = _read(f)
        fields, body = _front_matter(text)
        if fields.get(MARK[0]) != MARK[1]:
            out.others.append(f.name)
            continue
        out.entries += _note(f, fields, body) if "id" in fields else _sections(f, body)
        out.files += 1
    if not out.files:
        where = f"'{p.name}' holds no file of" if p.is_dir() else f"'{p.name}' is not"
        raise MarkdownError(f"{where} a memoir Markdown export: memoir reads back the Markdown it exported "
                            "(its files begin with exported_from: memoir).")
    out.entries.sort(key=lambda e: e.created_at)
    return out


def _read(f: Path) -> str:
    try:
        if f.stat().st_size > MAX_FILE_BYTES:
            raise MarkdownError(f"'{f.name}' is larger than {MAX_FILE_BYTES // 2**20} MB, more than memoir's "
                                "Markdown export writes; nothing was imported.")
        return f.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise MarkdownError(f"'{f.name}' is not UTF-8 text; nothing was imported.") from None
    except OSError as exc:
        raise MarkdownError(f"'{f.name}' could not be read ({exc.strerror or exc}); nothing was imported.") from exc


# -- one note per entry --------------------------------------------------------------------------------

def _note(f: Path, fields: dict[str, Any], body: str) -> list[NoteEntry]:
    # The export ends a note with one newline after its text; the text's own last line break precedes it.
    return [_entry(f.name, fields, unescape_body(body[:-1] if body.endswith("\n") else body))]


def _entry(where: str, fields: dict[str, Any], content: str) -> NoteEntry:
    when = fields.get("date")
    if isinstance(when, str):
        when = _datetime(when)
    if not isinstance(when, datetime):
        raise MarkdownError(f"An entry in '{where}' has no date and time; nothing was imported.")
    if not isinstance(fields.get("id"), str) or not fields["id"].strip():
        raise MarkdownError(f"An entry in '{where}' has no id; nothing was imported.")
    if len(content) > MAX_ENTRY_CHARS:  # the limit every entry keeps, however it arrives (core/inputs.py)
        raise MarkdownError(f"The entry of {when:%Y-%m-%d %H:%M} in '{where}' has {len(content):,} characters; "
                            f"memoir keeps at most {MAX_ENTRY_CHARS:,} in one entry; nothing was imported.")
    kind = fields.get("kind")
    tags = fields.get("tags") or []
    return NoteEntry(
        uuid=fields["id"].strip(), created_at=when, content=content,
        tags=tuple(str(t) for t in (tags if isinstance(tags, list) else [tags])),
        private=fields.get("private") is True, role="assistant" if kind in ("reply", "letter") else "user",
        kind="letter" if kind == "letter" else "entry", reply_to=_text(fields.get("reply_to")),
        time_zone=_text(fields.get("time_zone")), source_ref=_text(fields.get("source_ref")),
        mood=_text(fields.get("mood")))


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _datetime(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.strip())
    except ValueError:
        return None


# -- a day's file, or the one file ----------------------------------------------------------------------

def _sections(f: Path, body: str) -> list[NoteEntry]:
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's last newline
    headings = [i for i, line in enumerate(lines) if line.startswith("# ") or line.startswith("## ")]
    out = []
    for n, at in enumerate(headings):
        if not lines[at].startswith("## "):
            continue
        comment = lines[at + 1] if at + 1 < len(lines) else ""
        if not (comment.startswith(SECTION) and comment.endswith(" -->")):
            raise MarkdownError(f"The entry under '{lines[at][3:]}' in '{f.name}' lost the line memoir wrote "
                                "under its heading; nothing was imported.")
        try:
            fields = json.loads(comment[len(SECTION):-4])
        except ValueError:
            raise MarkdownError(f"The line under '{lines[at][3:]}' in '{f.name}' is damaged; nothing was "
                                "imported.") from None
        end = headings[n + 1] if n + 1 < len(headings) else len(lines)
        out.append(_entry(f.name, fields, unescape_body("\n".join(lines[at + 3:end - 1]))))
    return out


# -- front matter --------------------------------------------------------------------------------------

_KEY = re.compile(r"([A-Za-z_][\w-]*):(?:\s+(.*))?$")


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter's fields and the body after it ({} and the whole text without one)."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 3)
    if end < 0:
        return {}, text
    fields: dict[str, Any] = {}
    key = None
    for line in text[4:end].split("\n"):
        m = _KEY.match(line)
        if m:
            key, value = m.group(1), (m.group(2) or "").strip()
            fields[key] = _value(value) if value else []
        elif key is not None and line.lstrip().startswith("- ") and isinstance(fields.get(key), list):
            fields[key].append(_value(line.lstrip()[2:].strip()))  # Obsidian's block list
    return fields, text[end + 5:]


def _value(text: str) -> Any:
    if text.startswith("[") and text.endswith("]"):
        return [_value(item) for item in _items(text[1:-1])]
    if text.startswith('"'):
        try:
            return json.loads(text)  # what the export writes: JSON's escapes are YAML's
        except ValueError:
            return text.strip('"')
    if text.startswith("'") and text.endswith("'") and len(text) > 1:
        return text[1:-1].replace("''", "'")
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return date.fromisoformat(text)
    found = _datetime(text) if re.match(r"\d{4}-\d{2}-\d{2}[T ]", text) else None
    return found if found is not None else text


def _items(inner: str) -> list[str]:
    """The items of a flow list, split at commas outside quotes."""
    items, current, quote, i = [], "", "", 0
    while i < len(inner):
        c = inner[i]
        if quote:
            current += c
            if c == "\\" and quote == '"' and i + 1 < len(inner):
                current += inner[i + 1]
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote, current = c, current + c
        elif c == ",":
            items.append(current.strip())
            current = ""
        else:
            current += c
        i += 1
    if current.strip():
        items.append(current.strip())
    return items

