"""The running summary S of Mem0, refreshed asynchronously every N memorised turns."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.jobs.queue import Prepared
from memoir_desktop.core.llm import Gate, prompts
from memoir_desktop.core.pipeline.memorize import latest_summary
from memoir_desktop.core.storage.models import Entry, Job, Summary


def refresh_summary(llm: Gate, previous: str, new: list[Entry], today: datetime) -> tuple[str, int]:
    """(the new summary, private entries the gate left out of it)."""
    cleared = llm.admit("summary", entries=new)
    new = cleared.keep_entries(new)
    if not new:
        return previous, cleared.left_out
    system = prompts.SUMMARY_SYSTEM.format(today=today.date().isoformat())
    user = prompts.SUMMARY_USER.format(
        summary=previous or "(none yet)",
        messages=prompts.format_messages(
            [{"role": e.role, "content": f"[{e.created_at:%Y-%m-%d}] {e.content}"} for e in new]
        ),
    )
    return llm.complete(cleared, [{"role": "system", "content": system},
                                  {"role": "user", "content": user}]), cleared.left_out


def prepare_summary(engine, llm: Gate, job: Job) -> Prepared:
    """The summary job: the entries read since the last summary (or, for a rebuild after an entry
    was deleted forever, the latest ones afresh) folded into a new one."""
    with Session(engine) as s:
        prev = None if job.payload.get("rebuild") else latest_summary(s, job.user_id)
        after = prev.upto_entry_id if prev and prev.upto_entry_id else 0
        q = select(Entry).where(col(Entry.user_id) == job.user_id, col(Entry.id) > after,
                                col(Entry.deleted_at).is_(None), col(Entry.kind) != "letter")
        rows = list(s.exec(q.order_by(col(Entry.id).desc()).limit(60)) if job.payload.get("rebuild")
                    else s.exec(q.order_by(col(Entry.id)).limit(60)))
        new = sorted(rows, key=lambda e: e.id or 0)
    if not new:
        return Prepared(lambda s: {"summary": prev.text if prev else ""})
    text, left_out = refresh_summary(llm, prev.text if prev else "", new, new[-1].created_at)

    def apply(s: Session) -> dict:
        s.add(Summary(user_id=job.user_id, text=text, upto_entry_id=new[-1].id))
        return {"summary": text, "changes": Changes.of(summary=True).to_dict(),
                **({"left_out": left_out} if left_out else {})}

    return Prepared(apply)


def summary_text(engine, user_id: str) -> str:
    with Session(engine) as s:
        row = latest_summary(s, user_id)
    return row.text if row else ""
