"""One memorize job: entries -> facts -> operations -> one transaction -> indexes.

All LLM work happens before the transaction; the memory changes, their history and the
job's `done` mark are committed together, so a job killed at any point either left no
trace or is complete. The vector index follows after the commit (see store.reconcile).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlmodel import Session, select

from memoir_desktop.core.llm import LLMBadReply
from memoir_desktop.core.models import Entry, Job, Memory, Proposal, Summary, now
from memoir_desktop.core.pipeline.extraction import extract_facts, fact_span
from memoir_desktop.core.pipeline.update import Op, plan_operations
from memoir_desktop.core.store import Change, MemoryStore, memory_dict, text_hash

log = logging.getLogger(__name__)


@dataclass
class WriteContext:
    engine: object
    store: MemoryStore
    llm: object
    settings: object
    graph: object | None = None  # GraphMemory, when graph memory is enabled


def latest_summary(s: Session, user_id: str) -> Summary | None:
    return s.exec(select(Summary).where(Summary.user_id == user_id).order_by(Summary.id.desc())).first()


def recent_entries(s: Session, user_id: str, before_id: int, m: int) -> list[Entry]:
    rows = s.exec(
        select(Entry).where(Entry.user_id == user_id, Entry.id < before_id).order_by(Entry.id.desc()).limit(m)
    ).all()
    return list(reversed(rows))


def run_memorize(ctx: WriteContext, job: Job) -> dict:
    st = ctx.settings
    with Session(ctx.engine) as s:
        new = list(s.exec(select(Entry).where(Entry.id.in_(job.payload["entry_ids"])).order_by(Entry.id)))
        if not new:
            return {"results": [], "facts": []}
        recent = recent_entries(s, job.user_id, new[0].id, st.recent_messages)
        summ = latest_summary(s, job.user_id)
    when = new[-1].created_at
    user_entry = next((e.id for e in new if e.role == "user"), new[0].id)
    facts = extract_facts(ctx.llm, summary=summ.text if summ else "", recent=recent, new=new, today=when)
    ops: list[Op] = []
    vectors = {}
    llm_facts, llm_cands = [], []
    if facts:
        fact_vecs = ctx.store.embed_texts(facts)
        name = ctx.store.collection(job.user_id)
        for fact, vec in zip(facts, fact_vecs):
            vectors[fact] = vec
            dup = ctx.store.find_active_by_hash(job.user_id, text_hash(fact))
            if dup is not None:
                # An exact duplicate needs no LLM call.
                ops.append(Op("NOOP", -1, fact, dup.id, note="duplicate"))
                continue
            hits = ctx.store.vectors.search(name, vec, st.similar_memories)
            rows = ctx.store.get_many([h[0] for h in hits])
            # The collection is per user, but SQLite stays the judge of owner and state.
            cands = [rows[h[0]] for h in hits
                     if h[0] in rows and rows[h[0]].user_id == job.user_id and rows[h[0]].state == "active"]
            llm_facts.append(fact)
            llm_cands.append(cands)
    if llm_facts:
        ops.extend(plan_operations(ctx.llm, llm_facts, llm_cands, when))
    graph_plan, graph_error = _plan_graph(ctx, job, new, when)
    return apply_operations(ctx, job, ops, user_entry, when, vectors, facts, graph_plan, graph_error)


def _plan_graph(ctx: WriteContext, job: Job, new: list[Entry], when):
    if ctx.graph is None:
        return None, None
    # The user's own words: the assistant's suggestions are not facts about the user.
    texts = [e.content for e in new if e.role == "user"] or [e.content for e in new]
    try:
        return ctx.graph.plan(ctx.llm, job.user_id, texts, when), None
    except LLMBadReply as exc:
        # The facts must not be lost to a bad graph reply: keep them, report the graph part.
        log.warning("graph extraction failed for job %s: %s", job.id, exc)
        return None, str(exc)


def apply_operations(ctx: WriteContext, job: Job, ops: list[Op], entry_id: int, when, vectors: dict,
                     facts: list[str], graph_plan=None, graph_error: str | None = None) -> dict:
    st = ctx.settings
    results: list[dict] = []
    held: list[dict] = []
    change = Change()
    deletes = 0
    with Session(ctx.engine) as s:
        seen_hashes: dict[str, str] = {}
        for op in ops:
            if op.event == "NOOP":
                results.append({"id": op.memory_id, "memory": op.text, "event": "NOOP", "note": op.note})
                continue
            if op.event == "ADD":
                h = text_hash(op.text)
                dup = seen_hashes.get(h) or _active_hash(s, job.user_id, h)
                if dup:
                    results.append({"id": dup, "memory": op.text, "event": "NOOP", "note": "duplicate"})
                    continue
                m = ctx.store.stage_add(
                    s, change, user_id=job.user_id, text=op.text, actor="llm", created_at=when,
                    entry_id=entry_id, job_id=job.id, about=fact_span(op.text, when),
                    vector=vectors.get(op.text),
                )
                seen_hashes[h] = m.id
                results.append({"id": m.id, "memory": m.text, "event": "ADD"})
                continue
            m = s.get(Memory, op.memory_id)
            if m is None or m.user_id != job.user_id or m.state != "active":
                results.append({"id": None, "memory": op.text, "event": "NOOP", "note": "target not active"})
                continue
            over_limit = op.event == "DELETE" and deletes >= st.max_llm_invalidations_per_turn
            if m.user_edited or over_limit:
                reason = "user-edited memory" if m.user_edited else "over the per-turn invalidation limit"
                p = Proposal(user_id=job.user_id, memory_id=m.id, event=op.event,
                             new_text=op.text if op.event == "UPDATE" else None, reason=reason, job_id=job.id)
                s.add(p)
                held.append({"id": m.id, "memory": m.text, "event": op.event, "proposed": op.text,
                             "reason": reason})
                continue
            if op.event == "UPDATE":
                if text_hash(op.text) == m.hash:
                    results.append({"id": m.id, "memory": m.text, "event": "NOOP", "note": "unchanged"})
                    continue
                old = ctx.store.stage_update(s, change, m, op.text, actor="llm", entry_id=entry_id,
                                             job_id=job.id, about=fact_span(op.text, when), when=when)
                results.append({"id": m.id, "memory": op.text, "event": "UPDATE", "previous_memory": old})
            else:
                deletes += 1
                ctx.store.stage_state(s, change, m, "invalid", actor="llm", entry_id=entry_id, job_id=job.id,
                                      note=op.note or None, when=when)
                results.append({"id": m.id, "memory": m.text, "event": "DELETE"})
        graph_ops = ctx.graph.apply(s, graph_plan, entry_id=entry_id, job_id=job.id) if graph_plan else []
        result = {"results": results, "facts": facts, "pending_confirmation": held, "relations": graph_ops}
        if graph_error:
            result["graph_error"] = graph_error
        row = s.get(Job, job.id)
        row.state, row.result, row.error, row.updated_at = "done", result, None, now()
        s.add(row)
        _maybe_queue_summary(s, ctx, job)
        s.commit()
    if graph_plan is not None:
        ctx.graph.after_commit(job.user_id)
    try:
        ctx.store.apply_index(job.user_id, change)
    except Exception as exc:  # SQLite is committed; the index is repaired at next open
        log.warning("vector index update failed after commit (%s); will reconcile", exc.__class__.__name__)
    return result


def _active_hash(s: Session, user_id: str, h: str) -> str | None:
    row = s.exec(select(Memory.id).where(Memory.user_id == user_id, Memory.hash == h,
                                         Memory.state == "active")).first()
    return row


def _maybe_queue_summary(s: Session, ctx: WriteContext, job: Job) -> None:
    """Queue a summary refresh every N memorised turns (it runs as its own job)."""
    every = max(1, int(ctx.settings.summary_interval))
    done = s.exec(select(Job.id).where(Job.user_id == job.user_id, Job.kind == "memorize",
                                       Job.state == "done", Job.id != job.id)).all()
    if (len(done) + 1) % every == 0:
        s.add(Job(kind="summary", user_id=job.user_id, payload={}))


def memory_results(rows: list[Memory]) -> list[dict]:
    return [memory_dict(m) for m in rows]
