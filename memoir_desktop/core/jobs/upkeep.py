"""The journal's upkeep as the user and the CLI see it: the jobs and retrying one, running the queue,
merging memories that say the same thing (tidy: a preview accepted merge by merge; consolidation: a
background job) and undoing a merge, and the running summary.

Threading rule: `process_jobs` is the writer's (one job at a time); merges and undo are the user's
own short transactions; the rest read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from memoir_desktop.core.jobs.queue import JobQueue, JobRunner
from memoir_desktop.core.llm.modes import MODE_LABELS
from memoir_desktop.core.pipeline import consolidate, tidy
from memoir_desktop.core.pipeline.summary import summary_text
from memoir_desktop.core.storage.models import now


class Upkeep:
    def __init__(self, engine, store, jobs_queue: JobQueue, runner: JobRunner, write_lock: threading.Lock, metrics,
                 *, llm: Callable, settings: Callable, switch_state: Callable, home):
        self.engine, self.store, self.jobs_queue, self.runner = engine, store, jobs_queue, runner
        self.write_lock, self.metrics, self._llm = write_lock, metrics, llm
        self._settings, self._switch_state, self.home = settings, switch_state, home

    def status(self) -> dict:
        """What the status bar and `memoir-cli status` show: jobs, the LLM and how it is asked, the
        search model (and one being prepared)."""
        llm, settings, es = self._llm(), self._settings(), self.store.embedder.status
        caps = llm.capabilities
        return {"home": str(self.home), "pending_jobs": self.jobs_queue.count_for_the_journal("pending"),
                "running_jobs": self.jobs_queue.count("running") + self.jobs_queue.count("waiting"),
                "failed_jobs": self.jobs_queue.count("failed"),
                "llm": {"configured": llm.configured, "model": settings.llm_model,
                        "base_url": settings.llm_base_url or "(OpenAI default)",
                        "mode": caps.mode if caps else None, "mode_label": MODE_LABELS[caps.mode] if caps else None},
                "embedder": {"state": es.state, "requested": es.requested, "active": es.active, "message": es.message,
                             "not_installed": es.not_installed},
                "embedder_switch": self._switch_state()}

    def jobs(self, state: str | None = None, *, user_id: str | None = None,
             entry_ids: list[int] | None = None) -> list[dict]:
        """Jobs in order; entry_ids keeps those whose payload names any of these entries."""
        return self.jobs_queue.dicts(state, user_id, entry_ids)

    def retry_job(self, job_id: int) -> bool:
        return self.jobs_queue.retry(job_id)

    def process_jobs(self, limit: int | None = None) -> list[dict]:
        """Drain pending jobs in order (JobRunner.run_pending); the timings are written after."""
        done = self.runner.run_pending(limit)
        self.metrics.flush()
        return done

    def consolidate(self, *, user_id: str = "me", include_user_edited: bool = False) -> int:
        """Queue a consolidation job. User-edited memories join only when the user agreed."""
        return self.jobs_queue.add("consolidate", user_id, {"include_user_edited": include_user_edited})

    def undo_consolidation(self, merged_id: str) -> list[str]:
        return consolidate.undo_merge(self.engine, self.store, self.write_lock, merged_id)

    def tidy_proposals(self, *, user_id: str = "me", include_user_edited: bool = False) -> list[tidy.TidyProposal]:
        """Merges of near-duplicate memories to show the user first (nothing changes; a read)."""
        return tidy.propose(self.store, self._llm(), user_id, threshold=self.tidy_threshold(), today=now(),
                            include_user_edited=include_user_edited)

    def apply_tidy(self, proposal: tidy.TidyProposal) -> tidy.TidyResult:
        """Merge one accepted proposal (undo_consolidation undoes it); refused if a member changed."""
        return tidy.apply(self.engine, self.store, self.write_lock, proposal)

    def tidy_threshold(self) -> float:
        """How alike memories must be to be offered as one (the settings', else the model's own)."""
        return self._settings().consolidation_threshold or self.store.embedder.related_threshold

    def summary(self, *, user_id: str = "me") -> str:
        return summary_text(self.engine, user_id)
