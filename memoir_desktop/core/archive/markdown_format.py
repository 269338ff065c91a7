"""memoir's Markdown: the text of an entry written so that Markdown, and Obsidian, show it as it was
written, and read back to the very same text; and the few YAML values its front matter holds.

Pure: stdlib only.

The body (`escape_body` / `unescape_body`), line for line (a text of n lines is n lines of Markdown):
- Every backslash is doubled, and these ASCII marks get a backslash wherever they are, so that neither
  Markdown nor Obsidian reads them as syntax: `` ` * _ [ ] < ~ | $ `` (Markdown, GitHub's tables and
  strikethrough, math), and Obsidian's `#` (tags), `%` (%%comments%%), `=` (==highlights==) and `^`
  (^block ids). `&` gets one only where it would start a character reference.
- At a line's start, the marks of quotes, lists, setext underlines and thematic breaks (`>`, `+`, `-`,
  `=`, "1." / "1)") and a table's delimiter row: a first line "---" is text, not a front matter fence.
- A line's leading spaces become `&nbsp;` (shown as indentation, never a code block), its leading and
  trailing tabs and trailing spaces, and other spaces at its edges (a full-width U+3000 indent), become
  numeric character references, which no renderer trims; a carriage return inside a line becomes `&#13;`.
- Between two lines that are not empty, the line break is written as two trailing spaces (a hard break
  in every Markdown, Obsidian's "strict line breaks" included). An empty line stays empty: a run of them
  shows as one paragraph break, and comes back as it was.
Reading inverts each step: two trailing spaces go, `\\` + a mark is the mark, `&nbsp;` is a space and
any other character reference is its character. Since every mark of the text was escaped, nothing in
the text can pass for one of these."""

from __future__ import annotations

import html
import json
import re
from datetime import date, datetime

__all__ = ["escape_body", "unescape_body", "yaml_value"]

_ALWAYS = frozenset("\\`*_[]<~|$#%=^")  # escaped wherever they are
_LINE_START = frozenset(">+-=")
_ORDERED = re.compile(r"(\d{1,9})([.)])(?=[ \t]|$)")
_TABLE_RULE = re.compile(r"[ \t|:-]*-[ \t|:-]*")  # under a line it makes a table (GFM)
_ENTITY = re.compile(r"&(?=#[0-9]+;|#[xX][0-9A-Fa-f]+;|[0-9A-Za-z]+;)")
_BLANK = " \t"
_EDGE_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
LEADING_SPACE = "&nbsp;"  # the one named reference written: a leading space, shown as indentation


def _ref(c: str) -> str:
    return f"&#{ord(c)};" if c in "\t\r " else f"&#x{ord(c):X};"


def _escape_line(line: str) -> str:
    core = line.lstrip(_BLANK)
    lead = "".join(LEADING_SPACE if c == " " else _ref(c) for c in line[: len(line) - len(core)])
    trimmed = core.rstrip(_BLANK)
    trail = "".join(_ref(c) for c in core[len(trimmed):])
    head = len(trimmed) - len(trimmed.lstrip(_EDGE_SPACES))
    tail = max(head, len(trimmed.rstrip(_EDGE_SPACES)))
    middle = trimmed[head:tail]
    out = []
    for i, c in enumerate(middle):
        if c in _ALWAYS or (c == "&" and _ENTITY.match(middle, i)):
            out.append("\\" + c)
        elif c == "\r":
            out.append("&#13;")
        else:
            out.append(c)
    text = "".join(out)
    if head == 0:  # the marks a line starts with (after its indentation, which is written as references)
        m = _ORDERED.match(text)
        if m:
            text = f"{m.group(1)}\\{text[m.end(1):]}"
        elif text[:1] in _LINE_START or _TABLE_RULE.fullmatch(text):
            text = "\\" + text
    return lead + "".join(_ref(c) for c in trimmed[:head]) + text + "".join(_ref(c) for c in trimmed[tail:]) + trail


def escape_body(text: str) -> str:
    """Markdown that shows `text` as written and reads back to it exactly (see the module docstring)."""
    lines = [_escape_line(line) for line in text.split("\n")]
    return "\n".join(line + "  " if line and i + 1 < len(lines) and lines[i + 1] else line
                     for i, line in enumerate(lines))


_UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])|&(#[0-9]+|#[xX][0-9A-Fa-f]+|[0-9A-Za-z]+);")


def _unescape_line(line: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return m.group(1)
        ref = m.group(0)
        return " " if ref == LEADING_SPACE else html.unescape(ref)

    return _UNESCAPE.sub(one, line)


def unescape_body(markdown: str) -> str:
    """The text `escape_body` wrote `markdown` from."""
    return "\n".join(_unescape_line(line[:-2] if line.endswith("  ") else line) for line in markdown.split("\n"))


# -- front matter values ----------------------------------------------------------------------------

def yaml_value(value) -> str:
    """One value of the front matter, in YAML any parser reads the same way: a string double-quoted
    (JSON's escapes, plus those YAML needs for line separators and characters it may not hold raw), a
    list in brackets, true/false, a date or a date and time unquoted (Obsidian's date properties)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(yaml_value(v) for v in value) + "]"
    if isinstance(value, int):
        return str(value)
    return _yaml_string(str(value))


def _yaml_string(s: str) -> str:
    out = json.dumps(s, ensure_ascii=False)
    # YAML reads U+0085, U+2028 and U+2029 as line breaks and refuses other C1 controls and
    # non-characters: written as escapes, they read back as themselves.
    return re.sub(r"[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", out)
