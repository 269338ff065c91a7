"""The graph's reading of an entry, a job of its own that follows the memories' (Mem0^g's write path).

An entry's memories are what a diarist waits for; its people, places and their relations follow.
With a small local model the graph's two or three calls took as long as the facts and operations
together, so the memorize job (memorize.py) stores the memories and queues this job, which runs
after every entry already waiting has its memories (jobs run oldest first).

The payload names the entries to read (`entry_ids`), the entry the relations cite (`entry_id`),
whether it is a re-read of an edited entry (`reread`: relations its text no longer states are
invalidated) and the memorize job it follows (`after`: the day page shows both under one entry).
The entries are read as they are when the job runs: trashed or private ones are not read at all.
"""

from __future__ import annotations

import logging

from sqlmodel import Session, col, select

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.jobs import queue
from memoir_desktop.core.jobs.queue import Prepared
from memoir_desktop.core.llm import LLMBadReply
from memoir_desktop.core.storage.models import Entry, Job, now, pk

log = logging.getLogger(__name__)

KIND = "graph"


def queue_reading(s: Session, user_id: str, *, entry_ids: list[int], entry_id: int, reread: bool,
                  after: int | None, batch: str | None = None) -> None:
    """Queued in the memorize (or re-read) job's own transaction: the two commit together. `batch`: an
    import's, so that stopping the import stops its graph readings too."""
    queue.enqueue(s, KIND, user_id, {"entry_ids": list(entry_ids), "entry_id": entry_id, "reread": reread,
                                     "after": after, **({"batch": batch} if batch else {})})


def follower(engine, job_id: int) -> int | None:
    """The graph job a memorize job queued, while it waits to run."""
    with Session(engine) as s:
        for j in s.exec(select(Job).where(col(Job.kind) == KIND, col(Job.state) == "pending", col(Job.id) > job_id)):
            if (j.payload or {}).get("after") == job_id:
                return pk(j)
    return None


def prepare_graph(ctx, job: Job) -> Prepared:
    """`ctx`: the write context (memorize.WriteContext); its `graph` is None when graph memory was
    switched off while the job waited, and then nothing is read."""
    p = job.payload or {}
    entry_id, after = int(p["entry_id"]), p.get("after")
    ids = [int(i) for i in p.get("entry_ids") or [entry_id]]
    with Session(ctx.engine) as s:
        rows = list(s.exec(select(Entry).where(col(Entry.id).in_(ids), col(Entry.deleted_at).is_(None),
                                               col(Entry.kind) != "letter", col(Entry.private).is_(False))
                           .order_by(col(Entry.id))))
        for r in rows:
            s.expunge(r)
    if ctx.graph is None or not rows:
        return Prepared(apply=lambda s: _result([], after, ids, skipped="nothing to read"))
    # The user's own words: the assistant's suggestions are not facts about the user.
    texts = [e.content for e in rows if e.role == "user"] or [e.content for e in rows]
    when = rows[-1].created_at
    try:
        plan, error = ctx.graph.plan(ctx.llm, job.user_id, texts, when), None
    except LLMBadReply as exc:
        # The memories are stored already; an unreadable graph reply is reported, not retried forever.
        log.warning("graph extraction failed for job %s: %s", job.id, exc)
        plan, error = None, str(exc)
    graph = ctx.graph

    def apply(s: Session) -> dict:
        live = [e for e in (s.get(Entry, i) for i in ids) if e is not None and e.deleted_at is None and not e.private]
        if not live:  # trashed or made private while the model read it: nothing it found is kept
            return _result([], after, ids, skipped="entry withdrawn")
        before = graph.store.edges_from_entry(s, job.user_id, entry_id) if p.get("reread") else []
        ops = graph.apply(s, plan, entry_id=entry_id, job_id=pk(job)) if plan is not None else []
        if before and error is None:  # an unreadable reply says nothing about what the text no longer states
            ops += graph.drop_unstated(s, job.user_id, before, plan, when=now())
        return _result(ops, after, ids, error=error)

    return Prepared(apply=apply, after_commit=lambda _r: graph.after_commit(job.user_id))


def _result(ops: list[dict], after, entry_ids: list[int], *, error: str | None = None,
            skipped: str | None = None) -> dict:
    out = {"relations": ops, "after_job": after, "entry_ids": entry_ids,
           "changes": Changes.of(graph=bool(ops)).to_dict()}
    if error:
        out["graph_error"] = error
    if skipped:
        out["skipped"] = skipped
    return out
