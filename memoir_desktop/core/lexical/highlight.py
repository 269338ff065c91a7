"""Where a search matched in a text: the words (spans of the original text) whose tokens the
query shares. Korean morphemes are lemmas ("마시" for "마셨다"), so a match is shown on the whole
word it came from, which is what a reader looks for."""

from __future__ import annotations

import re
from collections.abc import Iterable

from memoir_desktop.core.lexical.tokens import tokenize_many

_WORD = re.compile(r"\S+")
MAX_HIGHLIGHT_CHARS = 20_000  # beyond this only the opening is marked (results show the opening anyway)


def matched_spans(text: str, query_tokens: Iterable[str]) -> list[tuple[int, int]]:
    """(start, end) of each word of `text` that holds a query token, in order."""
    wanted = set(query_tokens)
    if not wanted or not text:
        return []
    words = [(m.start(), m.end()) for m in _WORD.finditer(text[:MAX_HIGHLIGHT_CHARS])]
    analysed = tokenize_many(text[a:b] for a, b in words)
    return [span for span, toks in zip(words, analysed, strict=True) if wanted.intersection(toks)]


def snippet(text: str, spans: list[tuple[int, int]], width: int = 160) -> tuple[str, list[tuple[int, int]]]:
    """A piece of `text` around its first match (about `width` characters, cut at spaces) and the
    match spans inside that piece."""
    if len(text) <= width:
        return text, spans
    first = spans[0][0] if spans else 0
    start = max(0, first - width // 3)
    if start:
        space = text.rfind(" ", 0, start)
        start = space + 1 if space >= 0 and start - space < 20 else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    piece = ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")
    shift = 1 if start else 0
    inside = [(a - start + shift, b - start + shift) for a, b in spans if a >= start and b <= end]
    return piece, inside
