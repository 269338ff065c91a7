"""Consolidation: merge a group of related memories (same topic, >= 3) into one.

Runs as a background job. A group is merged only when the merged text is shorter (in
tokens) than the originals together and keeps every number and date they carry; the LLM
also has to confirm it lost no fact. The originals are invalidated with history notes
pointing at the merged memory, so `undo` restores them exactly. Memories the user typed
or edited are left out unless the caller says the user agreed.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime

import numpy as np
from sqlmodel import Session

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.inputs import NotFound
from memoir_desktop.core.jobs.queue import Prepared
from memoir_desktop.core.llm import prompts
from memoir_desktop.core.llm.tokens import count_tokens
from memoir_desktop.core.storage.models import Job, Memory, now
from memoir_desktop.core.storage.store import Change, MemoryStore, memory_dict

log = logging.getLogger(__name__)

MIN_GROUP, MAX_GROUP = 3, 8
_NUMBERS = re.compile(r"\d+")


def find_groups(store: MemoryStore, user_id: str, *, threshold: float, include_user_edited: bool = False,
                min_size: int = MIN_GROUP) -> list[list[Memory]]:
    """Connected groups of memories whose pairwise neighbour similarity >= threshold."""
    rows = [m for m in store.all(user_id) if m.memory_type == "semantic"
            and (include_user_edited or not m.user_edited) and not (m.meta or {}).get("consolidated_from")]
    if len(rows) < min_size:
        return []
    vecs = store.embed_texts([m.text for m in rows])
    sims = vecs @ vecs.T
    np.fill_diagonal(sims, -1.0)
    import networkx as nx  # here: a fifth of a second to import, and only tidying asks for it

    linked = nx.Graph()
    linked.add_nodes_from(range(len(rows)))
    linked.add_edges_from((int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(sims >= threshold))))
    out = []
    for component in sorted(nx.connected_components(linked), key=min):  # in the order the memories came
        idx = sorted(component)
        if len(idx) >= min_size:
            # Keep the most mutually similar members when a topic is larger than one merge.
            idx = sorted(idx, key=lambda i: -float(np.mean(sims[i, idx])))[:MAX_GROUP]
            out.append(sorted((rows[i] for i in idx), key=lambda m: m.created_at))
    return out


def keeps_all_numbers(originals: list[str], merged: str) -> bool:
    have = set(_NUMBERS.findall(merged))
    return all(n in have for text in originals for n in _NUMBERS.findall(text))


def propose(llm, group: list[Memory], today: datetime) -> str | None:
    """The merged text, or None when the LLM or our checks say the merge would lose something."""
    cleared = llm.admit("consolidation", memories=group)
    if len(cleared.keep_memories(group)) < len(group):
        return None  # a private member would be sent (or merged away unseen): the group stays as it is
    listing = "\n".join(f"[{i}] ({m.created_at.date().isoformat()}) {m.text}" for i, m in enumerate(group))
    args = llm.call_tool(cleared, [
        {"role": "system", "content": prompts.CONSOLIDATE_SYSTEM.format(today=today.date().isoformat())},
        {"role": "user", "content": listing}], prompts.CONSOLIDATE_TOOL)
    merged = (args.text or "").strip()
    if not args.merge or not merged:
        return None
    originals = [m.text for m in group]
    if count_tokens(merged) >= sum(count_tokens(t) for t in originals):
        log.info("consolidation skipped: merged text is not shorter")
        return None
    if not keeps_all_numbers(originals, merged):
        log.info("consolidation skipped: merged text drops a number or date")
        return None
    return merged


def apply_merge(store: MemoryStore, s: Session, change: Change, group: list[Memory], merged: str, *,
                job_id: int | None) -> Memory:
    when = now()
    new = store.stage_add(
        s, change, user_id=group[0].user_id, text=merged, actor="system", created_at=when, job_id=job_id,
        meta={"consolidated_from": [m.id for m in group]},
        about=_span(group),
    )
    for m in group:
        row = s.get(Memory, m.id)
        if row is not None:
            store.stage_state(s, change, row, "invalid", actor="system", job_id=job_id,
                              note=f"consolidated into {new.id}", when=when)
    return new


def undo(store: MemoryStore, s: Session, change: Change, merged_id: str) -> list[str]:
    """Invalidate the merged memory and restore the originals it replaced."""
    merged = s.get(Memory, merged_id)
    originals = (merged.meta or {}).get("consolidated_from") if merged else None
    if not originals or merged is None:
        raise ValueError(f"{merged_id} is not a consolidated memory")
    if merged.state == "active":
        store.stage_state(s, change, merged, "invalid", actor="user", note="consolidation undone")
    restored = []
    for mid in originals:
        m = s.get(Memory, mid)
        if m is not None and m.state == "invalid":
            store.stage_state(s, change, m, "active", actor="user", note=f"consolidation {merged_id} undone")
            restored.append(mid)
    return restored


def _span(group: list[Memory]):
    starts = [m.about_start for m in group if m.about_start]
    ends = [m.about_end for m in group if m.about_end]
    return (min(starts), max(ends)) if starts and ends else None


def result_dict(new: Memory, group: list[Memory]) -> dict:
    return {"merged": memory_dict(new), "originals": [m.id for m in group]}


def prepare(store: MemoryStore, llm, job: Job, threshold: float) -> Prepared:
    """The consolidation job: every group found, merged where the LLM's text keeps every fact."""
    groups = find_groups(store, job.user_id, threshold=threshold,
                         include_user_edited=job.payload.get("include_user_edited", False))
    plans = [(g, propose(llm, g, now())) for g in groups]
    change = Change()

    def apply(s: Session) -> dict:
        merged = []
        for group, text in plans:
            if text:
                new = apply_merge(store, s, change, group, text, job_id=job.id)
                merged.append(result_dict(new, group))
        ids = [x["merged"]["id"] for x in merged] + [o for x in merged for o in x["originals"]]
        return {"groups": len(groups), "merged": merged, "changes": Changes.of(memories=ids).to_dict()}

    return Prepared(apply, after_commit=lambda _r: store.apply_index(job.user_id, change))


def undo_merge(engine, store: MemoryStore, write_lock, merged_id: str) -> list[str]:
    """The user's Undo of a merge, in its own transaction: the originals come back."""
    change = Change()
    with write_lock, Session(engine) as s:
        m = s.get(Memory, merged_id)
        if m is None:
            raise NotFound(merged_id)
        user_id = m.user_id
        restored = undo(store, s, change, merged_id)
        s.commit()
    store.apply_index(user_id, change)
    return restored
