"""The first stage every search shares — memories, journal entries, the companion's episodes:
the words (BM25 over Korean morphemes and English stems) and the meaning (dense vectors), each a
ranking for `fusion.fuse`.

Where results are listed for the user to read (the search field), the floor decides which hits the
meaning alone may bring (floor.py): a query that is not words lists nothing, a line with no word in
it ("^^;;", "ㅎ") is never listed by meaning, a hit in the other language is judged as the query's
language would score it, and what the words found stays whatever its similarity. Anywhere else (the
API, the companion's context) nothing is cut: a floor judging from similarities alone cost true
memories, since a question in another language shares no word with the journal.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from memoir_desktop.core.lexical import BM25Index
from memoir_desktop.core.search.floor import (
    Floor,
    dense_only_cut,
    floor_for,
    in_language,
    in_query_language,
    keep_dense,
    stats_of,
)
from memoir_desktop.core.search.query import Query
from memoir_desktop.core.search.reference import reference_scores
from memoir_desktop.core.storage.mirror import SimilarityStats

log = logging.getLogger(__name__)

DenseSearch = Callable[..., tuple[list, SimilarityStats]]  # (vector, depth) -> ([(id, similarity)], stats)


def korean_of(bm: BM25Index):
    """Whether each item is Korean, from its indexed words (no row read): {id: bool} for the ids given."""
    def of(ids: list) -> dict:
        toks = bm.tokens_of(str(i) for i in ids)
        return {i: any("\uac00" <= t[:1] <= "\ud7a3" for t in toks[str(i)]) for i in ids if str(i) in toks}
    return of


def rankings(q: Query, bm: BM25Index, dense: DenseSearch, embedder, *, depth: int, listing: bool,
             floor: Floor | None | bool = True, what: str = "search", words_first: bool = False) -> dict[str, list]:
    """{"dense": [(id, similarity)], "lexical": [(id, score)]} best first (dense absent when the model
    is not there or the floor keeps it out). `floor`: True for the model's own where it applies
    (listing), a Floor, or None for none (evaluation compares both). Fusion breaks ties by the first
    ranking: meaning first, or the words first with `words_first` (entry search, whose snippets show
    the words)."""
    ranked = _first_stage(q, bm, dense, embedder, depth=depth, listing=listing, floor=floor, what=what)
    order = ("lexical", "dense") if words_first else ("dense", "lexical")
    return {k: ranked[k] for k in order if k in ranked}


def _first_stage(q: Query, bm: BM25Index, dense: DenseSearch, embedder, *, depth: int, listing: bool,
                 floor: Floor | None | bool, what: str) -> dict[str, list]:
    ranked: dict[str, list] = {"lexical": bm.search(q.terms, depth, weights=q.term_weights)}
    vec = q.vector()
    if vec is None:
        return ranked
    try:
        hits, stats = dense(vec, depth)
    except Exception as exc:  # a failing source is skipped, not fatal: the words still answer
        log.warning("dense %s unavailable: %s", what, exc.__class__.__name__)
        return ranked
    if floor is True:
        floor = floor_for(embedder.name) if listing else None
    if not floor:
        ranked["dense"] = hits
        return ranked
    refs = lambda: reference_scores(embedder, vec)  # noqa: E731 - asked for lazily
    # A line with no word in it ("^^;;", "ㅎ", "😴", "4821", "1 2 3": numbers name nothing by meaning) is
    # near everything by meaning: it neither decides what is listed nor is listed but by its words.
    worded = {i for i, toks in bm.tokens_of(str(h[0]) for h in hits).items()
              if any(not t.isdigit() for t in toks)}
    judged, floor, korean = in_query_language([h for h in hits if str(h[0]) in worded], q.text, floor,
                                              korean_of(bm))
    if stats.n <= len(hits):  # every item is a hit: their spread is judged with everyday sentences
        stats, refs = stats_of([h[1] for h in judged], stats), in_language(refs, korean)
    if not keep_dense(floor, knows_a_word=bm.knows(q.terms), best=max((h[1] for h in judged), default=None),
                      stats=stats, reference=refs, text=q.text):
        return ranked
    cut = dense_only_cut(floor, stats, refs) if listing else None
    if cut is None:
        ranked["dense"] = [h for h in hits if str(h[0]) in worded] if listing else hits
        return ranked
    matched = {str(i) for i, _ in ranked["lexical"]}  # what the words found stays, whatever its similarity
    passed = {str(h[0]) for h in judged if h[1] >= cut}
    ranked["dense"] = [h for h in hits if str(h[0]) in passed or str(h[0]) in matched]
    return ranked
