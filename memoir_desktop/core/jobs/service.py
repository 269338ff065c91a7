"""The `Jobs` part: what is waiting and why (the status bar, `memoir-cli status` and `jobs`), retrying
a failed job, and running the queue.

Threading rule: `process` is the writer's (one job at a time); the rest read.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from memoir_desktop.core.jobs.queue import JobQueue, JobRunner
from memoir_desktop.core.llm import shared_settings
from memoir_desktop.core.llm.modes import MODE_LABELS

LLM_JOBS = ("memorize", "reconcile", "graph", "summary", "consolidate")  # the jobs that ask the LLM


class Jobs:
    def __init__(self, queue: JobQueue, runner: JobRunner, metrics, *, store, llm: Callable, settings: Callable,
                 switch_state: Callable, home, idle: Callable[[str | None], object] | None = None):
        self.queue, self.runner, self.metrics, self.store = queue, runner, metrics, store
        self._idle = idle
        self._idled_on: date | None = None  # the day of the last idle work
        self.today = date.today
        self._llm, self._settings, self._switch_state, self.home = llm, settings, switch_state, home

    def status(self) -> dict:
        """What the status bar and `memoir-cli status` show: jobs, the LLM and how it is asked (what
        the jobs wait on), the search model (and one being prepared)."""
        llm, settings, es = self._llm(), self._settings(), self.store.embedder.status
        caps = llm.capabilities
        return {"home": str(self.home), "pending_jobs": self.queue.count_for_the_journal("pending"),
                "running_jobs": self.queue.count("running") + self.queue.count("waiting"),
                "failed_jobs": self.queue.count("failed"),
                "llm": {"configured": llm.configured, "model": settings.llm_model,
                        "from_journal": bool(settings.extra.get(shared_settings.FOLLOWS)),
                        "needs_key": shared_settings.needs_key(settings),
                        "base_url": settings.llm_base_url or "(OpenAI default)",
                        "mode": caps.mode if caps else None, "mode_label": MODE_LABELS[caps.mode] if caps else None},
                "embedder": {"state": es.state, "requested": es.requested, "active": es.active, "message": es.message,
                             "not_installed": es.not_installed},
                "embedder_switch": self._switch_state()}

    def all(self, state: str | None = None, *, user_id: str | None = None,
            entry_ids: list[int] | None = None) -> list[dict]:
        """Jobs in order, each with the `reason` it waits or failed (see `reason`); entry_ids keeps those
        whose payload names any of these entries."""
        jobs = self.queue.dicts(state, user_id, entry_ids)
        configured, outage = bool(self._llm().configured), self.queue.outage()
        needs_key = shared_settings.needs_key(self._settings())
        for j in jobs:
            j["reason"] = reason(j, configured=configured, outage=outage, needs_key=needs_key)
        return jobs

    def retry(self, job_id: int) -> bool:
        return self.queue.retry(job_id)

    def process(self, limit: int | None = None, *, idle: bool = False) -> list[dict]:
        """Run pending jobs, a new entry's first (JobRunner.run_pending); each result says why a job that
        did not finish waits or failed (`reason`). The timings are written after.

        `idle` (the app's writer, which runs while the diarist writes): once nothing waits, after jobs
        that asked the model or the first time on a day, the model's idle work (JobHandlers.idle): a
        model server nearby reads the next entry's beginning ahead (pipeline/read_ahead.py)."""
        done = self.runner.run_pending(limit)
        finished = [r for r in done if r["state"] == "done" and r["kind"] in LLM_JOBS and r.get("user_id")]
        # Also on a new day: what was read ahead carries yesterday's date, which the next entry's does not.
        fresh = self._idled_on != self.today()
        if (idle and self._idle is not None and (finished or fresh) and not self.queue.count("pending")
                and not self.queue.count("waiting")):
            self._idled_on = self.today()
            self._idle(finished[-1]["user_id"] if finished else None)
        self.metrics.flush()
        unfinished = {r["id"] for r in done if r["state"] != "done"}
        if unfinished:
            rows = {j["id"]: j for j in self.all() if j["id"] in unfinished}
            for r in done:
                if r["id"] in rows:
                    r["reason"] = rows[r["id"]]["reason"]
        return done


def reason(job: dict, *, configured: bool, outage: dict | None, needs_key: bool = False) -> dict | None:
    """Why a job waits or failed, for every job (not only the one tried last): {kind, text, since}.

    kind: not_configured (no LLM set) | needs_key (the journal's AI, taken from another computer, needs
    this computer's API key) | answer (a chat turn waiting for its reply) | queued (its turn
    comes) | the LLM's outage or the job's own last error in one word (llm/errors.py: not_running,
    timeout, key_refused, model_unknown, …; bad_reply, too_long, error for a failed job). `since`: when
    the outage began (the server down since then), else when the job was last tried. `raw_kept`: a
    reply that could not be read is kept for the user to see."""
    state = job["state"]
    if state in ("done", "cancelled"):
        return None
    if state == "failed":
        return {"kind": job.get("error_kind") or "error", "text": job.get("error") or "",
                "since": job["updated_at"], "raw_kept": bool(job.get("raw_reply"))}
    if state == "waiting":
        return {"kind": "answer", "text": "The companion's answer is on its way; the entry is remembered with it.",
                "since": job["updated_at"]}
    if job.get("kind") in LLM_JOBS and needs_key:
        return {"kind": "needs_key", "text": "Your journal's AI needs its API key on this computer too: its "
                                             "memories are made once you type it (Settings → AI companion; "
                                             "memoir-cli reads MEMOIR_LLM_API_KEY), or by another of your "
                                             "computers that has it.", "since": None}
    if job.get("kind") in LLM_JOBS and not configured:
        return {"kind": "not_configured", "text": "No AI companion is connected: its memories are made once one is "
                                                  "(Settings → AI companion).", "since": None}
    if outage is not None:
        return {"kind": outage["kind"], "text": outage["text"], "since": outage["since"]}
    if job.get("error"):  # its own last try failed this way; the server has answered since
        return {"kind": job.get("error_kind") or "error", "text": job["error"], "since": job["updated_at"]}
    return {"kind": "queued", "text": "In line: memoir reads it next.", "since": None}
