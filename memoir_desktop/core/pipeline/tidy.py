"""Tidying: merges of near-duplicate memories that the user sees first and accepts one by one.

Two halves, so a screen can show the merges before anything changes:
PROPOSE finds groups of similar active memories and the text each merge would keep (the LLM
writes it through the gate; without an LLM only exact or near-exact duplicates are offered, and
the longest wording is kept). APPLY merges one accepted proposal with the same history rows and
undo as consolidation (`consolidate.apply_merge` / `consolidate.undo`), after checking that its
memories are still active and unchanged — the user may have edited one while looking.
"""

from __future__ import annotations

import logging
import re
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.llm.errors import LLMError
from memoir_desktop.core.pipeline import consolidate
from memoir_desktop.core.storage.models import Memory
from memoir_desktop.core.storage.store import Change, MemoryStore

log = logging.getLogger(__name__)

# Two memories saying the same thing are already worth one merge (consolidation waits for three
# memories of one topic, because it rewrites them; a duplicate needs no rewriting).
MIN_DUPLICATES = 2
_NOT_WORDS = re.compile(r"[\W_]+", re.UNICODE)


@dataclass(frozen=True)
class TidyMember:
    id: str
    text: str
    updated_at: str  # ISO time: APPLY refuses when the memory changed since the proposal


@dataclass(frozen=True)
class TidyProposal:
    user_id: str
    members: tuple[TidyMember, ...]
    merged_text: str
    why: str  # "same words" (kept the longest) or "similar" (the LLM wrote one text)


@dataclass(frozen=True)
class TidyResult:
    merged_id: str | None  # None when refused
    changes: Changes
    refused: str | None = None  # a sentence for the user when nothing was merged


def _norm(text: str) -> str:
    return _NOT_WORDS.sub(" ", text.casefold()).strip()


# A shorter text inside a longer one is the same memory only when little was added: "I like coffee"
# inside "I like coffee less and less now" says the opposite, and merging without an AI keeps the
# longer wording, so the shorter one's fact would be gone.
CONTAINED_MIN_RATIO = 0.8


def near_exact(texts: list[str]) -> bool:
    """The same words up to case and punctuation, or each text inside the longest and nearly as long."""
    normed = sorted({_norm(t) for t in texts}, key=len)
    longest = normed[-1]
    return all(t in longest and len(t) >= CONTAINED_MIN_RATIO * len(longest) for t in normed)


def propose(store: MemoryStore, llm, user_id: str, *, threshold: float, today: datetime,
            include_user_edited: bool = False) -> list[TidyProposal]:
    groups = consolidate.find_groups(store, user_id, threshold=threshold, include_user_edited=include_user_edited,
                                     min_size=MIN_DUPLICATES)
    out = []
    for group in groups:
        cleared = llm.admit("consolidation", memories=group)
        if len(cleared.keep_memories(group)) < len(group):
            continue  # a memory from a private entry is never merged with others (nor its sources lost)
        texts = [m.text for m in group]
        merged, why = None, ""
        if near_exact(texts):
            merged, why = max(texts, key=len), "same words"
        elif llm.configured and len(group) >= consolidate.MIN_GROUP:
            try:
                merged, why = consolidate.propose(llm, group, today), "similar"
            except LLMError as exc:
                log.info("tidy: no merged text for a group (%s)", exc)
        if merged:
            out.append(TidyProposal(user_id, tuple(TidyMember(m.id, m.text, m.updated_at.isoformat())
                                                   for m in group), merged, why))
    return out


def stale_reason(s: Session, p: TidyProposal) -> str | None:
    for member in p.members:
        row = s.get(Memory, member.id)
        if row is None or row.user_id != p.user_id or row.state != "active":
            return f"“{member.text}” was forgotten or merged since; nothing was merged"
        if row.text != member.text or row.updated_at.isoformat() != member.updated_at:
            return f"“{member.text}” was edited since; nothing was merged"
    return None


def apply(engine: Engine, store: MemoryStore, lock: AbstractContextManager, p: TidyProposal) -> TidyResult:
    change = Change()
    with lock, Session(engine) as s:
        refused = stale_reason(s, p)
        if refused:
            return TidyResult(None, Changes(), refused)
        group = [row for row in (s.get(Memory, m.id) for m in p.members) if row is not None]
        new = consolidate.apply_merge(store, s, change, group, p.merged_text, job_id=None)
        merged_id = new.id
        s.commit()
    store.apply_index(p.user_id, change)
    return TidyResult(merged_id, Changes.of(memories=[merged_id, *(m.id for m in p.members)]))
