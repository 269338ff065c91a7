"""Per-stage timings and token usage -> p50 / p95 and tokens per turn.

Samples are buffered in memory and written in batches by the writer (after its jobs) and at
close: a commit on the search thread would land in the search's p95. The buffer is bounded.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from sqlmodel import Session, col, select

from memoir_desktop.core.db import reading_now
from memoir_desktop.core.storage.models import Job, Metric, now

STAGES = ("extraction", "update", "summary", "search", "answer", "embedding", "graph")


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (``0 <= p <= 100``, linear interpolation, numpy's default); 0.0 for none."""
    if not 0.0 <= p <= 100.0:
        raise ValueError(f"percentile must be in [0, 100], got {p}")
    return float(np.percentile(np.asarray(values, dtype=float), p)) if len(values) else 0.0


class MetricsRecorder:
    def __init__(self, engine, flush_every: int = 5000):
        self._engine = engine
        self._buf: list[tuple] = []
        self._lock = threading.Lock()
        self._flush_every = flush_every
        self.job_id: int | None = None  # set by the writer while a job runs

    def record(self, stage: str, ms: float, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        # A plain tuple: building the ORM object here cost ~0.5 ms per sample on the search path.
        sample = (stage, ms, prompt_tokens, completion_tokens, self.job_id, now())
        with self._lock:
            self._buf.append(sample)
            full = len(self._buf) >= self._flush_every
        if full:
            self.flush()

    def flush(self) -> None:
        if reading_now():  # a read-only thread (the app's reads pool) leaves them to the writer
            return
        with self._lock:
            buf, self._buf = self._buf, []
        if buf:
            with Session(self._engine) as s:
                s.add_all(Metric(stage=st, ms=ms, prompt_tokens=pt, completion_tokens=ct, job_id=job, created_at=at)
                          for st, ms, pt, ct, job, at in buf)
                s.commit()

    def _turns(self, job_ids: list[int]) -> dict[int, int]:
        """{job id: the memorize job of its turn}: the turn's own job, and the graph job that follows it."""
        if not job_ids:
            return {}
        with Session(self._engine) as s:
            rows = s.exec(select(Job.id, Job.kind, Job.payload).where(col(Job.id).in_(job_ids),
                                                                     col(Job.kind).in_(("memorize", "graph"))))
            out = {}
            for i, kind, payload in rows:
                turn = i if kind == "memorize" else (payload or {}).get("after")
                if i is not None and turn is not None:
                    out[i] = turn
            return out

    def rows(self, since: datetime | None = None) -> list[Metric]:
        self.flush()
        with Session(self._engine) as s:
            q = select(Metric)
            if since:
                q = q.where(col(Metric.created_at) >= since)
            return list(s.exec(q.order_by(col(Metric.id))))

    def summary(self, since: datetime | None = None) -> dict:
        """{stage: {count, p50_ms, p95_ms, tokens}} plus LLM calls and tokens per write job."""
        by_stage: dict[str, list[Metric]] = defaultdict(list)
        per_job: dict[int, list[Metric]] = defaultdict(list)
        for m in self.rows(since):
            by_stage[m.stage].append(m)
            if m.job_id is not None:
                per_job[m.job_id].append(m)
        out = {
            stage: {
                "count": len(ms),
                "p50_ms": percentile([m.ms for m in ms], 50),
                "p95_ms": percentile([m.ms for m in ms], 95),
                "tokens": sum(m.prompt_tokens + m.completion_tokens for m in ms),
            }
            for stage, ms in by_stage.items()
        }
        # A turn is one memorize job and the graph job that follows it; summary and consolidation jobs
        # are background upkeep, and the capability probe is asked once per endpoint, not per turn.
        per_turn: dict[int, list[Metric]] = defaultdict(list)
        for j, turn in self._turns(list(per_job)).items():
            per_turn[turn] += [m for m in per_job[j] if m.stage not in ("embedding", "search", "probe")]
        llm_jobs = [ms for ms in per_turn.values() if ms]
        if llm_jobs:
            out["per_turn"] = {
                "turns": len(llm_jobs),
                "llm_calls": sum(len(ms) for ms in llm_jobs) / len(llm_jobs),
                "tokens": sum(m.prompt_tokens + m.completion_tokens for ms in llm_jobs for m in ms)
                / len(llm_jobs),
            }
        return out
