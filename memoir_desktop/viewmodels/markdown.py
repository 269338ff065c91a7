"""`to_safe_html`: the companion's Markdown as HTML that loads nothing and links nowhere.

The companion's replies come from a language model, which may repeat what a web page, an
imported file or the user said: its text is not trusted. Qt's own Markdown and rich-text
engines would turn `![x](http://…)` into a fetched image and `[x](file:///…)` into a link, so
the reply is converted here by a small converter that knows a few shapes — paragraphs, single
line breaks, **bold**, *italic* / _italic_, `code`, fenced blocks, - / * / + bullets, numbered
lists, headings (shown as bold lines), rules — and escapes everything else. Links and bare URLs
stay plain text (a link shows as "text (address)"); an image shows its alt text. The only tags
written are p, br, b, i, code, pre, ul, ol, li and hr, none with an address.

Pure Python (no Qt): the screens and the tests share it. Not markdown-it-py: CommonMark decodes
the entities a diarist typed ("&amp;" must stay as written), reads a Korean date ("2024. 3. 1.") as a
list from 2024 and splits a list where the bullet changes; overriding that and every renderer down
to ten tags is more code than this converter.
"""

from __future__ import annotations

import html
import re

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})(?:\s+(.*?))?\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
# Up to three digits: "2024. 3. 1. 에 만났다" (a Korean date) is not a list starting at 2024.
_NUMBERED = re.compile(r"^\s*(\d{1,3})[.)]\s+(.*)$")

_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!>~|])")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\n]*)\)")
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\n]*)\)")
_BOLD_ITALIC = re.compile(r"\*\*\*(?=\S)(.+?)(?<=\S)\*\*\*")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)")
# A star may sit inside a word ("정말*좋았다*"); an underscore may not (snake_case stays as typed).
_ITALIC = re.compile(r"(?<!\*)\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?!\*)|(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])")
_HOLE = re.compile("\x00(\\d+)\x00")


def to_safe_html(md: str) -> str:
    """HTML for a QLabel / QTextDocument set to rich text; loads and links nothing."""
    text = (md or "").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return "".join(_blocks(text.split("\n")))


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _blocks(lines: list[str]) -> list[str]:
    out: list[str] = []
    para: list[str] = []
    items: list[str] = []
    kind = ""  # "ul" | "ol" while a list is open
    start = 1

    def flush() -> None:
        nonlocal kind
        if para:
            out.append("<p>" + "<br>".join(_inline(line.strip()) for line in para) + "</p>")
            para.clear()
        if items:
            opening = f'<ol start="{start}">' if kind == "ol" and start != 1 else f"<{kind}>"
            out.append(opening + "".join(f"<li>{item}</li>" for item in items) + f"</{kind}>")
            items.clear()
        kind = ""

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            flush()
            marker = fence.group(1)
            code: list[str] = []
            i += 1
            while i < len(lines) and not _closes(lines[i], marker):
                code.append(lines[i])
                i += 1
            out.append("<pre>" + _esc("\n".join(code)) + "</pre>")
            i += 1  # the closing fence (or the end of an unclosed block)
            continue
        i += 1
        if not line.strip():
            flush()
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            if heading.group(2):
                out.append(f"<p><b>{_inline(heading.group(2))}</b></p>")
            continue
        if _RULE.match(line):
            flush()
            out.append("<hr>")
            continue
        bullet = _BULLET.match(line)
        numbered = None if bullet else _NUMBERED.match(line)
        if bullet or numbered:
            wanted = "ul" if bullet else "ol"
            if kind != wanted:
                flush()
                kind = wanted
                start = int(numbered.group(1)) if numbered else 1
            marker = bullet or numbered
            assert marker is not None  # one of the two matched (the branch's condition)
            items.append(_inline(marker.group(1 if bullet else 2).strip()))
            continue
        if items and line[:1].isspace():
            items[-1] += "<br>" + _inline(line.strip())  # an item's indented second line
            continue
        if items:
            flush()
        para.append(line)
    flush()
    return out


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(marker) and set(stripped) == {marker[0]}


def _inline(text: str) -> str:
    """One line: escaped, with code spans, links, images and emphasis; nothing else is markup."""
    holes: list[str] = []

    def hole(value: str) -> str:
        holes.append(value)
        return f"\x00{len(holes) - 1}\x00"

    def image(m: re.Match) -> str:
        return hole(_esc(m.group(1).strip()))

    def link(m: re.Match) -> str:
        label, address = m.group(1).strip(), m.group(2).strip()
        shown = _emphasis(_esc(label))
        if address and address != label:
            shown += " (" + _esc(address) + ")"
        return hole(shown)

    text = _ESCAPED.sub(lambda m: hole(_esc(m.group(1))), text)
    text = _CODE_SPAN.sub(lambda m: hole("<code>" + _esc(m.group(2)) + "</code>"), text)
    text = _IMAGE.sub(image, text)
    text = _LINK.sub(link, text)
    text = _emphasis(_esc(text))
    # A hole's value may hold other holes (a link label with an escaped star): fill until none is left.
    while _HOLE.search(text):
        text = _HOLE.sub(lambda m: holes[int(m.group(1))], text)
    return text


def _emphasis(escaped: str) -> str:
    escaped = _BOLD_ITALIC.sub(lambda m: f"<b><i>{m.group(1)}</i></b>", escaped)
    escaped = _BOLD.sub(lambda m: f"<b>{m.group(1) or m.group(2)}</b>", escaped)
    return _ITALIC.sub(lambda m: f"<i>{m.group(1) or m.group(2)}</i>", escaped)
