"""Phase 1 of Mem0's write path: candidate facts from the new exchange.

The extractor sees the running summary S, the last m messages and the new exchange, whose
relative times were already made absolute by the temporal module (so "어제" reaches the LLM
as "어제 (2026-11-28)" computed from the entry's own time, not from today's). Each fact comes back
as text with its time: the span it is about (from the annotations the model copied, which are
then written as words, and from dates the text names) or the recurrence it states.

A long entry is read in chunks, and a prompt the server finds too long is sent again smaller
(fewer chunk characters, no recent messages), so a small local model's context never costs a fact.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import date, datetime

from memoir_desktop.core import temporal
from memoir_desktop.core.llm import Clearance, Gate, Tool, prompts
from memoir_desktop.core.llm.errors import LLMPromptTooLong
from memoir_desktop.core.llm.tokens import count_tokens
from memoir_desktop.core.pipeline import support
from memoir_desktop.core.storage.models import Entry

log = logging.getLogger(__name__)

_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
CHUNK_CHARS = 6000  # per extraction call: a 4k-token local model still fits prompt + reply
MIN_CHUNK_CHARS = 750
# The last m messages are context, not what is read: a diarist's ten last entries can be pages long, and
# a small local model reads about 140 pieces of text a second on two cores. The newest that fit are kept.
RECENT_CHARS = 1500
MIN_RECENT_PART = 200  # less of a message than this says nothing: it is left out
# The summary S, asked for in 200 words, came back from Qwen2.5 0.5B once as 1,024 tokens (its cap), and
# every extraction after it read them all; from SmolLM2 it filled a 2,048-token server's context, and every
# extraction was sent again without its context. Its first whole sentences that fit are sent.
SUMMARY_TOKENS = 400
# The facts of a text say it again in parts: the reply needs about twice the text, and room for the
# JSON around each fact. SmolLM2-135M wrote to the purpose's whole cap (1,536) for a one-line entry,
# which on a 2,048-token llama.cpp server ran the context out and left it failing every request.
REPLY_PER_TOKEN = 2
REPLY_ROOM = 200
_SENTENCE_END = re.compile(r"(?<=[.!?。…\n])\s+")

Span = tuple[datetime, datetime]


@dataclass
class Fact:
    text: str
    category: str | None = None
    about: Span | None = None
    recurrence: str | None = None  # RRULE subset (temporal.recurring), e.g. "FREQ=WEEKLY;BYDAY=FR"


def annotate(entry: Entry) -> str:
    return temporal.normalize(entry.content, entry.created_at)


def recent_lines(recent: list[Entry], budget: int = RECENT_CHARS) -> list[dict]:
    """The newest recent messages that fit `budget` characters, oldest first; the oldest one kept may
    be only its end (what the new exchange follows on from)."""
    out: list[dict] = []
    for e in reversed(recent):
        text = e.content
        if len(text) > budget:
            if budget >= MIN_RECENT_PART:
                out.append({"role": e.role, "content": "…" + text[len(text) - budget + 1:]})
            break
        out.append({"role": e.role, "content": text})
        budget -= len(text)
    return out[::-1]


def extract_facts(llm: Gate, cleared: Clearance, *, summary: str, recent: list[Entry], new: list[Entry],
                  today: datetime, moods: list[str] | None = None) -> list[Fact]:
    """`moods`: when given (the user turned mood notes on), the moods the model saw are appended to it."""
    chunk, with_context = CHUNK_CHARS, True
    while True:
        try:
            copied: list[str] = []
            facts = _extract(llm, cleared, summary, recent, new, today, chunk, with_context, moods, copied)
            if facts or not copied or not with_context:
                return facts
            # Every fact it gave was an earlier message's (a small model reads the context again
            # instead of the entry): asked once more with the entry alone.
            log.info("extraction: only earlier messages' facts came back; asking again without them")
            with_context = False
        except LLMPromptTooLong:
            if with_context:
                with_context = False  # the summary and recent messages go first
            elif chunk // 2 >= MIN_CHUNK_CHARS:
                chunk //= 2
            else:
                raise


def _extract(llm, cleared, summary, recent, new, today, chunk_chars: int, with_context: bool,
             moods: list[str] | None = None, copied: list[str] | None = None) -> list[Fact]:
    """`copied`: the facts left out as another message's or the prompt's are appended to it."""
    system, tool = _instructions(moods is not None)
    lines = [{"role": e.role, "content": annotate(e)} for e in new]
    facts: list[Fact] = []
    seen: set[str] = set()
    todo = _chunks(lines, chunk_chars)
    day = _day(today)
    # What else the model was shown, as words once: a fact made of them is not the entry's (support.py).
    # The prompt's own words are the instructions and the frame of the user message ("Today is
    # 2026-11-28 (Saturday)": SmolLM2 gave that line back as a fact).
    prompt_words = support.words(system + "\n" + prompts.EXTRACTION_USER.format(**day, summary="", recent="", new=""))
    others = [annotate(e) for e in recent] + [summary] if with_context else []
    other_words = [support.words(text) for text in others] + [prompt_words]
    while todo:
        part = todo.pop(0)
        cap = REPLY_ROOM + REPLY_PER_TOKEN * count_tokens("\n".join(m["content"] for m in part))
        args = llm.call_tool(cleared, _messages(system, day, summary, recent, prompts.format_messages(part),
                                                with_context), tool, max_tokens=cap)
        if moods is not None and getattr(args, "mood", None) in prompts.MOODS:
            moods.append(args.mood)
        size = sum(len(m["content"]) for m in part)
        if args.truncated and size > MIN_CHUNK_CHARS:
            # The reply ran out of room: read the part again in halves, so the facts the cut-off
            # reply lost come back (duplicates of the ones it kept are dropped below).
            todo[:0] = _chunks(part, max(MIN_CHUNK_CHARS // 2, size // 2))
        shown = [m["content"] for m in part]
        shown_words = set().union(*(support.words(text) for text in shown))
        for f in args.facts:
            fact = shape_fact(f.text, today, f.category)
            fact_words = support.words(f.text)
            if is_question(fact.text) or not fact_words:
                # A small model gives the diarist's question back as a "fact", or only a date or "...":
                # neither states anything.
                continue
            if (support.copied(fact_words, shown_words, other_words) or support.foreign(f.text, shown)
                    or support.the_prompts(fact_words, shown_words, prompt_words)):
                log.info("extraction: a fact not of this entry (another message's, the prompt's, another language); left out")
                if copied is not None:
                    copied.append(f.text)
                continue
            if fact.text and fact.text not in seen:
                seen.add(fact.text)
                facts.append(fact)
    return facts


def _instructions(with_mood: bool) -> tuple[str, Tool]:
    # The same for every entry (today's date is in the user message), so a server that keeps a
    # prompt's beginning reads them once (see prompt_beginning).
    system = prompts.EXTRACTION_SYSTEM.format(categories=", ".join(prompts.FACT_CATEGORIES))
    if with_mood:
        return system + prompts.EXTRACTION_MOOD_RULE, prompts.EXTRACTION_TOOL_WITH_MOOD
    return system, prompts.EXTRACTION_TOOL


def _messages(system: str, day: dict, summary: str, recent: list[Entry], new: str, with_context: bool) -> list[dict]:
    user = _context(day, summary, recent, with_context) + prompts.EXTRACTION_TASK.format(new=new)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _day(today: datetime) -> dict:
    return {"today": today.date().isoformat(), "weekday": temporal.WEEKDAY_NAMES[today.weekday()]}


def _context(day: dict, summary: str, recent: list[Entry], with_context: bool) -> str:
    return prompts.EXTRACTION_CONTEXT.format(
        **day, summary=(summary_part(summary) or "(none yet)") if with_context else "(left out)",
        recent=prompts.format_messages(recent_lines(recent)) if with_context else "(left out)")


def summary_part(summary: str, budget: int = SUMMARY_TOKENS) -> str:
    """The running summary, its first whole sentences within `budget` tokens (estimated)."""
    summary = summary.strip()
    if count_tokens(summary) <= budget:
        return summary
    kept = ""
    for sentence in _SENTENCE_END.split(summary):
        if count_tokens(kept + sentence) > budget:
            break
        kept += sentence + " "
    if not kept:  # one run-on sentence: cut where the budget ends
        kept = summary[:len(summary) * budget // count_tokens(summary)]
    return kept.rstrip() + " …"


def prompt_beginning(*, summary: str, recent: list[Entry], today: datetime,
                     with_mood: bool) -> tuple[list[dict], Tool]:
    """The extraction request of the next entry written `today`, up to where its own words go: the
    instructions, the date, the summary and the recent messages (the entries before it).

    A model server near the diarist reads a prompt at about 140 pieces of text a second on two
    cores, and keeps only the last prompt it read: the graph's requests after an entry push the
    extraction's 1,100 out, and reading them again was most of an entry's 12 s with Qwen2.5 0.5B
    (real-llm-qwen.txt). Sent while memoir is idle, this beginning is read before the next entry
    is written; then only the entry itself is read."""
    system, tool = _instructions(with_mood)
    return [{"role": "system", "content": system},
            {"role": "user", "content": _context(_day(today), summary, recent, True)}], tool


def is_question(text: str) -> bool:
    """A sentence that asks (it ends in a question mark, closing quotes and brackets aside)."""
    return text.rstrip(" \t\"'”’」』)]").endswith(("?", "？"))


def _chunks(lines: list[dict], limit: int) -> list[list[dict]]:
    """Messages grouped into parts of at most `limit` characters; a longer message is split at
    sentence ends (or hard, for a single run-on sentence)."""
    parts: list[list[dict]] = [[]]
    size = 0
    for line in lines:
        for piece in _split(line["content"], limit):
            if size + len(piece) > limit and parts[-1]:
                parts.append([])
                size = 0
            parts[-1].append({"role": line["role"], "content": piece})
            size += len(piece)
    return parts


def _split(text: str, limit: int) -> list[str]:
    if len(text) <= limit:
        return [text]
    out, cur = [], ""
    for sent in _SENTENCE_END.split(text):
        while len(sent) > limit:
            out.append(sent[:limit])
            sent = sent[limit:]
        if len(cur) + len(sent) + 1 > limit and cur:
            out.append(cur)
            cur = ""
        cur = f"{cur} {sent}" if cur else sent
    if cur:
        out.append(cur)
    return out


def shape_fact(text: str, recorded: datetime, category: str | None = None) -> Fact:
    """A fact's final text and time: copied date annotations become words, their spans the
    fact's `about`; a recurring expression gives a recurrence instead of a date."""
    text = " ".join(text.split())
    text, spans = temporal.naturalize(text, recorded.date())
    about = _union([(_start(a), _end(b)) for a, b in spans] + ([fact_span(text, recorded)] if text else []))
    if category not in prompts.FACT_CATEGORIES:
        category = None
    return Fact(text, category, about, temporal.recurring.rule_of(text))


def fact_span(fact: str, recorded: datetime) -> Span | None:
    """The span a fact is about: absolute dates it carries, else relative ones it still has."""
    days: list[date] = []
    for y, m, d in _ISO.findall(fact):
        try:
            days.append(date(int(y), int(m), int(d)))
        except ValueError:
            continue
    for span in temporal.resolve(fact, recorded):
        days.extend([span.start, span.end])
    if not days:
        return None
    return _start(min(days)), _end(max(days))


def _start(d: date) -> datetime:
    return datetime(d.year, d.month, d.day)


def _end(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, 23, 59, 59)


def _union(spans: list[Span | None]) -> Span | None:
    known = [s for s in spans if s]
    if not known:
        return None
    return min(s[0] for s in known), max(s[1] for s in known)
