"""What the chat view shows for one day: entries grouped into exchanges, each with its jobs.

Pure Python (no Qt), built on a reads-pool thread. An exchange is the run of consecutive
entries that one memorize job covers (a chat turn: the user's message and the reply), so
the memory-operation log can be drawn right under the exchange that caused it. A reply
journaled on its own (imports, demo content) has a job of its own; it joins the exchange
before it, and the exchange's log then sums up both jobs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

_STATE_ORDER = {"failed": 0, "pending": 1, "running": 1, "waiting": 1, "done": 2}


@dataclass
class Exchange:
    entries: list[dict] = field(default_factory=list)
    jobs: list[dict] = field(default_factory=list)  # {id, state, result, error} per job

    @property
    def job(self) -> dict | None:
        """All the exchange's jobs as one: the least finished state, the operations of all."""
        if not self.jobs:
            return None
        if len(self.jobs) == 1:
            return self.jobs[0]
        worst = min(self.jobs, key=lambda j: _STATE_ORDER.get(j["state"], 1))
        results, held, relations = [], [], []
        for j in self.jobs:
            results += (j.get("result") or {}).get("results") or []
            held += (j.get("result") or {}).get("pending_confirmation") or []
            relations += (j.get("result") or {}).get("relations") or []
        return {"id": self.jobs[0]["id"], "ids": [j["id"] for j in self.jobs], "state": worst["state"],
                "error": worst.get("error"), "error_kind": worst.get("error_kind"), "reason": worst.get("reason"),
                "result": {"results": results, "pending_confirmation": held, "relations": relations,
                           "graph_pending": any((j.get("result") or {}).get("graph_pending") for j in self.jobs)}}


@dataclass
class DayView:
    day: date
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not any(x.entries for x in self.exchanges)

    @property
    def latest(self) -> datetime | None:
        """When the day's last entry was written (a new entry on a past day goes after it)."""
        times = [e["created_at"] if isinstance(e["created_at"], datetime) else datetime.fromisoformat(e["created_at"])
                 for x in self.exchanges for e in x.entries if e.get("created_at")]
        return max(times) if times else None


def build_day_view(day: date, entries: list[dict], jobs: list[dict]) -> DayView:
    job_of_entry: dict[int, dict] = {}
    # The graph's reading follows an entry's memories in a job of its own: its relations are shown with them.
    relations = {(j.get("payload") or {}).get("after"): (j.get("result") or {}).get("relations") or []
                 for j in jobs if j.get("kind") == "graph" and j.get("state") == "done"}
    reading = {(j.get("payload") or {}).get("after") for j in jobs
               if j.get("kind") == "graph" and j.get("state") in ("pending", "running")}
    for job in jobs:
        # A cancelled job (its entry made private, an import's building stopped) will not run: no
        # "waiting for the AI" note under its entry.
        if job.get("kind") != "memorize" or job.get("state") == "cancelled":
            continue
        for entry_id in (job.get("payload") or {}).get("entry_ids", []):
            job_of_entry[entry_id] = job
    view = DayView(day)
    current: Exchange | None = None
    current_job_id = None
    for entry in entries:
        job = job_of_entry.get(entry["id"])
        job_id = job["id"] if job else None
        joins_reply = (entry["role"] == "assistant" and current is not None
                       and all(e["role"] == "user" for e in current.entries))
        if current is None or job_id is None or job_id != current_job_id and not joins_reply:
            current = Exchange()
            view.exchanges.append(current)
        if job is not None and all(j["id"] != job_id for j in current.jobs):
            current.jobs.append(_job_brief(job, relations.get(job_id), reading=job_id in reading))
        current_job_id = job_id
        current.entries.append(entry)
    return view


def _job_brief(job: dict, relations: list[dict] | None = None, *, reading: bool = False) -> dict:
    """`relations`: the graph job's that followed; `reading`: that job still waits or runs."""
    result = {**(job.get("result") or {}), "graph_pending": reading}
    if relations:
        result["relations"] = [*(result.get("relations") or []), *relations]
    return {"id": job["id"], "state": job["state"], "result": result, "error": job.get("error"),
            "error_kind": job.get("error_kind"), "reason": job.get("reason")}


def load_day(mem, day: date) -> DayView:
    """One day of the journal as the page shows it (a read: run it as a query). memoir's letters are
    read in their own view (LetterDialog), not among the day's entries."""
    entries = [e for e in mem.journal.entries(day=day) if e.get("kind") != "letter"]
    jobs = mem.jobs.all(entry_ids=[e["id"] for e in entries]) if entries else []
    return build_day_view(day, entries, jobs)


def source_day(mem, entry_id: int | None) -> date | None:
    """The day of a memory's source entry (None when it has none, or it is gone)."""
    if entry_id is None:
        return None
    try:
        return datetime.fromisoformat(mem.journal.entry(entry_id)["created_at"]).date()
    except (KeyError, LookupError, ValueError):
        return None
