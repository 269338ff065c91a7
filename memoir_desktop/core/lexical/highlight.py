"""Where a search matched in a text: the words (spans of the original text) whose tokens the
query shares. Korean morphemes are lemmas ("마시" for "마셨다"), so a match is shown on the whole
word it came from, which is what a reader looks for."""

from __future__ import annotations

import re
from collections.abc import Iterable

from memoir_desktop.core.lexical.tokens import token_positions_many, tokenize_many

_WORD = re.compile(r"\S+")
MAX_HIGHLIGHT_CHARS = 20_000  # beyond this only the opening is marked (results show the opening anyway)


def matched_spans(text: str, query_tokens: Iterable[str]) -> list[tuple[int, int]]:
    """(start, end) of each word of `text` that holds a query token, in order."""
    return matched_spans_many([text], query_tokens)[0]


def matched_spans_many(texts: list[str], query_tokens: Iterable[str]) -> list[list[tuple[int, int]]]:
    """`matched_spans` for several texts with one analysis each (a search's results at once)."""
    wanted = set(query_tokens)
    if not wanted:
        return [[] for _ in texts]
    cut = [t[:MAX_HIGHLIGHT_CHARS] for t in texts]
    out = []
    for text, positions in zip(cut, token_positions_many(cut), strict=True):
        words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        if positions is None:  # offsets would not line up: analyse word by word instead
            analysed = tokenize_many(text[a:b] for a, b in words)
            out.append([span for span, toks in zip(words, analysed, strict=True) if wanted.intersection(toks)])
            continue
        hit_at = sorted(pos for pos, tok in positions if tok in wanted)
        spans, i = [], 0
        for a, b in words:
            while i < len(hit_at) and hit_at[i] < a:
                i += 1
            if i < len(hit_at) and hit_at[i] < b:
                spans.append((a, b))
        out.append(spans)
    return out


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
