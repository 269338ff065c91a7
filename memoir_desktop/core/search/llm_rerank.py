"""An optional third look at the companion's context: the user's own LLM orders the top memories.

One structured call over the second stage's pool (rerank.POOL). The model sees the memories under
small numbers (0..n-1), never database ids, which models garble, and the date each was recorded
(for a question about now, the newest of two memories about the same thing is the true one). It
answers with the numbers that help, best first.

A model's answer only ever *moves* memories: the named ones come first in its order, every other
one follows in the order it came in. A number out of range, repeated, or written as a string cannot
lose a memory, and an unreachable or garbled model leaves the order as it was. Off by default: it
costs a call per question, so Settings shows `estimate_tokens` before the user turns it on.

Stateless; safe from any thread that may use the LLM client.
"""

from __future__ import annotations

import json
import logging
from datetime import date, datetime

import openai

from memoir_desktop.core.llm import LLMError, modes
from memoir_desktop.core.llm.prompts import RERANK_SYSTEM, RERANK_TOOL, RERANK_USER
from memoir_desktop.core.llm.tokens import count_tokens

log = logging.getLogger(__name__)

# A pasted letter turned memory should not make one candidate cost as much as the other 29; the
# start of a memory says what it is about, which is all the ranking needs.
MAX_MEMORY_CHARS = 400

def llm_rerank(llm, question: str, candidates: list[dict], *, keep: int | None = None) -> list[dict]:
    """The candidates (dicts with "id", "text", optionally "created_at"), the ones the model named
    first in its order, then the rest in their original order; the first `keep` of them when given.
    Never raises for anything the LLM does: on an LLM error the original order comes back."""
    limit = len(candidates) if keep is None else max(0, keep)
    if len(candidates) < 2 or llm is None:
        return list(candidates[:limit])
    cleared = llm.admit("rerank", memories=candidates)
    # A memory only private entries support is not shown; it keeps its place after the shown ones.
    shown = cleared.keep_memories(candidates)
    held = [c for c in candidates if not cleared.memory_ok(c)]
    if len(shown) < 2:
        return (shown + held)[:limit]
    try:
        args = llm.call_tool(cleared, _messages(question, shown, keep), RERANK_TOOL)
    except (LLMError, openai.OpenAIError) as exc:
        # The class only: a server's error text can echo the prompt, and logs never hold journal text.
        log.warning("LLM rerank skipped (%s); the context keeps its order", exc.__class__.__name__)
        return list(candidates[:limit])
    named = [i for i in dict.fromkeys(getattr(args, "relevant", [])) if 0 <= i < len(shown)]
    seen = set(named)
    rest = [i for i in range(len(shown)) if i not in seen]
    return ([shown[i] for i in named + rest] + held)[:limit]


def estimate_tokens(question: str, candidates: list[dict]) -> int:
    """Prompt + answer tokens of one llm_rerank call (tokens.count_tokens: ~4 Latin characters or
    one Hangul syllable per token, an upper estimate). A retry after an unusable reply doubles it."""
    if len(candidates) < 2:
        return 0  # no call is made
    messages = _messages(question, candidates, None)
    # Counted as a tool call sends it; the JSON modes carry the same schema in a message instead.
    sent = modes.request("tools", messages, RERANK_TOOL.name, RERANK_TOOL.description, RERANK_TOOL.parameters)
    prompt = sum(count_tokens(m["content"]) + 4 for m in messages)  # ~4 tokens of chat framing each
    prompt += count_tokens(json.dumps(sent["tools"]))
    answer = count_tokens(json.dumps({"relevant": list(range(len(candidates)))})) + 4  # the longest: all named
    return prompt + answer


def _messages(question: str, candidates: list[dict], keep: int | None) -> list[dict]:
    listing = "\n".join(f"[{i}] {_line(c)}" for i, c in enumerate(candidates))
    limit = f" (at most {keep})" if keep is not None and keep < len(candidates) else ""
    return [{"role": "system", "content": RERANK_SYSTEM.format(last=len(candidates) - 1)},
            {"role": "user", "content": RERANK_USER.format(question=" ".join(question.split()),
                                                           listing=listing, limit=limit)}]


def _line(c: dict) -> str:
    # One line per memory: a newline inside a memory could otherwise start a forged "[7] ..." entry.
    text = " ".join(str(c.get("text") or "").split())
    if len(text) > MAX_MEMORY_CHARS:
        text = text[:MAX_MEMORY_CHARS].rstrip() + "…"
    day = _day(c.get("created_at"))
    return f"(recorded {day}) {text}" if day else text


def _day(value) -> str | None:
    if isinstance(value, datetime | date):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, str) and value.strip():
        try:
            return datetime.fromisoformat(value.strip()).strftime("%Y-%m-%d")
        except ValueError:
            return None  # an unreadable date is left out rather than shown wrong
    return None
