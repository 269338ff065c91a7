"""What each kind of job does (jobs/queue.py runs them): memorise new entries, read their people and
places into the graph, re-read an edited one, refresh the running summary, consolidate memories — each
with the journal's parts as they are at the time the job runs (the LLM and the settings change when
the user reconfigures)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from memoir_desktop.core.jobs.queue import Handler, Prepared
from memoir_desktop.core.llm.sorting_check import check_sorting
from memoir_desktop.core.pipeline import consolidate, graph_job
from memoir_desktop.core.pipeline.memorize import WriteContext, prepare_entry_reread, prepare_memorize
from memoir_desktop.core.pipeline.read_ahead import read_ahead as read_next
from memoir_desktop.core.pipeline.summary import prepare_summary
from memoir_desktop.core.storage.models import Job


class JobHandlers:
    def __init__(self, engine, store, episodes, graph, metrics, *, llm: Callable, settings: Callable,
                 threshold: Callable[[], float]):
        self.engine, self.store, self.episodes, self.graph, self.metrics = engine, store, episodes, graph, metrics
        self._llm, self._settings, self._threshold = llm, settings, threshold

    def table(self) -> dict[str, Handler]:
        return {"memorize": lambda job: prepare_memorize(self._context(), job),
                "reconcile": lambda job: prepare_entry_reread(self._context(), job),
                "summary": lambda job: prepare_summary(self.engine, self._llm(), job),
                graph_job.KIND: lambda job: graph_job.prepare_graph(self._context(), job),
                "consolidate": self._consolidation}

    @contextlib.contextmanager
    def around(self, job: Job):
        """Around each job: its LLM calls counted to it, searches meanwhile kept to one thread."""
        self.metrics.job_id = job.id
        try:
            with self.store.embedder.background():
                yield
        finally:
            self.metrics.job_id = None

    def idle(self, user_id: str | None) -> None:
        """The model's work while nothing waits (the app's writer): the sorting step checked when it is
        due, then the next entry's beginning read ahead (`user_id`: whose entry was read last; None at
        the start, the journal's own user)."""
        ctx = self._context()
        check_sorting(ctx.llm, when_due=True)
        read_next(ctx, user_id or "me")  # the journal's own user (Journal.write)

    def _context(self) -> WriteContext:
        settings = self._settings()
        return WriteContext(self.engine, self.store, self._llm(), settings,
                            self.graph if settings.graph_enabled else None, self.episodes)

    def _consolidation(self, job: Job) -> Prepared:
        return consolidate.prepare(self.store, self._llm(), job, self._threshold())
