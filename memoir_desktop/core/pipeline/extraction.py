"""Phase 1 of Mem0's write path: candidate facts from the new exchange.

The extractor sees the running summary S, the last m messages and the new exchange, whose
relative times were already made absolute by the temporal module (so "어제" reaches the LLM
as "어제 (2026-11-28)" computed from the entry's own time, not from today's).
"""

from __future__ import annotations

import re
from datetime import date, datetime

from memoir_desktop.core import prompts, temporal
from memoir_desktop.core.llm import LLMClient
from memoir_desktop.core.models import Entry

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def annotate(entry: Entry) -> str:
    return temporal.normalize(entry.content, entry.created_at)


def extract_facts(llm: LLMClient, *, summary: str, recent: list[Entry], new: list[Entry],
                  today: datetime) -> list[str]:
    system = prompts.EXTRACTION_SYSTEM.format(today=today.date().isoformat(),
                                              weekday=_WEEKDAYS[today.weekday()])
    user = prompts.EXTRACTION_USER.format(
        summary=summary or "(none yet)",
        recent=prompts.format_messages([{"role": e.role, "content": e.content} for e in recent]),
        new=prompts.format_messages([{"role": e.role, "content": annotate(e)} for e in new]),
    )
    args = llm.call_tool("extraction", [{"role": "system", "content": system},
                                        {"role": "user", "content": user}], prompts.EXTRACTION_TOOL)
    facts, seen = [], set()
    for f in args["facts"]:
        f = " ".join(f.split())
        if f and f not in seen:
            seen.add(f)
            facts.append(f)
    return facts


def fact_span(fact: str, recorded: datetime) -> tuple[datetime, datetime] | None:
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
    lo, hi = min(days), max(days)
    return datetime(lo.year, lo.month, lo.day), datetime(hi.year, hi.month, hi.day, 23, 59, 59)
