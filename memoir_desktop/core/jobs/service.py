"""The `Jobs` part: what is waiting and why (the status bar, `memoir-cli status` and `jobs`), retrying
a failed job, and running the queue.

Threading rule: `process` is the writer's (one job at a time); the rest read.
"""

from __future__ import annotations

from collections.abc import Callable

from memoir_desktop.core.jobs.queue import JobQueue, JobRunner
from memoir_desktop.core.llm.modes import MODE_LABELS


class Jobs:
    def __init__(self, queue: JobQueue, runner: JobRunner, metrics, *, store, llm: Callable, settings: Callable,
                 switch_state: Callable, home):
        self.queue, self.runner, self.metrics, self.store = queue, runner, metrics, store
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
                        "base_url": settings.llm_base_url or "(OpenAI default)",
                        "mode": caps.mode if caps else None, "mode_label": MODE_LABELS[caps.mode] if caps else None},
                "embedder": {"state": es.state, "requested": es.requested, "active": es.active, "message": es.message,
                             "not_installed": es.not_installed},
                "embedder_switch": self._switch_state()}

    def all(self, state: str | None = None, *, user_id: str | None = None,
            entry_ids: list[int] | None = None) -> list[dict]:
        """Jobs in order; entry_ids keeps those whose payload names any of these entries."""
        return self.queue.dicts(state, user_id, entry_ids)

    def retry(self, job_id: int) -> bool:
        return self.queue.retry(job_id)

    def process(self, limit: int | None = None) -> list[dict]:
        """Drain pending jobs in order (JobRunner.run_pending); the timings are written after."""
        done = self.runner.run_pending(limit)
        self.metrics.flush()
        return done
