"""The durable write queue, and the one module that writes job rows and job state.

Jobs are SQLite rows, claimed in order and resumed after a crash. A job runs in two phases:
`prepare` does the slow part (LLM calls, embeddings) with no lock held and no database write;
`apply` stages its changes in one short transaction taken under the write lock, in which the
runner also marks the job done, so a job killed at any point either left no trace or is
complete, and runs again from the start if it left none.

Every insert, state change and delete of a job row is a function of this module; the others
call them inside their own transactions (an entry and its job are committed together, a purge
deletes the jobs that quote the entry in the purge's transaction).

Threading rule: one job runs at a time (the job lock: the app's BackgroundWriter, or the CLI /
tests calling `mem.jobs.process`). The write lock is held only for short transactions: a
job's apply phase and the user's own actions, which therefore never wait behind an LLM call.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import Session, col, select
from sqlmodel import delete as sql_delete

from memoir_desktop.core.llm.errors import LLMBadReply, LLMUnavailable
from memoir_desktop.core.storage.models import Entry, Job, Meta, now, pk

log = logging.getLogger(__name__)

STATES = ("waiting", "pending", "running", "done", "failed", "cancelled")
# A chat turn's job waits for the answer; if the answer never comes back (the call hung, the
# process died before adding it), the turn is memorised without it after this long.
WAITING_TIMEOUT = timedelta(minutes=10)
ENTRY_JOBS = ("memorize", "reconcile", "graph")  # jobs that read an entry; summary and consolidate read none
_OUTAGE = "llm_outage"  # Meta row: the LLM's current outage {kind, text, since}, while it lasts


@dataclass
class Prepared:
    """A job's slow work done, its changes ready to stage."""

    apply: Callable[[Session], dict]  # stages the changes in the runner's transaction; returns the result
    after_commit: Callable[[dict], None] | None = None  # derived indexes, caches (not part of the record)


Handler = Callable[[Job], Prepared]


# -- job rows inside a caller's transaction -------------------------------------------------


def enqueue(s: Session, kind: str, user_id: str, payload: dict, state: str = "pending") -> Job:
    job = Job(kind=kind, user_id=user_id, payload=payload, state=state)
    s.add(job)
    return job


def _names(j: Job, entry_id: int) -> bool:
    p = j.payload or {}
    return entry_id in p.get("entry_ids", []) or p.get("entry_id") == entry_id


def pending_read_of(s: Session, user_id: str, entry_id: int) -> Job | None:
    """A memorize or re-read job still waiting to read this entry (it reads the current text when it
    runs, so an edit before then needs no job of its own)."""
    for j in s.exec(select(Job).where(col(Job.user_id) == user_id, col(Job.state) == "pending",
                                      col(Job.kind).in_(("memorize", "reconcile")))):
        if _names(j, entry_id):
            return j
    return None


def cancel_reads_of(s: Session, user_id: str, entry_id: int, why: str) -> None:
    """Jobs still waiting to read only this entry have nothing left to do (a job already running
    stores nothing: pipeline/memorize.py checks again before it applies)."""
    for j in s.exec(select(Job).where(col(Job.user_id) == user_id, col(Job.state).in_(("pending", "waiting")),
                                      col(Job.kind).in_(ENTRY_JOBS))):
        p = j.payload or {}
        if p.get("entry_id") == entry_id or p.get("entry_ids") == [entry_id]:
            j.state, j.error, j.updated_at = "cancelled", why, now()
            s.add(j)


def naming(s: Session, user_id: str, entry_id: int) -> list[int]:
    """The jobs whose payload names this entry (any state)."""
    return [pk(j) for j in s.exec(select(Job).where(col(Job.user_id) == user_id)) if _names(j, entry_id)]


def delete(s: Session, job_ids: list[int]) -> None:
    """A job's payload, result and raw reply can quote an entry deleted forever: the rows go with it."""
    if job_ids:
        s.exec(sql_delete(Job).where(col(Job.id).in_(job_ids)))  # type: ignore[call-overload]


def queue_summary_rebuild(s: Session, user_id: str) -> None:
    """A summary written afresh from the entries there are (once, however many ask)."""
    queued = [j for j in s.exec(select(Job).where(col(Job.user_id) == user_id, col(Job.kind) == "summary",
                                                  col(Job.state) == "pending")) if (j.payload or {}).get("rebuild")]
    if not queued:
        enqueue(s, "summary", user_id, {"rebuild": True})


def queue_summary_every(s: Session, user_id: str, job_id: int, every: int) -> None:
    """A summary refresh after every `every` memorised turns (it runs as its own job)."""
    done = s.exec(select(Job.id).where(col(Job.user_id) == user_id, col(Job.kind) == "memorize",
                                       col(Job.state) == "done", col(Job.id) != job_id)).all()
    if (len(done) + 1) % max(1, every) == 0:
        enqueue(s, "summary", user_id, {})


def release_waiting(s: Session, job_id: int | None, reply_entry_id: int | None) -> None:
    """A chat turn's job waited for the answer: the reply (if any) joins its entries and it may run."""
    job = s.get(Job, job_id) if job_id is not None else None
    if job is None or job.state != "waiting":
        return
    if reply_entry_id is not None:
        job.payload = {**job.payload, "entry_ids": [*job.payload["entry_ids"], reply_entry_id]}
    job.state, job.updated_at = "pending", now()
    s.add(job)


class JobQueue:
    def __init__(self, engine):
        self.engine = engine

    def enqueue(self, s: Session, kind: str, user_id: str, payload: dict, state: str = "pending") -> Job:
        return enqueue(s, kind, user_id, payload, state)

    def add(self, kind: str, user_id: str, payload: dict) -> int:
        """A job of its own, in its own transaction (a consolidation the user asked for)."""
        with Session(self.engine) as s:
            job = enqueue(s, kind, user_id, payload)
            s.commit()
            return pk(job)

    def resume_interrupted(self) -> int:
        """Jobs left `running` (or `waiting` for an answer) by a crash go back to `pending`."""
        with Session(self.engine) as s:
            rows = s.exec(select(Job).where(col(Job.state).in_(("running", "waiting")))).all()
            for j in rows:
                j.state = "pending"
                j.updated_at = now()
                s.add(j)
            s.commit()
            return len(rows)

    def release_stale_waiting(self) -> None:
        cutoff = now() - WAITING_TIMEOUT
        with Session(self.engine) as s:
            rows = s.exec(select(Job).where(col(Job.state) == "waiting", col(Job.updated_at) < cutoff)).all()
            for j in rows:
                j.state, j.updated_at = "pending", now()
                s.add(j)
            s.commit()

    def next_pending(self, skip: set[int] | frozenset[int] = frozenset()) -> Job | None:
        """The next job to run: one never tried first (an entry just written is tried when it is
        written, even while an older one waits for a server that is down), then the ones that wait to be
        tried again, oldest first. Among either, the graph's readings come after the rest: an entry
        written while an older one's people and places wait has its memories first."""
        with Session(self.engine) as s:
            rows = s.exec(select(Job).where(col(Job.state) == "pending").order_by(
                col(Job.attempts) > 0, col(Job.kind) == "graph", col(Job.id))).all()
            return next((j for j in rows if j.id not in skip), None)

    # -- why jobs wait: the server's last outage, kept until it answers again -------------------

    def note_outage(self, kind: str, text: str) -> None:
        """The LLM could not be reached: every waiting job waits on this, since its first time."""
        with Session(self.engine) as s:
            row = s.get(Meta, _OUTAGE)
            since = json.loads(row.value)["since"] if row is not None else now().isoformat()
            value = json.dumps({"kind": kind, "text": text, "since": since})
            if row is None:
                s.add(Meta(key=_OUTAGE, value=value))
            else:
                row.value = value
                s.add(row)
            s.commit()

    def clear_outage(self) -> None:
        """The server answered (usably or not): jobs no longer wait on it."""
        with Session(self.engine) as s:
            row = s.get(Meta, _OUTAGE)
            if row is not None:
                s.delete(row)
                s.commit()

    def outage(self) -> dict | None:
        with Session(self.engine) as s:
            row = s.get(Meta, _OUTAGE)
            return json.loads(row.value) if row is not None else None

    def mark(self, job_id: int, state: str, *, error: str | None = None, kind: str | None = None,
             raw: str | None = None, bump_attempts: bool = False) -> None:
        with Session(self.engine) as s:
            job = _get(s, job_id)
            job.state = state
            job.error, job.error_kind = error, kind if error else None
            if raw is not None:
                job.raw_reply = raw[:20000]
            if bump_attempts:
                job.attempts += 1
            job.updated_at = now()
            s.add(job)
            s.commit()

    def list(self, state: str | None = None, user_id: str | None = None) -> list[Job]:
        with Session(self.engine) as s:
            q = select(Job)
            if state:
                q = q.where(col(Job.state) == state)
            if user_id:
                q = q.where(col(Job.user_id) == user_id)
            return list(s.exec(q.order_by(col(Job.id))))

    def dicts(self, state: str | None = None, user_id: str | None = None,
              entry_ids: list[int] | None = None) -> list[dict]:
        """Jobs in order; entry_ids keeps those whose payload names any of these entries."""
        rows = self.list(state, user_id)
        if entry_ids is not None:
            wanted = set(entry_ids)
            rows = [j for j in rows if wanted & {*(j.payload or {}).get("entry_ids", []),
                                                 (j.payload or {}).get("entry_id")}]
        return [job_dict(j) for j in rows]

    def count(self, state: str) -> int:
        return len(self.list(state))

    def count_for_the_journal(self, state: str) -> int:
        """Entries' jobs in `state` that still concern the journal (the status bar's "N entries waiting"):
        a memorize job whose entries are all in the trash has nothing to do until they come back, so "5
        waiting" for 3 entries does not show up; the summary and tidying jobs are no entry's."""
        reads = ("memorize", "graph")  # the kinds that name their entries in `entry_ids`
        with Session(self.engine) as s:
            jobs = list(s.exec(select(Job).where(col(Job.state) == state)))
            named = {i for j in jobs if j.kind in reads for i in (j.payload or {}).get("entry_ids", [])}
            live = set(s.exec(select(Entry.id).where(col(Entry.id).in_(named), col(Entry.deleted_at).is_(None)))) \
                if named else set()
        return sum(1 for j in jobs if j.kind in ENTRY_JOBS
                   and (j.kind not in reads or not (j.payload or {}).get("entry_ids")
                        or live & set(j.payload["entry_ids"])))

    def set_batch_state(self, batch: str, old: str, new: str) -> int:
        """Jobs of an import batch in state `old` move to `new` (cancel / resume), the graph's readings
        with the memories'; how many entries' memorize jobs moved."""
        with Session(self.engine) as s:
            rows = [j for j in s.exec(select(Job).where(col(Job.state) == old)) if (j.payload or {}).get("batch") == batch]
            for j in rows:
                j.state, j.updated_at = new, now()
                s.add(j)
            s.commit()
            return sum(1 for j in rows if j.kind == "memorize")

    def retry(self, job_id: int) -> bool:
        with Session(self.engine) as s:
            job = s.get(Job, job_id)
            if job is None or job.state != "failed":
                return False
            job.state, job.error, job.error_kind = "pending", None, None
            job.updated_at = now()
            s.add(job)
            s.commit()
            return True


class JobRunner:
    """Runs one job at a time through its kind's handler and is the only writer of job state."""

    def __init__(self, queue: JobQueue, write_lock: threading.Lock, handlers: dict[str, Handler],
                 *, around: Callable | None = None, describe_unavailable: Callable[[Exception], str] = str):
        self.queue = queue
        self.write_lock = write_lock
        self.handlers = handlers
        self._job_lock = threading.Lock()
        self._around = around  # a context-manager factory wrapped around each job (metrics, embedder mode)
        self._unavailable = describe_unavailable

    def run(self, job_id: int) -> dict:
        with self._job_lock:
            job = self._claim(job_id)
            jid = pk(job)
            if job.state != "running":
                return {"id": job.id, "kind": job.kind, "state": job.state, "result": job.result}
            try:
                handler = self.handlers.get(job.kind)
                if handler is None:
                    raise ValueError(f"unknown job kind {job.kind!r}")
                if self._around is not None:
                    with self._around(job):
                        prepared = handler(job)
                        result = self._commit(job, prepared)
                else:
                    prepared = handler(job)
                    result = self._commit(job, prepared)
            except LLMUnavailable as exc:
                message, why = self._unavailable(exc), exc.kind or "unavailable"
                self.queue.mark(jid, "pending", error=message, kind=why)
                if why != "not_configured":
                    self.queue.note_outage(why, message)
                return {"id": job.id, "kind": job.kind, "state": "pending", "error": message, "error_kind": why}
            except LLMBadReply as exc:
                self.queue.clear_outage()  # it answered
                why = exc.kind or "bad_reply"
                self.queue.mark(jid, "failed", error=str(exc), kind=why, raw=exc.raw)
                return {"id": job.id, "kind": job.kind, "state": "failed", "error": str(exc), "error_kind": why,
                        "payload": job.payload}
            except Exception as exc:  # a job must fail visibly, never take the app down
                # Exception texts can quote journal text (SQL parameters): class name only above DEBUG.
                log.error("job %s failed: %s", job.id, exc.__class__.__name__)
                log.debug("job %s failure detail", job.id, exc_info=True)
                self.queue.mark(jid, "failed", error=f"{exc.__class__.__name__}: {exc}", kind="error")
                return {"id": job.id, "kind": job.kind, "state": "failed", "error": str(exc), "error_kind": "error",
                        "payload": job.payload}  # what it was for: a screen finds its entry by it
            self.queue.clear_outage()
            return {"id": job.id, "kind": job.kind, "user_id": job.user_id, "state": "done", "result": result}

    def run_pending(self, limit: int | None = None) -> list[dict]:
        """Drain pending jobs in order. Stops early when the LLM is unreachable (the job stays
        pending). Returns one dict per job attempted: id, kind, state, result or error."""
        self.queue.release_stale_waiting()
        out: list[dict] = []
        tried: set[int] = set()
        while limit is None or len(out) < limit:
            job = self.queue.next_pending(skip=tried)
            if job is None:
                break
            tried.add(pk(job))
            res = self.run(pk(job))
            out.append(res)
            if res["state"] == "pending":
                break
        return out

    def _claim(self, job_id: int) -> Job:
        with self.write_lock, Session(self.queue.engine) as s:
            job = _get(s, job_id)
            if job.state == "pending":
                job.state, job.attempts, job.updated_at = "running", job.attempts + 1, now()
                s.add(job)
                s.commit()
                s.refresh(job)
            s.expunge(job)
            return job

    def _commit(self, job: Job, prepared: Prepared) -> dict:
        with self.write_lock, Session(self.queue.engine) as s:
            result = prepared.apply(s)
            row = _get(s, pk(job))
            row.state, row.result, row.error, row.updated_at = "done", result, None, now()
            s.add(row)
            s.commit()
        if prepared.after_commit is not None:
            try:
                prepared.after_commit(result)
            except Exception as exc:  # SQLite is committed; derived indexes are repaired at next open
                log.warning("job %s: index update after commit failed (%s); will reconcile", job.id,
                            exc.__class__.__name__)
        return result


def _get(s: Session, job_id: int) -> Job:
    job = s.get(Job, job_id)
    if job is None:
        raise LookupError(f"no job {job_id}")
    return job


def job_dict(j: Job) -> dict:
    return {
        "id": j.id, "kind": j.kind, "user_id": j.user_id, "state": j.state, "attempts": j.attempts,
        "error": j.error, "error_kind": j.error_kind, "raw_reply": j.raw_reply, "payload": j.payload,
        "result": j.result,
        "created_at": j.created_at.isoformat(), "updated_at": j.updated_at.isoformat(),
    }
