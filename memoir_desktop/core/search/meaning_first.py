"""The first place of a question that is not about a version goes to what is closest in meaning.

A question asked in other words than the journal's ("What keeps me busy on weekends?" for "Joined
the Devizes Men's Shed") shares no word with its answer; the fused ranking and the second stage put a
line sharing one word with it first ("home", "season", "고양이"), where the meaning alone was right
more often: on the nineteen spent blind sets, dense-only put the wanted line first for 120 of 271
Korean paraphrase questions and 139 of 252 English ones, the pipeline for 106 and 120 (at 00badc1).

So when the ranking's first is not among the question's TOP closest lines by meaning, the closest
goes first; the rest keep their order. Not for a question about a version (now, before, the first
one, a time past: present.mode_of), whose stages choose among lines that are all close, and not where
a stage that reads words set the first (a kind the list names, the question's own frame, the
rivals: present.first_set_by): "회사 어디야?" is answered by the newest job the list finds, which may
be fifth by meaning. Measured on the spent sets (hit@1 of 2,443): +22 with TOP 2 (+27 with 1, +10
with 3); with 1 the project's changing-facts set lost 2 of 41 and LoCoMo dev all@1 5 of 383.
"""

from __future__ import annotations

from memoir_desktop.core.search import present
from memoir_desktop.core.search.query import Query

TOP = 2
# The paths whose first may give way: the ranking alone, or a grouping by meaning (state_order.py)
_GIVES_WAY = ("ranking", "theirs", "cluster", "meaning")


def meaning_first(q: Query, out: list[dict], by_meaning: list[str]) -> list[dict]:
    """`out` with the closest line by meaning first where the rule above applies; `by_meaning`: the
    first stage's dense ranking (ids, closest first), empty without the embedding model."""
    if len(out) < 2 or not by_meaning or present.mode_of(q) is not None:
        return out
    if present.first_set_by(out[0]) not in _GIVES_WAY:
        return out
    if out[0]["id"] in by_meaning[:TOP]:
        return out
    shown = {d["id"]: d for d in out}
    best = next((mid for mid in by_meaning if mid in shown), None)
    if best is None:
        return out
    first = shown[best]
    first["explain"]["meaning_first"] = {"from": out.index(first) + 1}
    return [first, *(d for d in out if d is not first)]
