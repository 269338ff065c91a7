"""Phase 2 of Mem0's write path (Algorithm 1): ADD / UPDATE / DELETE / NOOP per fact.

One forced tool call covers all facts of a turn (fewer round trips than one per fact);
each fact is shown with its s most similar active memories under small integer ids.
Safety rules applied after the LLM decides, whatever it said:
- an id the LLM invents is a NOOP (logged);
- a contradiction never leaves the store without the new fact (mem0 #4536): a fact whose
  only operation is DELETE is also ADDed, and a fact the LLM skipped entirely is ADDed;
- DELETE is a soft invalidation; user-edited memories and DELETEs beyond the per-turn
  limit are held as proposals for the user to confirm, never applied silently.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from memoir_desktop.core import prompts
from memoir_desktop.core.llm import LLMClient
from memoir_desktop.core.models import Memory

log = logging.getLogger(__name__)


@dataclass
class Op:
    event: str  # ADD | UPDATE | DELETE | NOOP
    fact: int
    text: str = ""
    memory_id: str | None = None
    note: str = ""


def plan_operations(llm: LLMClient, facts: list[str], candidates: list[list[Memory]],
                    today: datetime) -> list[Op]:
    """Ask the LLM for operations and map its integer ids back to memory ids."""
    id_of: dict[int, str] = {}
    num_of: dict[str, int] = {}
    blocks = []
    for i, (fact, cands) in enumerate(zip(facts, candidates)):
        lines = [f"NEW FACT {i}: {fact}", "EXISTING MEMORIES:"]
        for m in cands:
            if m.id not in num_of:
                num_of[m.id] = len(num_of)
                id_of[num_of[m.id]] = m.id
            lines.append(f"  [{num_of[m.id]}] {m.text} (recorded {m.created_at.date().isoformat()})")
        if not cands:
            lines.append("  (none)")
        blocks.append("\n".join(lines))
    system = prompts.UPDATE_SYSTEM.format(today=today.date().isoformat())
    user = prompts.UPDATE_USER.format(blocks="\n\n".join(blocks))
    args = llm.call_tool("update", [{"role": "system", "content": system},
                                    {"role": "user", "content": user}], prompts.UPDATE_TOOL)
    ops: list[Op] = []
    for raw in args["operations"]:
        event = str(raw.get("event", "")).upper()
        fact = raw.get("fact", 0)
        if not isinstance(fact, int) or not 0 <= fact < len(facts):
            log.warning("update: operation names fact %r that does not exist; ignored", fact)
            continue
        text = str(raw.get("text") or facts[fact]).strip()
        num = raw.get("id")
        if event in ("UPDATE", "DELETE"):
            mid = id_of.get(num) if isinstance(num, int) else None
            if mid is None:
                log.warning("update: %s names unknown memory id %r; treated as NOOP", event, num)
                ops.append(Op("NOOP", fact, facts[fact], note=f"unknown id {num!r}"))
                continue
            ops.append(Op(event, fact, text, mid))
        elif event == "NOOP":
            mid = id_of.get(num) if isinstance(num, int) else None
            ops.append(Op("NOOP", fact, facts[fact], mid))
        else:
            ops.append(Op("ADD", fact, text))
    return complete_plan(ops, facts)


def complete_plan(ops: list[Op], facts: list[str]) -> list[Op]:
    """Never lose a fact: a fact only DELETEd, or not mentioned at all, is also ADDed."""
    out = list(ops)
    for i, fact in enumerate(facts):
        mine = [o for o in ops if o.fact == i]
        keeps = any(o.event in ("ADD", "UPDATE", "NOOP") for o in mine)
        if not keeps:
            why = "contradiction: new fact kept" if mine else "no operation given: fact kept"
            out.append(Op("ADD", i, fact, note=why))
    return out
