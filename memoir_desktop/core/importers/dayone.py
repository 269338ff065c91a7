"""Read a Day One "JSON" export (a .zip of `<Journal>.json` files plus media, or a bare .json).

Pure: stdlib only, no database, no Qt; nothing is extracted to disk (members are read in memory,
each JSON member capped at `MAX_JSON_BYTES` so a zip bomb or a lying header cannot exhaust memory;
media members are never read at all).

What comes out is plain journal text, because memoir stores entries as text:
- Day One escapes Markdown punctuation with backslashes (`\\.`, `\\-`, `\\(` ...). Every backslash
  before ASCII punctuation is removed (CommonMark's escape rule), except inside code fences and code
  spans, where Markdown keeps backslashes literally and so did the writer.
- Stars and locations are read (`starred`, `place`) but memoir's entries have no field for them: the
  report's warnings count the entries whose star or location is not kept.
- Media embeds (`![](dayone-moment://ID)`, `dayone-moment:/video/ID`, `/audio/`, `/pdf/`) are removed;
  a line left empty by that is dropped, with the blank line around it, so a photo between two paragraphs
  leaves one paragraph break. An entry with no text left is skipped, not returned. Every attachment (the
  entry's lists and its text's references, each once) is counted by kind, and the warnings say how many
  photos, videos, audio recordings and PDFs were not brought in.
- Headings: Day One writes the title as a Markdown heading (`# Title`). The `#` marks are formatting,
  not words, so a heading line keeps its words and loses its marks ("# 제주 여행" -> "제주 여행"),
  on the first line and on any later heading line alike. A `#` the writer typed as text was escaped
  by Day One (`\\# `) and so survives as written. Everything else (lists, emphasis, fences) is kept as
  the writer typed it.

Times: `creationDate` is an instant in UTC; a diary is about the writer's days, so `created_at` is the
naive wall-clock time in the entry's own `timeZone` (23:30 in Seoul stays 23:30 on that date). A
missing or unknown zone falls back to UTC with one warning per name. Old exports' "GMT+0900"-style
offsets are read as the fixed IANA zone of that offset (`Etc/GMT-9`; note the inverted POSIX sign)
when they are whole hours; "KST" and "JST" (unambiguous) map to Asia/Seoul and Asia/Tokyo.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import string
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any
from zoneinfo import ZoneInfo

from memoir_desktop.core.inputs import MAX_ENTRY_CHARS

__all__ = ["MAX_JSON_BYTES", "DayOneError", "DayOneImport", "ImportedEntry", "read_dayone_export"]

MAX_JSON_BYTES = 200 * 1024 * 1024  # one journal's JSON; a lifetime of text is far smaller
PROGRESS_EVERY = 200  # entries between progress calls (besides the first and the last)

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ImportedEntry:
    text: str  # plain journal text: escapes and media references removed, never empty
    created_at: datetime  # naive wall-clock time in the entry's own time zone
    time_zone: str | None  # the IANA name used, or None when it fell back to UTC
    tags: tuple[str, ...]
    starred: bool
    place: str | None  # "Gyeongbokgung, Seoul, South Korea"
    source_id: str  # the Day One uuid (lets a re-import skip what is already there)
    journal: str  # the JSON file's stem, e.g. "Journal"


@dataclass
class DayOneImport:
    entries: list[ImportedEntry] = field(default_factory=list)  # in creation order (by the UTC instant)
    skipped: int = 0  # entries without text (photo-only) or without a readable date
    media: int = 0  # attachments not brought (photos, videos, audio, pdfs): media_kinds added up
    # Each attachment of each entry, by kind ("photo", "video", "audio", "pdf"): the entry's own lists
    # and the references in its text, each attachment once. Also those of entries that are skipped.
    media_kinds: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)  # one short English sentence each


class DayOneError(ValueError):
    """The file cannot be imported; str() is one sentence fit to show a user."""


# ---------------------------------------------------------------- reading the files


def read_dayone_export(path: str | os.PathLike[str], *, progress: Progress | None = None) -> DayOneImport:
    """Read a Day One export (.zip or bare .json). Raises DayOneError when it cannot be imported.

    `progress(done, total)` is called while entries are read: at the start, every PROGRESS_EVERY
    entries and at the end (done == total).
    """
    p = Path(path)
    if not p.is_file():
        raise DayOneError(f"The file '{p.name}' does not exist or is not a file.")
    try:
        with p.open("rb"):
            pass
    except OSError as e:
        raise DayOneError(f"The file '{p.name}' could not be opened ({e.strerror or e}).") from e
    if zipfile.is_zipfile(p):
        journals = _read_zip(p)
    elif p.suffix.lower() == ".json":
        journals = [(p.stem, p.name, _read_bare_json(p))]
    elif p.suffix.lower() == ".zip":
        raise DayOneError(f"'{p.name}' is not a zip file, or it is damaged.")
    else:
        raise DayOneError(f"'{p.name}' is not a Day One export: choose the .zip or .json file Day One made.")

    result = DayOneImport()
    found: list[tuple[str, str, list[Any]]] = []
    for journal, name, doc in journals:
        entries = doc.get("entries") if isinstance(doc, dict) else None
        if not isinstance(entries, list):
            result.warnings.append(f"The file '{name}' is not a Day One journal and was skipped.")
            continue
        found.append((journal, name, entries))
    if not found:
        only = journals[0][1] if len(journals) == 1 else p.name
        raise DayOneError(f"'{only}' is not a Day One export: it has no list of journal entries.")

    total = sum(len(entries) for _, _, entries in found)
    done = 0
    if progress:
        progress(0, total)
    zones = _ZoneNotes()
    unreadable: Counter[str] = Counter()
    read: list[tuple[datetime, str, str, ImportedEntry]] = []
    for journal, _name, entries in found:
        for raw in entries:
            got = _read_entry(raw, journal, zones, result)
            if isinstance(got, tuple):
                instant, entry = got
                read.append((instant, journal, entry.source_id, entry))
            else:
                result.skipped += 1
                if got == "unreadable":
                    unreadable[journal] += 1
            done += 1
            if progress and done % PROGRESS_EVERY == 0 and done != total:
                progress(done, total)
    if progress:
        progress(total, total)

    read.sort(key=lambda r: r[:3])
    result.entries = [r[3] for r in read]
    result.warnings.extend(zones.warnings())
    for journal, n in unreadable.items():
        result.warnings.append(
            f"{_count(n, 'entry', 'entries')} in '{journal}' had no readable creation date and "
            f"{'was' if n == 1 else 'were'} skipped."
        )
    result.warnings.extend(_not_kept(result.entries, result.media_kinds))
    return result


MEDIA_WORDS = {"photo": ("photo", "photos"), "video": ("video", "videos"),
               "audio": ("audio recording", "audio recordings"), "pdf": ("PDF", "PDFs")}


def _not_kept(entries: list[ImportedEntry], media: Counter[str]) -> list[str]:
    """memoir keeps text: no attachment, and its entries have no star and no place (core/storage/models.py;
    keeping them needs a column the import would fill): the report says so rather than drop them unsaid.
    `starred` and `place` stay on ImportedEntry for the day they are kept."""
    starred = sum(e.starred for e in entries)
    placed = sum(e.place is not None for e in entries)
    out = []
    kinds = [_count(media[k], *MEDIA_WORDS[k]) for k in MEDIA_WORDS if media[k]]
    if kinds:
        listed = kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " and " + kinds[-1]
        verb = "was" if sum(media.values()) == 1 else "were"
        out.append(f"{listed} {verb} not brought in: memoir keeps the text only.")
    if starred:
        out.append(f"{_count(starred, 'entry was', 'entries were')} starred in Day One; stars are not kept.")
    if placed:
        out.append(f"{_count(placed, 'entry', 'entries')} had a location; locations are not kept.")
    return out


def _read_zip(p: Path) -> list[tuple[str, str, Any]]:
    try:
        with zipfile.ZipFile(p) as zf:
            members = [i for i in zf.infolist() if _is_journal_member(i)]
            if not members:
                raise DayOneError(
                    f"'{p.name}' has no journal inside: a Day One export holds one .json file per journal."
                )
            out = []
            for info in members:
                name = _member_name(info)
                if info.file_size > MAX_JSON_BYTES:
                    raise _too_large(name)
                with zf.open(info) as f:
                    data = f.read(MAX_JSON_BYTES + 1)  # belt and braces: never more than the limit
                if len(data) > MAX_JSON_BYTES:
                    raise _too_large(name)
                out.append((PurePosixPath(name).stem, PurePosixPath(name).name, _parse_json(data, name)))
            return out
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,
        RuntimeError,
        EOFError,
        OSError,
    ) as e:
        # A CRC error, truncation, encryption or an unsupported compression method, met while reading.
        raise DayOneError(f"'{p.name}' is damaged and cannot be read ({e}).") from e


def _read_bare_json(p: Path) -> Any:
    try:
        if p.stat().st_size > MAX_JSON_BYTES:
            raise _too_large(p.name)
        with p.open("rb") as f:
            data = f.read(MAX_JSON_BYTES + 1)
    except OSError as e:
        raise DayOneError(f"The file '{p.name}' could not be read ({e.strerror or e}).") from e
    if len(data) > MAX_JSON_BYTES:
        raise _too_large(p.name)
    return _parse_json(data, p.name)


def _is_journal_member(info: zipfile.ZipInfo) -> bool:
    name = _member_name(info)
    base = PurePosixPath(name).name
    return (
        not info.is_dir()
        and base.lower().endswith(".json")
        and not base.startswith("._")
        and not name.startswith("__MACOSX/")
    )


def _member_name(info: zipfile.ZipInfo) -> str:
    """The member's name; a Korean journal name written without the zip UTF-8 flag is repaired."""
    name = info.filename
    if not info.flag_bits & 0x800:
        try:
            name = name.encode("cp437").decode("utf-8")
        except UnicodeError:
            pass
    return name


def _parse_json(data: bytes, name: str) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise DayOneError(
            f"The journal file '{name}' is damaged and cannot be read (it is not UTF-8 text)."
        ) from e
    except json.JSONDecodeError as e:
        raise DayOneError(
            f"The journal file '{name}' is damaged and cannot be read (line {e.lineno})."
        ) from e


def _too_large(name: str) -> DayOneError:
    return DayOneError(
        f"The journal file '{name}' is larger than {MAX_JSON_BYTES // (1024 * 1024)} MB and was not imported."
    )


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# ---------------------------------------------------------------- one entry


def _read_entry(
    raw: Any, journal: str, zones: _ZoneNotes, result: DayOneImport
) -> tuple[datetime, ImportedEntry] | str:
    """(UTC instant, entry), or why there is none: "empty" (no text: photo-only) or "unreadable" (no date)."""
    if not isinstance(raw, dict):
        return "unreadable"
    raw_text = raw.get("text")
    text, _ = clean_text(raw_text if isinstance(raw_text, str) else "")
    # Counted either way, also for entries that end up skipped: none of them is brought.
    for kind, _identifier in _attachments(raw, raw_text if isinstance(raw_text, str) else ""):
        result.media_kinds[kind] += 1
        result.media += 1
    instant = _parse_instant(raw.get("creationDate"))
    if instant is None:
        return "unreadable"
    if not text:
        return "empty"
    if len(text) > MAX_ENTRY_CHARS:  # the limit every entry keeps, however it arrives (core/inputs.py)
        words = " ".join(text.split()[:6])
        raise DayOneError(
            f"The entry of {instant:%Y-%m-%d} (\"{words[:40]}…\") in '{journal}' has {len(text):,} characters; "
            f"memoir keeps at most {MAX_ENTRY_CHARS:,} in one entry. Split it in Day One and export again. "
            "Nothing was imported."
        )
    zone, zone_name = zones.resolve(raw.get("timeZone"))
    uuid = raw.get("uuid")
    if not isinstance(uuid, str) or not uuid.strip():
        # Day One always writes one; a stable stand-in still lets a re-import recognise the entry.
        digest = hashlib.sha1(f"{journal}\0{raw.get('creationDate')}\0{text}".encode()).hexdigest()
        uuid = f"sha1:{digest}"
    return instant, ImportedEntry(
        text=text,
        created_at=instant.astimezone(zone).replace(tzinfo=None),
        time_zone=zone_name,
        tags=_tags(raw.get("tags")),
        starred=raw.get("starred") is True,
        place=_place(raw.get("location")),
        source_id=uuid.strip(),
        journal=journal,
    )


# Day One's lists of an entry's attachments, and the kind each holds.
_ATTACHMENT_LISTS = {"photos": "photo", "videos": "video", "audios": "audio", "pdfAttachments": "pdf"}
_REFERENCE = re.compile(r"dayone-moment:/(?:/|(video|audio|pdf)/)([^)\s]*)\)")


def _attachments(raw: dict, text: str) -> set[tuple[str, str]]:
    """(kind, identifier) of every attachment of an entry: in its lists, and referenced in its text (an
    export may lack the list, or a list may hold one the text does not show)."""
    found: set[tuple[str, str]] = set()
    for key, kind in _ATTACHMENT_LISTS.items():
        items = raw.get(key)
        for n, item in enumerate(items if isinstance(items, list) else []):
            ident = item.get("identifier") if isinstance(item, dict) else None
            found.add((kind, str(ident) if ident else f"{key}#{n}"))
    for m in _REFERENCE.finditer(text if "dayone-moment:" in text else ""):
        found.add((m.group(1) or "photo", m.group(2)))
    return found


def _parse_instant(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        dt = datetime.fromisoformat(value.strip())  # 3.11 reads the trailing "Z" and fractions
    except ValueError:
        return None
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def _tags(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    seen: dict[str, None] = {}
    for t in value:
        if isinstance(t, str) and t.strip():
            seen.setdefault(t.strip(), None)
    return tuple(seen)


def _place(location: Any) -> str | None:
    if not isinstance(location, dict):
        return None
    parts: list[str] = []
    for key in ("placeName", "localityName", "country"):
        v = location.get(key)
        if isinstance(v, str) and v.strip() and v.strip().casefold() not in {p.casefold() for p in parts}:
            parts.append(v.strip())
    return ", ".join(parts) or None


# ---------------------------------------------------------------- time zones

_OFFSET = re.compile(r"(?:GMT|UTC)\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?", re.IGNORECASE)
_ABBREVIATIONS = {"KST": "Asia/Seoul", "JST": "Asia/Tokyo"}  # only names that mean one place


@lru_cache(maxsize=256)
def _zone(name: str) -> tuple[tzinfo, str] | None:
    """The zone for a Day One `timeZone` value and the IANA name used, or None when unknown."""
    m = _OFFSET.fullmatch(name)
    if m:
        sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3) or 0)
        if minutes or hours > 14:
            return None  # IANA has no named zone for a fixed non-whole-hour offset
        if hours == 0:
            name = "UTC"
        else:
            name = f"Etc/GMT{'-' if sign == '+' else '+'}{hours}"  # POSIX signs are inverted
    name = _ABBREVIATIONS.get(name.upper(), name)
    try:
        return ZoneInfo(name), name
    except (KeyError, ValueError, OSError):  # not found, not a zone file, or not a normalized key
        return None


class _ZoneNotes:
    """Resolves zone names and remembers the fallbacks, to report each once."""

    def __init__(self) -> None:
        self.missing = 0
        self.unknown: Counter[str] = Counter()

    def resolve(self, value: Any) -> tuple[tzinfo, str | None]:
        name = value.strip() if isinstance(value, str) else ""
        if not name:
            self.missing += 1
            return UTC, None
        found = _zone(name)
        if found is None:
            self.unknown[name] += 1
            return UTC, None
        return found

    def warnings(self) -> list[str]:
        out = []
        if self.missing:
            out.append(
                f"{_count(self.missing, 'entry', 'entries')} had no time zone; "
                f"{'its time was' if self.missing == 1 else 'their times were'} read as UTC."
            )
        for name, n in self.unknown.items():
            out.append(
                f"{_count(n, 'entry', 'entries')} had the unknown time zone '{name[:60]}'; "
                f"{'its time was' if n == 1 else 'their times were'} read as UTC."
            )
        return out


# ---------------------------------------------------------------- text

# `![alt](dayone-moment://ID)` for photos, `dayone-moment:/video/ID` (and /audio/, /pdf/) for the rest.
_ONE_MEDIA = re.compile(r"!\[[^\]\n]*\]\(dayone-moment:/{1,2}[^)\s]*\)")
_MEDIA_RUN = re.compile(rf"[ \t]*(?:{_ONE_MEDIA.pattern}[ \t]*)+")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_PUNCT = frozenset(string.punctuation)


def clean_text(raw: str) -> tuple[str, int]:
    """Day One Markdown -> plain text, and how many media references were removed."""
    out: list[str] = []
    media = 0
    fence: str | None = None
    after_media = False
    for line in raw.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line, n = _remove_media(line)
        if n:
            media += n
            if not line.strip():
                after_media = True
                continue
        if not line.strip():
            if after_media and (not out or not out[-1].strip()):
                continue  # the blank line that framed a removed photo
            out.append(line)
            continue
        after_media = False
        fm = _FENCE.match(line)
        if fence is not None:
            if (
                fm
                and fm.group(1)[0] == fence[0]
                and len(fm.group(1)) >= len(fence)
                and not line[fm.end() :].strip()
            ):
                fence = None
            out.append(line)  # code is kept byte for byte, backslashes included
            continue
        if fm and not (fm.group(1)[0] == "`" and "`" in line[fm.end() :]):
            fence = fm.group(1)
            out.append(line)
            continue
        hm = _HEADING.fullmatch(line)
        if hm:
            line = hm.group(1) or ""
        out.append(unescape_markdown(line))
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out), media


def _remove_media(line: str) -> tuple[str, int]:
    if "dayone-moment:" not in line:
        return line, 0
    count = 0

    def gap(m: re.Match[str]) -> str:
        nonlocal count
        count += len(_ONE_MEDIA.findall(m.group()))
        # Words on both sides keep one space between them; at a line's edge nothing is left.
        return " " if m.start() > 0 and m.end() < len(line) else ""

    return _MEDIA_RUN.sub(gap, line), count


def unescape_markdown(line: str) -> str:
    r"""Remove backslash escapes of ASCII punctuation (`\.` -> `.`), leaving code spans untouched."""
    if "\\" not in line:
        return line
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\" and i + 1 < n and line[i + 1] in _PUNCT:
            out.append(line[i + 1])
            i += 2
        elif c == "`":
            j = i
            while j < n and line[j] == "`":
                j += 1
            closing = re.compile(rf"(?<!`)`{{{j - i}}}(?!`)").search(line, j)
            end = closing.end() if closing else j  # an unclosed run is literal backticks
            out.append(line[i:end])
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)
