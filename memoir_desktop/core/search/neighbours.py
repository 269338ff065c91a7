"""Neighbours: memories written down together with a best-ranked one come up with it.

An entry gives several memories ("지수랑 한강에서 자전거를 탔다", "그날 발목을 삐었다", "지수가 병원에
데려다줬다"); a question that finds one of them often needs the others ("who was with me the day I
sprained my ankle?"), which share no word with it. Below the best KEEP, the memories that came from
the same entry as one of the best SEEDS move up, at most PER an entry, from among what the first
stage found (never from outside it: a neighbour must still bear on the question a little). An
entry is its id; a memory stored without one (the API's verbatim add) is grouped with those
recorded at the same moment, as one add call records them.

Measured on LoCoMo dev (a session's observations stand for one entry's memories): all@10 59.0 ->
60.1 (dated items), 60.1 -> 60.8 (plain); the best KEEP ranks never move, so neither does all@1.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")

KEEP = 5
SEEDS = 2
PER = 2


def key(entry_id: int | None, created_at: str) -> tuple[str, object]:
    """Which entry a memory was written down from: its id, or (none) the moment it was recorded."""
    return ("entry", entry_id) if entry_id is not None else ("at", created_at)


def source(d: dict) -> tuple[str, object]:
    return key(d.get("source_entry_id"), d["created_at"])


def take(items: Iterable[T], source_of: Callable[[T], Hashable | None], wanted: set) -> list[T]:
    """The items whose source is one of `wanted`, in their order, at most PER a source."""
    taken: dict = {}
    out: list[T] = []
    for item in items:
        src = source_of(item)
        if src in wanted and taken.get(src, 0) < PER:
            taken[src] = taken.get(src, 0) + 1
            out.append(item)
    return out


def bring(ranked: list[dict], beyond: Callable[[set], list[dict]], limit: int) -> list[dict]:
    """`ranked`: the search's order; `beyond(seeds)`: the first stage's candidates past it that come
    from one of the seeds' entries, best first (asked only when there is room below the best)."""
    if len(ranked) <= KEEP or limit <= KEEP:
        return ranked
    seeds = {source(d) for d in ranked[:SEEDS]}
    more = beyond(seeds)
    head = ranked[:KEEP]
    moved = take(ranked[KEEP:] + more, source, seeds)[:limit - KEEP]
    if not moved:
        return ranked
    ids = {d["id"] for d in moved}
    for d in moved:
        d["explain"]["neighbour"] = True
    return head + moved + [d for d in ranked[KEEP:] if d["id"] not in ids]
