"""Phase 2 of Mem0's write path (Algorithm 1): ADD / UPDATE / DELETE / NOOP per fact.

One forced tool call covers the facts of a turn (fewer round trips than one per fact); each fact
is shown with its s most similar active memories under small integer ids (never UUIDs, which
models mangle). Whatever the model answers, a fact is stored unless the model says, about a
memory it was shown, that the fact is already known (NOOP) or merged into it (UPDATE):
- an UPDATE / DELETE / NOOP naming a memory it was not shown ADDs the fact (the note says why);
- a NOOP naming no memory counts only when the fact's nearest memory is close, else it ADDs;
- a fact only DELETEd is ADDed too (mem0 #4536), and a fact the model skipped is ADDed.
What happens to the memories (held as proposals for user-edited ones and beyond the per-turn
limit) is decided when the plan is applied (memorize.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from memoir_desktop.core.llm import Gate, modes, prompts
from memoir_desktop.core.llm.errors import LLMPromptTooLong
from memoir_desktop.core.pipeline import support
from memoir_desktop.core.pipeline.extraction import Fact, shape_fact
from memoir_desktop.core.storage.models import Memory

log = logging.getLogger(__name__)

FACTS_PER_CALL = 8
# The sorting step is asked of a model that does it. One that sent the instruction's own example shape
# back (one ADD, no memory, "..." for text) three steps in a row is asked again every tenth step only
# (modes.asks), and meanwhile each fact is kept: what its echo did anyway, without the 6-9 s each step
# took Qwen2.5 0.5B on two cores (real-llm-qwen.txt), where an entry was wanted in 10.
NOTHING_LIKE_IT = "Kept as new: nothing like it was remembered yet"
NOT_ASKED = ("Kept as new: your AI model answers with its instructions' example instead of comparing new facts "
             "with your memories, so memoir asks it again only every tenth entry")


@dataclass
class Candidate:
    memory: Memory
    similarity: float


@dataclass
class Op:
    event: str  # ADD | UPDATE | DELETE | NOOP
    fact: int
    text: str = ""
    memory_id: str | None = None
    note: str = ""
    shaped: Fact | None = None  # the stored text's time and category (ADD / UPDATE)


@dataclass
class _Listing:
    """The integer ids one call showed, and which fact each was shown with."""
    id_of: dict[int, str] = field(default_factory=dict)
    num_of: dict[str, int] = field(default_factory=dict)


def plan_operations(llm: Gate, facts: list[Fact], candidates: list[list[Candidate]], today: datetime,
                    *, noop_threshold: float) -> list[Op]:
    """Operations for every fact; `noop_threshold`: how close the nearest memory must be for a NOOP
    that names no memory to count as "already known" (the embedder's related threshold)."""
    # A fact with no memory to compare it with can only be added: the model is not asked (a first
    # entry's facts; with Qwen2.5 0.5B on two cores such a question cost 7 s of the entry).
    ops: list[Op] = [_add(i, f.text, f, today, note=NOTHING_LIKE_IT) for i, f in enumerate(facts) if not candidates[i]]
    todo = [i for i in range(len(facts)) if candidates[i]]
    if todo and not _asks(llm):
        llm.not_asked("update")
        return ops + [_add(i, facts[i].text, facts[i], today, note=NOT_ASKED) for i in todo]
    batch, shown = FACTS_PER_CALL, None
    at = 0
    while at < len(todo):
        idx = todo[at:at + batch]
        try:
            ops.extend(_plan_batch(llm, facts, candidates, idx, today, shown, noop_threshold))
        except LLMPromptTooLong:
            if batch > 1:
                batch = max(1, batch // 2)
            elif shown is None or shown > 2:
                shown = 5 if shown is None else 2  # fewer candidates per fact
            else:
                raise
            continue
        at += len(idx)
    return complete_plan(ops, facts)


def _asks(llm: Gate) -> bool:
    return modes.asks(llm.echoes("update"))


def _plan_batch(llm, facts, candidates, idx: list[int], today, shown: int | None, noop_threshold: float) -> list[Op]:
    listing = _Listing()
    blocks = []
    cleared = llm.admit("update", memories=[c.memory for i in idx for c in candidates[i]])
    for k, i in enumerate(idx):
        # A memory only private entries support is not shown (it is not active anyway, unless the
        # entry became private while this job ran); the fact is then judged without it.
        candidates[i] = [c for c in candidates[i] if cleared.memory_ok(c.memory)]
        cands = candidates[i][:shown] if shown else candidates[i]
        lines = [f"NEW FACT {k}: {facts[i].text}", "EXISTING MEMORIES:"]
        for c in cands:
            m = c.memory
            if m.id not in listing.num_of:
                listing.num_of[m.id] = len(listing.num_of)
                listing.id_of[listing.num_of[m.id]] = m.id
            lines.append(f"  [{listing.num_of[m.id]}] {m.text} (recorded {m.created_at.date().isoformat()})")
        if not cands:
            lines.append("  (none)")
        blocks.append("\n".join(lines))
    system = prompts.UPDATE_SYSTEM.format()  # the same every time; the date is the user message's
    user = prompts.UPDATE_USER.format(today=today.date().isoformat(), blocks="\n\n".join(blocks))
    args = llm.call_tool(cleared, [{"role": "system", "content": system},
                                   {"role": "user", "content": user}], prompts.UPDATE_TOOL)
    out: list[Op] = []
    for raw in args.operations:
        if not 0 <= raw.fact < len(idx):
            log.warning("update: an operation names fact %r, which does not exist; ignored", raw.fact)
            continue
        i = idx[raw.fact]
        out.append(_op(raw, i, facts[i], candidates[i], listing, today, noop_threshold))
    return out


def _op(raw, i: int, fact: Fact, cands: list[Candidate], listing: _Listing, today: datetime,
        noop_threshold: float) -> Op:
    mid = listing.id_of.get(raw.id) if raw.id is not None else None
    named = raw.id is not None or raw.id_unreadable
    if raw.event == "ADD":
        if raw.text and not support.grounded(raw.text, [fact.text]):
            # Another text than the fact's (a small model copied the prompt's example): the fact is added.
            return _add(i, fact.text, fact, today, note="the model's wording was not the fact's: fact kept")
        return _add(i, raw.text or fact.text, fact, today)
    if raw.event in ("UPDATE", "DELETE"):
        if mid is None:
            log.warning("update: %s names memory %r, which it was not shown; the fact is kept", raw.event, raw.id)
            return _add(i, fact.text, fact, today, note=f"{raw.event} named a memory it was not shown: fact kept")
        if raw.event == "DELETE":
            return Op("DELETE", i, fact.text, mid)
        text = (raw.text or "").strip() or fact.text
        shown = [c.memory.text for c in cands if c.memory.id == mid]
        if not support.grounded(text, [fact.text, *shown]):
            return _add(i, fact.text, fact, today, note="the update's wording said neither the fact nor the memory: fact kept")
        return Op("UPDATE", i, text, mid, shaped=_shaped(text, fact, today))
    # NOOP
    if mid is not None:
        return Op("NOOP", i, fact.text, mid)
    if not named and cands and cands[0].similarity >= noop_threshold:
        return Op("NOOP", i, fact.text, cands[0].memory.id, note="known: nearest memory")
    why = "NOOP named a memory it was not shown" if named else "NOOP with no memory that says it"
    return _add(i, fact.text, fact, today, note=f"{why}: fact kept")


def _shaped(text: str, fact: Fact, today: datetime) -> Fact:
    shaped = shape_fact(text, today, fact.category)
    return Fact(shaped.text, shaped.category, shaped.about or fact.about, shaped.recurrence or fact.recurrence)


def _add(i: int, text: str, fact: Fact, today: datetime, note: str = "") -> Op:
    shaped = _shaped(text.strip() or fact.text, fact, today)
    return Op("ADD", i, shaped.text, note=note, shaped=shaped)


def complete_plan(ops: list[Op], facts: list[Fact]) -> list[Op]:
    """Never lose a fact: a fact only DELETEd, or not mentioned at all, is also ADDed."""
    out = list(ops)
    for i, fact in enumerate(facts):
        mine = [o for o in ops if o.fact == i]
        if not any(o.event in ("ADD", "UPDATE", "NOOP") for o in mine):
            why = "contradiction: new fact kept" if mine else "no operation given: fact kept"
            out.append(Op("ADD", i, fact.text, note=why, shaped=fact))
    return out
