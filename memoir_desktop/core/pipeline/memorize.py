"""One memorize job: entries -> facts -> operations -> one transaction -> indexes.

With graph memory on, the job queues the graph's reading of the same entries (graph_job.py) in that
transaction: the memories are stored without waiting for the people and places.

`prepare_memorize` does every LLM call and embedding with no lock held and writes nothing to
SQLite; the `Prepared.apply` it returns stages the memory changes and their history in the
runner's transaction (jobs/queue.py), which also marks the job done. The memories a plan names are
read again inside that transaction: one the user forgot or edited while the LLM was thinking is
never overwritten (an edit makes the change a proposal; a forgotten one gets the fact added).
The vector index follows after the commit (see store.reconcile for repairs).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.config import Settings
from memoir_desktop.core.jobs import queue
from memoir_desktop.core.jobs.queue import Prepared
from memoir_desktop.core.llm import Clearance, Gate
from memoir_desktop.core.pipeline import cascade, graph_job
from memoir_desktop.core.pipeline.categories import blocked, categorize
from memoir_desktop.core.pipeline.extraction import Fact, extract_facts
from memoir_desktop.core.pipeline.graph import GraphMemory
from memoir_desktop.core.pipeline.update import Candidate, Op, plan_operations
from memoir_desktop.core.search.episodes import EpisodeIndex
from memoir_desktop.core.storage.models import Entry, Job, Memory, MemorySource, Proposal, Summary, now, pk
from memoir_desktop.core.storage.store import Change, MemoryStore, text_hash

log = logging.getLogger(__name__)


@dataclass
class WriteContext:
    engine: Engine
    store: MemoryStore
    llm: Gate  # every LLM request passes it (core/llm/gate.py)
    settings: Settings
    graph: GraphMemory | None = None  # when graph memory is enabled
    episodes: EpisodeIndex | None = None


def latest_summary(s: Session, user_id: str) -> Summary | None:
    return s.exec(select(Summary).where(col(Summary.user_id) == user_id).order_by(col(Summary.id).desc())).first()


def recent_entries(s: Session, user_id: str, before_id: int, m: int) -> list[Entry]:
    """The entries before `before_id`, oldest first, private ones included: the gate leaves those out
    (`recent_context`), so the caller is told how many. Letters are memoir's words, never context."""
    rows = s.exec(
        select(Entry).where(col(Entry.user_id) == user_id, col(Entry.id) < before_id, col(Entry.kind) != "letter",
                            col(Entry.deleted_at).is_(None))
        .order_by(col(Entry.id).desc()).limit(m)
    ).all()
    return list(reversed(rows))


def recent_context(gate: Gate, name: str, s: Session, user_id: str, before_id: int, m: int,
                   also: list | tuple = ()) -> tuple[Clearance, list[Entry]]:
    """The last `m` entries the gate lets `name` carry (with `also`, the rest of the request's
    entries, cleared together), and the clearance: its `left_out` counts the private entries of
    that stretch of the journal."""
    rows = recent_entries(s, user_id, before_id, 3 * m)
    c = gate.admit(name, entries=[*rows, *also])
    kept = c.keep_entries(rows)[-m:]
    first = pk(kept[0]) if kept else before_id
    c.private_entries = {i for i in c.private_entries if i >= first}  # only those the window skipped
    return c, kept


@dataclass
class _Plan:
    job: Job
    entry_id: int
    when: datetime
    facts: list[Fact]
    ops: list[Op]
    vectors: dict
    reads_graph: bool  # graph memory is on: a graph job follows (graph_job.py)
    metadata: dict
    reread: bool = False  # an edited or moved entry read again
    previous: list[str] = field(default_factory=list)  # the memories it had produced (re-read only)
    unsupported: list[str] = field(default_factory=list)  # of those, the ones no operation kept
    change: Change = field(default_factory=Change)  # filled by apply, read by after_commit
    not_remembered: list[dict] = field(default_factory=list)  # facts of a category the user switched off
    mood: str | None = None  # the user's mood in the exchange, when mood notes are on (Stats reads it)
    left_out: int = 0  # private entries of the context the gate kept from the LLM


def mark_read(s: Session, entry_ids) -> None:
    """The write path read these entries (sync carries it: another computer need not read them again)."""
    for e in s.exec(select(Entry).where(col(Entry.id).in_([i for i in entry_ids if i is not None]))):
        e.read_at = now()
        s.add(e)


def prepare_memorize(ctx: WriteContext, job: Job) -> Prepared:
    """A new exchange (or entry): its facts against the memories they resemble."""
    with Session(ctx.engine) as s:
        new = list(s.exec(select(Entry).where(col(Entry.id).in_(job.payload.get("entry_ids", [])),
                                              col(Entry.deleted_at).is_(None), col(Entry.kind) != "letter",
                                              col(Entry.private).is_(False))
                          .order_by(col(Entry.id))))
    if not new:  # its entries were trashed (or purged) before the job ran
        return Prepared(apply=lambda s: {"results": [], "facts": [], "changes": Changes().to_dict()})
    if all(e.read_at is not None for e in new):
        # Read on another computer while this job waited (its memories came by sync): not again.
        return Prepared(apply=lambda s: {"results": [], "facts": [], "changes": Changes().to_dict(),
                                         "skipped": "read on another computer"})
    _index_episodes(ctx, job, new)
    user_entry = next((pk(e) for e in new if e.role == "user"), pk(new[0]))
    return _prepare(ctx, job, new, user_entry, previous=[])


def prepare_entry_reread(ctx: WriteContext, job: Job) -> Prepared:
    """An edited or moved entry read again (pipeline/cascade.py): the memories it produced are
    shown with every fact, and those no operation keeps are no longer supported by it."""
    entry_id = int(job.payload["entry_id"])
    with Session(ctx.engine) as s:
        e = s.get(Entry, entry_id)
        previous = [m for m in cascade.memories_of(s, entry_id) if m.state == "active"] if e else []
        if e is not None:
            s.expunge(e)
    if e is None or e.deleted_at is not None or e.kind == "letter" or e.private:  # private: never to an LLM
        ids = [m.id for m in previous]
        return Prepared(apply=lambda s: _clear_flags(s, ids) or {"results": [], "facts": [],
                                                                  "changes": Changes.of(memories=ids).to_dict()})
    _index_episodes(ctx, job, [e])
    return _prepare(ctx, job, [e], entry_id, previous=previous)


def _prepare(ctx: WriteContext, job: Job, new: list[Entry], entry_id: int, previous: list[Memory]) -> Prepared:
    st = ctx.settings
    with Session(ctx.engine) as s:
        cleared, recent = recent_context(ctx.llm, "extraction", s, job.user_id, pk(new[0]), st.recent_messages,
                                         also=new)
        summ = latest_summary(s, job.user_id)
    new = cleared.keep_entries(new)
    if not new:  # made private while the job waited
        return Prepared(apply=lambda s: {"results": [], "facts": [], "changes": Changes().to_dict(),
                                         "skipped": "entry withdrawn"})
    when = new[-1].created_at
    moods: list[str] | None = [] if st.mood_tracking else None
    facts = extract_facts(ctx.llm, cleared, summary=summ.text if summ else "", recent=recent, new=new, today=when,
                          moods=moods)
    facts, not_remembered = _leave_out_switched_off(facts, blocked(st), when)
    ops: list[Op] = []
    vectors: dict = {}
    llm_facts: list[Fact] = []
    llm_cands: list[list[Candidate]] = []
    embedder = ctx.store.embedder  # one model for the whole plan, even if a switch lands meanwhile
    if facts:
        fact_vecs = embedder.embed_documents([f.text for f in facts])
        prev_vecs = embedder.embed_documents([m.text for m in previous]) if previous else None
        name = ctx.store.collection(job.user_id)
        for fact, vec in zip(facts, fact_vecs):
            vectors[fact.text] = vec
            dup = ctx.store.find_active_by_hash(job.user_id, text_hash(fact.text))
            if dup is not None:
                ops.append(Op("NOOP", -1, fact.text, dup.id, note="duplicate"))  # known: no LLM call needed
                continue
            hits = ctx.store.vectors.search(name, vec, st.similar_memories)
            rows = ctx.store.get_many([str(h[0]) for h in hits])
            # The collection is per user, but SQLite stays the judge of owner and state.
            cands = [Candidate(rows[str(h[0])], float(h[1])) for h in hits
                     if str(h[0]) in rows and rows[str(h[0])].user_id == job.user_id
                     and rows[str(h[0])].state == "active"]
            if previous and prev_vecs is not None:
                # A re-read entry's own memories are always shown, so the model can keep or refine them.
                shown = {c.memory.id for c in cands}
                sims = prev_vecs @ vec
                cands += [Candidate(m, float(sim)) for m, sim in zip(previous, sims) if m.id not in shown]
                cands.sort(key=lambda c: -c.similarity)
            llm_facts.append(fact)
            llm_cands.append(cands)
    if llm_facts:
        ops.extend(plan_operations(ctx.llm, llm_facts, llm_cands, when,
                                   noop_threshold=ctx.store.embedder.related_threshold))
    kept = {o.memory_id for o in ops if o.event in ("NOOP", "UPDATE") and o.memory_id}
    plan = _Plan(job, entry_id, when, facts, ops, vectors, ctx.graph is not None,
                 dict(job.payload.get("metadata") or {}), reread=bool(job.payload.get("entry_id")),
                 previous=[m.id for m in previous], unsupported=[m.id for m in previous if m.id not in kept],
                 not_remembered=not_remembered, mood=moods[0] if moods else None,
                 left_out=0)  # the recent stretch's private entries: the diarist's choice, not news
    plan.change.vectors_model = embedder.status.active

    def after(_result: dict) -> None:
        ctx.store.apply_index(job.user_id, plan.change)

    ids = [pk(e) for e in new]

    def apply(s: Session) -> dict:
        # The LLM read the entry before the user trashed it or made it private: what it found is not stored.
        rows = [s.get(Entry, i) for i in ids]
        if not any(r is not None and r.deleted_at is None and not r.private for r in rows):
            _clear_flags(s, plan.previous)
            return {"results": [], "facts": [], "changes": Changes.of(memories=plan.previous).to_dict(),
                    "skipped": "entry withdrawn"}
        return apply_operations(ctx, s, plan)

    return Prepared(apply=apply, after_commit=after)


def _leave_out_switched_off(facts: list[Fact], off: frozenset[str], when: datetime) -> tuple[list[Fact], list[dict]]:
    """Every fact gets a category (the LLM's, else the rules'); those of a kind the user asked memoir
    not to remember are left out before anything is stored or asked about them."""
    kept, left = [], []
    for f in facts:
        if f.category is None:
            f.category = categorize(f.text, about=f.about, recorded=when, recurrence=f.recurrence)
        if f.category in off:
            left.append({"memory": f.text, "category": f.category})
        else:
            kept.append(f)
    return kept, left


def _clear_flags(s: Session, memory_ids: list[str]) -> None:
    for mid in memory_ids:
        m = s.get(Memory, mid)
        if m is not None and m.flag:
            m.flag = None
            s.add(m)


def _index_episodes(ctx: WriteContext, job: Job, rows: list[Entry]) -> None:
    """Index the job's entries for episodic search first: it needs no LLM."""
    if ctx.episodes is None:
        return
    try:
        ctx.episodes.index(job.user_id, rows)
    except Exception as exc:  # the episodic index is derived; reconcile repairs it
        log.warning("episodic indexing failed for job %s: %s", job.id, exc.__class__.__name__)


# Long on purpose: the LLM's operations applied in one transaction, each checked against the same
# per-turn limits and held list (Mem0's Algorithm 1, the update step).
def apply_operations(ctx: WriteContext, s: Session, plan: _Plan) -> dict:
    st, job = ctx.settings, plan.job
    results: list[dict] = []
    held: list[dict] = []
    change = plan.change
    changes = 0  # UPDATEs and DELETEs of this turn, against the per-turn limit
    seen_hashes: dict[str, str] = {}

    def add(text: str, shaped: Fact | None, note: str = "") -> None:
        h = text_hash(text)
        dup = seen_hashes.get(h) or _active_hash(s, job.user_id, h)
        if dup:
            results.append({"id": dup, "memory": text, "event": "NOOP", "note": "duplicate"})
            return
        m = ctx.store.stage_add(
            s, change, user_id=job.user_id, text=text, actor="llm", created_at=plan.when,
            entry_id=plan.entry_id, job_id=job.id, about=shaped.about if shaped else None,
            vector=plan.vectors.get(text), meta=plan.metadata, note=note or None,
            recurrence=shaped.recurrence if shaped else None, category=shaped.category if shaped else None,
        )
        seen_hashes[h] = m.id
        results.append({"id": m.id, "memory": m.text, "event": "ADD", **({"note": note} if note else {})})

    for op in plan.ops:
        if op.event == "NOOP":
            if op.memory_id and s.get(Memory, op.memory_id) is not None:
                ctx.store.stage_source(s, op.memory_id, plan.entry_id, plan.when)  # this entry says it too
            results.append({"id": op.memory_id, "memory": op.text, "event": "NOOP", "note": op.note})
            continue
        if op.event == "ADD":
            add(op.text, op.shaped, op.note)
            continue
        m = s.get(Memory, op.memory_id)
        if m is None or m.user_id != job.user_id or m.state != "active":
            if op.event == "UPDATE":  # forgotten meanwhile: the new fact still counts
                add(op.text, op.shaped, "the memory it refined is no longer active: fact kept")
            continue
        over_limit = changes >= st.max_llm_invalidations_per_turn
        if m.user_edited or over_limit:
            reason = "user-edited memory" if m.user_edited else "over the per-turn change limit"
            s.add(Proposal(user_id=job.user_id, memory_id=m.id, event=op.event,
                           new_text=op.text if op.event == "UPDATE" else None, reason=reason, job_id=job.id))
            held.append({"id": m.id, "memory": m.text, "event": op.event, "proposed": op.text, "reason": reason})
            continue
        if op.event == "UPDATE":
            if text_hash(op.text) == m.hash:
                results.append({"id": m.id, "memory": m.text, "event": "NOOP", "note": "unchanged"})
                continue
            changes += 1
            shaped = op.shaped
            old = ctx.store.stage_update(s, change, m, op.text, actor="llm", entry_id=plan.entry_id, job_id=job.id,
                                         about=shaped.about if shaped else None, when=plan.when,
                                         recurrence=shaped.recurrence if shaped else None,
                                         category=shaped.category if shaped else None)
            if plan.metadata:
                m.meta = {**(m.meta or {}), **plan.metadata}
                s.add(m)
            results.append({"id": m.id, "memory": op.text, "event": "UPDATE", "previous_memory": old})
        else:
            changes += 1
            ctx.store.stage_state(s, change, m, "invalid", actor="llm", entry_id=plan.entry_id, job_id=job.id,
                                  note=op.note or None, when=plan.when)
            results.append({"id": m.id, "memory": m.text, "event": "DELETE"})
    if plan.reread:
        _drop_unsupported(ctx, s, plan, results, held)
        _clear_flags(s, plan.previous)
    entry_ids = job.payload.get("entry_ids") or [plan.entry_id]
    if plan.reads_graph:  # the people and places follow in a job of their own
        graph_job.queue_reading(s, job.user_id, entry_ids=entry_ids, entry_id=plan.entry_id, reread=plan.reread,
                                after=job.id, batch=job.payload.get("batch"))
    touched = [r["id"] for r in results if r["event"] in ("ADD", "UPDATE", "DELETE")] + plan.previous
    mark_read(s, [*job.payload.get("entry_ids", []), plan.entry_id])
    result = {"results": results, "facts": [f.text for f in plan.facts], "pending_confirmation": held,
              "not_remembered": plan.not_remembered, **({"mood": plan.mood} if plan.mood else {}),
              **({"left_out": plan.left_out} if plan.left_out else {}),
              **({"graph_pending": True} if plan.reads_graph else {}),
              "changes": Changes.of(memories=touched, entries=job.payload.get("entry_ids", []),
                                    proposals=bool(held)).to_dict()}
    _maybe_queue_summary(s, ctx, job)
    return result


def _drop_unsupported(ctx: WriteContext, s: Session, plan: _Plan, results: list[dict], held: list[dict]) -> None:
    """The re-read entry no longer says these: a memory other live entries support only loses this
    source; one that only this entry supported is invalidated ("source edited"), or, when the user
    wrote or edited it, proposed for invalidation."""
    for mid in plan.unsupported:
        m = s.get(Memory, mid)
        if m is None or m.state != "active":
            continue
        if cascade.live_sources(s, mid, besides=plan.entry_id):
            row = s.get(MemorySource, (mid, plan.entry_id))
            if row is not None:
                s.delete(row)
            continue
        if m.user_edited:
            s.add(Proposal(user_id=m.user_id, memory_id=mid, event="DELETE", reason=cascade.SOURCE_EDITED,
                           job_id=plan.job.id))
            held.append({"id": mid, "memory": m.text, "event": "DELETE", "proposed": None,
                         "reason": cascade.SOURCE_EDITED})
            continue
        ctx.store.stage_state(s, plan.change, m, "invalid", actor="system", entry_id=plan.entry_id,
                              job_id=plan.job.id, note=cascade.SOURCE_EDITED, reason=cascade.SOURCE_EDITED)
        results.append({"id": mid, "memory": m.text, "event": "DELETE", "note": cascade.SOURCE_EDITED})


def _active_hash(s: Session, user_id: str, h: str) -> str | None:
    return s.exec(select(Memory.id).where(Memory.user_id == user_id, Memory.hash == h,
                                          Memory.state == "active")).first()


def _maybe_queue_summary(s: Session, ctx: WriteContext, job: Job) -> None:
    """Queue a summary refresh every N memorised turns (it runs as its own job)."""
    queue.queue_summary_every(s, job.user_id, pk(job), int(ctx.settings.summary_interval))
