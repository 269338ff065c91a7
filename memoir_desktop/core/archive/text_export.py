"""Export journal entries as Markdown or plain text: one file in all, one file per day, or (Markdown) one
note per entry.

Pure: stdlib only, no database, no Qt. The caller passes entry dicts (as the facade lists them):
`{"id", "uuid", "role": "user"|"assistant", "content", "created_at": ISO text or datetime, "tags"?,
"private"?, "kind"?, "reply_to"?, "time_zone"?, "source_ref"?}` and, for Markdown, the moods it knows by
entry id. What to leave out (private entries, the trash) is the caller's choice (archive/service.py).

Layout: days in date order, each under a heading written for people ("2026년 3월 1일 일요일" /
"Sunday, March 1, 2026"); inside a day, entries in time order (ties keep the order given), each under
its time ("21:05"), the companion's replies and letters marked "memoir". `created_at` is read as the
wall-clock time it states; an offset, if any, is ignored, because a diary is about the writer's days
(the same rule as the importers).

Markdown is memoir's own format, ready for Obsidian and read back by archive/markdown_import.py:
- every file opens with YAML front matter Obsidian shows as properties: a note per entry has the entry's
  `date` (a date and time), `tags`, `mood` (when memoir noted one), `private`, what it is when not the
  diarist's entry (`kind`: reply or letter, and the entry a reply answers), and its `id`; a day's file
  has the day's `date`, the tags of its entries and whether it holds a private entry; the one file, its
  tags and whether it holds a private entry;
- in a day's file or the one file, each entry's section carries the same fields as an HTML comment,
  which no reader shows;
- the text is written by markdown_format.escape_body: shown as written by Markdown and Obsidian, and
  read back exactly, whitespace and all.
Plain text is the text exactly as written, no escaping; only newlines are normalised to "\n".

Files are UTF-8 with "\n" newlines, written atomically and owner-only (core/keys/private_files.py): an
interrupted export never leaves half a file under the final name, and it is a private journal.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from itertools import groupby
from pathlib import Path
from typing import Any

from memoir_desktop.core.archive.markdown_format import escape_body, yaml_value
from memoir_desktop.core.keys.private_files import write_private

__all__ = ["MARK", "SECTION", "export_text", "format_day"]

FORMATS = ("md", "txt")
LANGS = ("ko", "en")
COMPANION = "memoir"  # the label of the companion's replies and letters
MARK = ("exported_from", "memoir")  # the front matter line that says a file is memoir's Markdown
SECTION = "<!-- memoir "  # how the fields of an entry's section begin (closed by " -->")

_KO_WEEKDAYS = ("월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일")
_EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
              "October", "November", "December")  # fmt: skip
_TAGS_LABEL = {"ko": "태그", "en": "Tags"}


def export_text(
    entries: list[dict[str, Any]],
    out: str | os.PathLike[str],
    *,
    fmt: str = "md",
    per_day: bool = False,
    per_entry: bool = False,
    lang: str = "ko",
    moods: Mapping[int, str] | None = None,
) -> list[Path]:
    """Write `entries`; returns the paths written.

    One file: `out` is a file (".md"/".txt" added when it lacks that suffix).
    per_day: `out` is a directory (created), holding one `YYYY-MM-DD.md|txt` per day.
    per_entry (Markdown): `out` is a directory holding one note per entry, `YYYY-MM-DD HHMM.md`
    ("… memoir.md" for the companion's replies and letters).
    """
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {FORMATS}, not {fmt!r}")
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, not {lang!r}")
    if per_entry and (per_day or fmt != "md"):
        raise ValueError("one note per entry is a Markdown layout, and not also one file per day")
    moods = moods or {}
    days = _days(entries)
    target = Path(out)
    if per_entry:
        return _write_notes(days, target, moods)
    if per_day:
        target.mkdir(parents=True, exist_ok=True)
        written = []
        for day, items in days:
            path = target / f"{day.isoformat()}.{fmt}"
            body = _render_day(day, items, fmt, lang, moods)
            write_private(path, _front_matter(_file_fields(items, day)) + body if fmt == "md" else body)
            written.append(path)
        return written
    if target.suffix.lower() != f".{fmt}":
        target = target.with_name(f"{target.name}.{fmt}")
    target.parent.mkdir(parents=True, exist_ok=True)
    # A Markdown day ends with its blank line; a text day is followed by one.
    body = ("" if fmt == "md" else "\n").join(_render_day(day, items, fmt, lang, moods) for day, items in days)
    if fmt == "md":
        body = _front_matter(_file_fields([item for _, items in days for item in items])) + body
    write_private(target, body)
    return [target]


# ---------------------------------------------------------------- layout


def format_day(day: date, lang: str = "ko") -> str:
    """The date as people write it: "2026년 3월 1일 일요일" / "Sunday, March 1, 2026"."""
    # Own names, not strftime: %A and %B follow the process locale, which the export must not.
    if lang == "ko":
        return f"{day.year}년 {day.month}월 {day.day}일 {_KO_WEEKDAYS[day.weekday()]}"
    return f"{_EN_WEEKDAYS[day.weekday()]}, {_EN_MONTHS[day.month - 1]} {day.day}, {day.year}"


Timed = tuple[datetime, Mapping[str, Any]]


def _days(entries: Iterable[Mapping[str, Any]]) -> list[tuple[date, list[Timed]]]:
    timed = sorted(((_when(e), e) for e in entries), key=lambda t: t[0])  # stable: ties keep given order
    return [(day, list(group)) for day, group in groupby(timed, key=lambda t: t[0].date())]


def _when(entry: Mapping[str, Any]) -> datetime:
    value = entry.get("created_at")
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        raise ValueError(f"entry {entry.get('id')!r} has no created_at")
    return value.replace(tzinfo=None)  # the wall-clock time as written (see the module docstring)


def _by_memoir(entry: Mapping[str, Any]) -> bool:
    return entry.get("role") == "assistant"


def _render_day(day: date, items: list[Timed], fmt: str, lang: str, moods: Mapping[int, str]) -> str:
    if fmt == "txt":
        parts = [f"{format_day(day, lang)}\n"]
        for when, entry in items:
            label = f"{when:%H:%M}" + (f" · {COMPANION}" if _by_memoir(entry) else "")
            content = _normalise_newlines(str(entry.get("content") or ""))
            parts.append(f"[{label}]\n{content}" + ("" if content.endswith("\n") or not content else "\n"))
            tags = _tags(entry.get("tags"))
            if tags:
                parts[-1] += f"{_TAGS_LABEL[lang]}: {', '.join(tags)}\n"
        return "\n".join(parts)
    # Markdown: a section per entry, its fields in a comment, its text exactly (markdown_import.py reads
    # the lines between the comment's blank line and the blank line before the next heading).
    out = f"# {format_day(day, lang)}\n\n"
    for when, entry in items:
        label = f"{when:%H:%M}" + (f" · {COMPANION}" if _by_memoir(entry) else "")
        fields = json.dumps(_entry_fields(when, entry, moods), ensure_ascii=False, default=datetime.isoformat)
        # ">" appears in JSON only inside strings: escaped there, no text can close the comment early.
        out += f"## {label}\n{SECTION}{fields.replace('>', chr(92) + 'u003e')} -->\n\n"
        out += escape_body(str(entry.get("content") or "")) + "\n\n"
    return out


def _entry_fields(when: datetime, entry: Mapping[str, Any], moods: Mapping[int, str]) -> dict[str, Any]:
    """What a note's front matter, or a section's comment, says of one entry (Obsidian's property names
    where it has them: date, tags; the rest memoir's)."""
    fields: dict[str, Any] = {"date": when, "tags": _tags(entry.get("tags"))}
    mood = moods.get(entry.get("id"))  # type: ignore[arg-type]
    if mood:
        fields["mood"] = mood
    fields["private"] = bool(entry.get("private"))
    if entry.get("kind") == "letter":
        fields["kind"] = "letter"
    elif _by_memoir(entry):
        fields["kind"] = "reply"
        if entry.get("reply_to_uuid"):
            fields["reply_to"] = entry["reply_to_uuid"]
    for key in ("time_zone", "source_ref"):
        if entry.get(key):
            fields[key] = entry[key]
    fields["id"] = entry.get("uuid") or ""
    return fields


def _file_fields(items: list[Timed], day: date | None = None) -> dict[str, Any]:
    """A day's file or the one file: its day, its entries' tags (first seen first), any private entry."""
    tags: dict[str, None] = {}
    for _, entry in items:
        tags.update(dict.fromkeys(_tags(entry.get("tags"))))
    fields: dict[str, Any] = {"date": day} if day else {}
    fields.update(tags=list(tags), private=any(bool(e.get("private")) for _, e in items))
    return fields


def _front_matter(fields: Mapping[str, Any]) -> str:
    lines = [f"{key}: {yaml_value(value)}" for key, value in fields.items()]
    return "---\n" + "\n".join([*lines, f"{MARK[0]}: {MARK[1]}"]) + "\n---\n"


def _write_notes(days: list[tuple[date, list[Timed]]], folder: Path, moods: Mapping[int, str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    taken: set[str] = set()
    for _, items in days:
        for when, entry in items:
            stem = f"{when:%Y-%m-%d %H%M}" + (f" {COMPANION}" if _by_memoir(entry) else "")
            name, n = f"{stem}.md", 1
            while name in taken:  # two entries in one minute
                n += 1
                name = f"{stem} ({n}).md"
            taken.add(name)
            text = _front_matter(_entry_fields(when, entry, moods)) + escape_body(str(entry.get("content") or ""))
            write_private(folder / name, text + "\n")
            written.append(folder / name)
    return written


def _tags(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        return []
    return [str(t) for t in value if str(t).strip()]


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
