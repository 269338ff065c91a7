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

from collections.abc import Callable

KEEP = 5
SEEDS = 2
PER = 2


def source(d: dict) -> tuple[str, object]:
    entry = d.get("source_entry_id")
    return ("entry", entry) if entry is not None else ("at", d["created_at"])


def bring(ranked: list[dict], beyond: Callable[[set], list[dict]], limit: int) -> list[dict]:
    """`ranked`: the search's order; `beyond(seeds)`: the first stage's candidates past it that come
    from one of the seeds' entries, best first (asked only when there is room below the best)."""
    if len(ranked) <= KEEP or limit <= KEEP:
        return ranked
    seeds = {source(d) for d in ranked[:SEEDS]}
    more = beyond(seeds)
    head = ranked[:KEEP]
    taken: dict[tuple[str, object], int] = {}
    moved: list[dict] = []
    for d in ranked[KEEP:] + more:
        if len(head) + len(moved) >= limit:
            break
        s = source(d)
        if s in seeds and taken.get(s, 0) < PER:
            taken[s] = taken.get(s, 0) + 1
            moved.append(d)
    if not moved:
        return ranked
    ids = {d["id"] for d in moved}
    for d in moved:
        d["explain"]["neighbour"] = True
    return head + moved + [d for d in ranked[KEEP:] if d["id"] not in ids]
