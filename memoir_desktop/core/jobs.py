"""The durable write queue: SQLite rows, claimed in order, resumed after a crash.

Threading rule: exactly one writer drains the queue (the app's BackgroundWriter, or the CLI
/ tests calling `Memoir.process_jobs`), so two updates never race on one memory.
A job's memory changes and its `done` mark are committed in one transaction, so a job
killed half-way simply runs again from the start.
"""

from __future__ import annotations

from sqlmodel import Session, select

from memoir_desktop.core.models import Job, now

STATES = ("pending", "running", "done", "failed")


class JobQueue:
    def __init__(self, engine):
        self.engine = engine

    def enqueue(self, s: Session, kind: str, user_id: str, payload: dict) -> Job:
        job = Job(kind=kind, user_id=user_id, payload=payload)
        s.add(job)
        return job

    def resume_interrupted(self) -> int:
        """Jobs left `running` by a crash go back to `pending`. Returns how many."""
        with Session(self.engine) as s:
            rows = s.exec(select(Job).where(Job.state == "running")).all()
            for j in rows:
                j.state = "pending"
                j.updated_at = now()
                s.add(j)
            s.commit()
            return len(rows)

    def next_pending(self, after_id: int = 0) -> Job | None:
        with Session(self.engine) as s:
            return s.exec(
                select(Job).where(Job.state == "pending", Job.id > after_id).order_by(Job.id)
            ).first()

    def mark(self, job_id: int, state: str, *, error: str | None = None, raw: str | None = None,
             bump_attempts: bool = False) -> None:
        with Session(self.engine) as s:
            job = s.get(Job, job_id)
            job.state = state
            job.error = error
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
                q = q.where(Job.state == state)
            if user_id:
                q = q.where(Job.user_id == user_id)
            return list(s.exec(q.order_by(Job.id)))

    def count(self, state: str) -> int:
        return len(self.list(state))

    def retry(self, job_id: int) -> bool:
        with Session(self.engine) as s:
            job = s.get(Job, job_id)
            if job is None or job.state != "failed":
                return False
            job.state, job.error = "pending", None
            job.updated_at = now()
            s.add(job)
            s.commit()
            return True


def job_dict(j: Job) -> dict:
    return {
        "id": j.id, "kind": j.kind, "user_id": j.user_id, "state": j.state, "attempts": j.attempts,
        "error": j.error, "raw_reply": j.raw_reply, "payload": j.payload, "result": j.result,
        "created_at": j.created_at.isoformat(), "updated_at": j.updated_at.isoformat(),
    }
