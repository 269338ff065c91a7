"""Export journal entries as Markdown or plain text: one file in all, or one file per day.

Pure: stdlib only, no database, no Qt. The caller passes entry dicts (as the facade lists them):
`{"id", "role": "user"|"assistant", "content", "created_at": ISO text or datetime, "source", "tags"?}`.

Layout: days in date order, each under a heading written for people ("2026년 3월 1일 일요일" /
"Sunday, March 1, 2026"); inside a day, entries in time order (ties keep the order given), each under
its time ("21:05"), the companion's replies marked "memoir", tags after the text when present.
`created_at` is read as the wall-clock time it states; an offset, if any, is ignored, because a diary
is about the writer's days (the same rule as the importers).

Markdown keeps the writer's text exactly as written once rendered (CommonMark, and GFM's tables and
strikethrough):
- characters that mean something anywhere in a line are backslash-escaped: `\\ ` * _ [ ] < ~ | $`,
  and `&` when it would start an entity (`&amp;`);
- at a line's start, the marks of headings, quotes, lists, setext underlines and thematic breaks are
  escaped: `#`, `>`, `+`, `-`, `=`, and the `.`/`)` after 1-9 digits ("1\\. item", "2026\\. 3. 1.");
  fences need nothing more since every backtick is already escaped;
- leading spaces become `&nbsp;` so indentation shows and never turns a line into a code block, and
  other spaces at a line's edge (a full-width U+3000 indent) become character references, which no
  renderer trims;
- line breaks: a single newline becomes a hard break written as two trailing spaces (the form every
  Markdown renderer knows), blank lines stay paragraph breaks. Runs of blank lines render as one
  paragraph break, as Markdown always does.
Plain text is the text exactly as written, no escaping; only newlines are normalised to "\\n".

Files are UTF-8 with "\\n" newlines, written atomically and owner-only (core/keys/private_files.py): an
interrupted export never leaves half a file under the final name, and it is a private journal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from itertools import groupby
from pathlib import Path
from typing import Any

from memoir_desktop.core.keys.private_files import write_private

__all__ = ["export_text", "format_day", "markdown_escape"]

FORMATS = ("md", "txt")
LANGS = ("ko", "en")
COMPANION = "memoir"  # the label of the companion's replies

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
    lang: str = "ko",
) -> list[Path]:
    """Write `entries`; returns the paths written.

    per_day=False: `out` is a file (".md"/".txt" added when it lacks that suffix).
    per_day=True: `out` is a directory (created), holding one `YYYY-MM-DD.md|txt` per day.
    """
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {FORMATS}, not {fmt!r}")
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, not {lang!r}")
    days = _days(entries)
    target = Path(out)
    if per_day:
        target.mkdir(parents=True, exist_ok=True)
        written = []
        for day, items in days:
            path = target / f"{day.isoformat()}.{fmt}"
            write_private(path, _render_day(day, items, fmt, lang))
            written.append(path)
        return written
    if target.suffix.lower() != f".{fmt}":
        target = target.with_name(f"{target.name}.{fmt}")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_private(target, "\n".join(_render_day(day, items, fmt, lang) for day, items in days))
    return [target]


# ---------------------------------------------------------------- layout


def format_day(day: date, lang: str = "ko") -> str:
    """The date as people write it: "2026년 3월 1일 일요일" / "Sunday, March 1, 2026"."""
    # Own names, not strftime: %A and %B follow the process locale, which the export must not.
    if lang == "ko":
        return f"{day.year}년 {day.month}월 {day.day}일 {_KO_WEEKDAYS[day.weekday()]}"
    return f"{_EN_WEEKDAYS[day.weekday()]}, {_EN_MONTHS[day.month - 1]} {day.day}, {day.year}"


def _days(
    entries: Iterable[Mapping[str, Any]],
) -> list[tuple[date, list[tuple[datetime, Mapping[str, Any]]]]]:
    timed = sorted(((_when(e), e) for e in entries), key=lambda t: t[0])  # stable: ties keep given order
    return [(day, list(group)) for day, group in groupby(timed, key=lambda t: t[0].date())]


def _when(entry: Mapping[str, Any]) -> datetime:
    value = entry.get("created_at")
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        raise ValueError(f"entry {entry.get('id')!r} has no created_at")
    return value.replace(tzinfo=None)  # the wall-clock time as written (see the module docstring)


def _render_day(day: date, items: list[tuple[datetime, Mapping[str, Any]]], fmt: str, lang: str) -> str:
    md = fmt == "md"
    parts = [f"# {format_day(day, lang)}\n" if md else f"{format_day(day, lang)}\n"]
    for when, entry in items:
        label = f"{when:%H:%M}"
        if entry.get("role") == "assistant":
            label += f" · {COMPANION}"
        content = _normalise_newlines(str(entry.get("content") or ""))
        tags = _tags(entry.get("tags"))
        if md:
            parts.append(f"## {label}\n")
            body = markdown_escape(content)
            if body:
                parts.append(f"{body}\n")
            if tags:
                parts.append(f"{_TAGS_LABEL[lang]}: {', '.join(markdown_escape(t) for t in tags)}\n")
        else:
            parts.append(f"[{label}]\n{content}" + ("" if content.endswith("\n") or not content else "\n"))
            if tags:
                parts[-1] += f"{_TAGS_LABEL[lang]}: {', '.join(tags)}\n"
    return "\n".join(parts)


def _tags(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        return []
    return [str(t).strip() for t in value if str(t).strip()]


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# ---------------------------------------------------------------- Markdown escaping

_INLINE = re.compile(r"([\\`*_\[\]<~|$]|&(?=#?[0-9A-Za-z]+;))")  # $: GitHub renders $math$
_ORDERED = re.compile(r"(\d{1,9})([.)])(?=[ \t]|$)")
_LINE_START = frozenset("#>+-=")
# A line like ":-" or "|:--|" under another line makes a table (GFM's delimiter row): escaped, it is text.
_TABLE_RULE = re.compile(r"[ \t|:-]*-[ \t|:-]*")
_BLANK = " \t"  # Markdown's blanks; a full-width space (U+3000) is text to it, and so here
# The other space separators (Unicode Zs). Not controls: `&#x85;` would decode as Windows-1252 "...".
_EDGE_SPACES = (
    "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
)


def markdown_escape(text: str) -> str:
    """Markdown source that renders as `text` exactly (see the module docstring for the rules)."""
    lines = _normalise_newlines(text).split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        if not line.strip(_BLANK):
            if out and out[-1]:  # one blank line ends a paragraph; more would render the same
                out.append("")
            continue
        escaped = _escape_line(line)
        following = lines[i + 1] if i + 1 < len(lines) else ""
        out.append(escaped + "  " if following.strip(_BLANK) else escaped)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def _escape_line(line: str) -> str:
    stripped = line.lstrip(_BLANK)
    lead = line[: len(line) - len(stripped)].replace("\t", "    ").replace(" ", "&nbsp;")
    rest = _INLINE.sub(r"\\\1", stripped.rstrip(_BLANK))  # trailing blanks render as nothing anyway
    m = _ORDERED.match(rest)
    if m:
        rest = f"{m.group(1)}\\{rest[m.end(1) :]}"
    elif rest[:1] in _LINE_START or _TABLE_RULE.fullmatch(rest):
        rest = "\\" + rest
    # Other spaces (a full-width U+3000 indent) at a line's edge: some renderers trim them as blanks.
    head = len(rest) - len(rest.lstrip(_EDGE_SPACES))
    tail = max(head, len(rest.rstrip(_EDGE_SPACES)))
    return lead + _char_refs(rest[:head]) + rest[head:tail] + _char_refs(rest[tail:])


def _char_refs(spaces: str) -> str:
    return "".join(f"&#x{ord(c):X};" for c in spaces)
