"""Chart series from metric rows: rolling p50 / p95 per stage, tokens per turn (no Qt)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from memoir_desktop.core.metrics import percentile

CHART_STAGES = ("extraction", "update", "search", "answer", "embedding")
LLM_STAGES = ("extraction", "update", "answer", "summary", "graph")
ROLLING_WINDOW = 20


def _ts(row) -> float:
    return row.created_at.timestamp()


def latency_series(rows, stage: str, window: int = ROLLING_WINDOW) -> tuple[list[float], list[float], list[float]]:
    """(times, p50, p95) where each point summarises the last `window` samples of the stage."""
    samples = [r for r in rows if r.stage == stage]
    xs, p50, p95 = [], [], []
    for i, row in enumerate(samples):
        recent = [s.ms for s in samples[max(0, i - window + 1): i + 1]]
        xs.append(_ts(row))
        p50.append(percentile(recent, 50))
        p95.append(percentile(recent, 95))
    return xs, p50, p95


def tokens_per_turn(rows) -> tuple[list[float], list[float]]:
    """(time of the turn's last LLM call, prompt + completion tokens) per background job."""
    per_job: dict[int, list] = defaultdict(list)
    for r in rows:
        if r.job_id is not None and r.stage in LLM_STAGES:
            per_job[r.job_id].append(r)
    turns = sorted((max(_ts(r) for r in rs), sum(r.prompt_tokens + r.completion_tokens for r in rs))
                   for rs in per_job.values())
    return [t for t, _ in turns], [float(n) for _, n in turns]


def stage_table(rows) -> list[tuple[str, int, float, float, int]]:
    """(stage, count, p50 ms, p95 ms, tokens) for every stage that has samples."""
    by_stage: dict[str, list] = defaultdict(list)
    for r in rows:
        by_stage[r.stage].append(r)
    order = {s: i for i, s in enumerate(CHART_STAGES)}
    return [
        (stage, len(rs), percentile([r.ms for r in rs], 50), percentile([r.ms for r in rs], 95),
         sum(r.prompt_tokens + r.completion_tokens for r in rs))
        for stage, rs in sorted(by_stage.items(), key=lambda kv: (order.get(kv[0], 99), kv[0]))
    ]


@dataclass
class StatsData:
    """Everything the Stats tab draws, computed off the UI thread (months of samples add up)."""

    samples: int = 0
    table: list[tuple[str, int, float, float, int]] = field(default_factory=list)
    latency: dict[str, tuple[list[float], list[float], list[float]]] = field(default_factory=dict)
    tokens: tuple[list[float], list[float]] = ([], [])


def build_stats(rows) -> StatsData:
    return StatsData(samples=len(rows), table=stage_table(rows),
                     latency={stage: latency_series(rows, stage) for stage in CHART_STAGES},
                     tokens=tokens_per_turn(rows))
