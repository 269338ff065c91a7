"""Okapi BM25 over an inverted index, updated in place (see BM25Index)."""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from memoir_desktop.core.lexical.tokens import tokenize, tokenize_many


class BM25Index:
    """Okapi BM25 over an inverted index, updated in place.

    Each token keeps its postings (document slot -> term frequency); a search touches only
    the postings of the query's tokens, scored with numpy, so its cost follows how common
    the query's tokens are, not how many documents there are. A token's postings are
    turned into arrays on first search and kept until a document with that token changes.
    IDF is ``log(1 + (N - df + 0.5) / (df + 0.5))``, never negative, so every document
    sharing a token with the query scores above zero.

    Thread rule: every method may be called from any thread. The index state is guarded
    by its own lock; text analysis runs before the lock is taken, so a long ``add_many``
    analysis never blocks a search.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self._lock = threading.RLock()
        self._slot: dict[str, int] = {}  # doc_id -> slot (row in the arrays)
        self._slot_ids: list[str | None] = []  # slot -> doc_id
        self._free: list[int] = []  # slots of removed documents, reused first
        self._lens = np.zeros(0)  # slot -> document length in tokens
        self._total_len = 0
        self._doc_tf: dict[str, dict[str, int]] = {}  # doc_id -> {token: term frequency}
        self._postings: dict[str, dict[int, int]] = {}  # token -> {slot: term frequency}
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # token -> (slots, tfs)
        self._scratch = np.zeros(0)  # per-slot score accumulator, all zero between searches

    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot

    def add(self, doc_id: str, text: str) -> None:
        """Index ``text`` under ``doc_id``, replacing what was there."""
        self._insert(doc_id, tokenize(text))

    def add_many(self, items: Iterable[tuple[str, str]]) -> None:
        """Index many (doc_id, text) pairs with batched analysis. A later duplicate id wins."""
        items = list(items)
        token_lists = tokenize_many([text for _, text in items])
        for (doc_id, _), tokens in zip(items, token_lists, strict=True):
            self._insert(doc_id, tokens)  # locks per document, so searches interleave

    def remove(self, doc_id: str) -> None:
        """Forget ``doc_id``; nothing happens if it is not indexed."""
        with self._lock:
            slot = self._slot.pop(doc_id, None)
            if slot is None:
                return
            tf = self._doc_tf.pop(doc_id)
            self._total_len -= int(self._lens[slot])
            self._lens[slot] = 0.0
            self._slot_ids[slot] = None
            self._free.append(slot)
            for token in tf:
                posting = self._postings[token]
                del posting[slot]
                if not posting:
                    del self._postings[token]
                self._arrays.pop(token, None)

    def _insert(self, doc_id: str, tokens: list[str]) -> None:
        tf = dict(Counter(tokens))
        with self._lock:
            self.remove(doc_id)
            if self._free:
                slot = self._free.pop()
                self._slot_ids[slot] = doc_id
            else:
                slot = len(self._slot_ids)
                self._slot_ids.append(doc_id)
                if slot >= len(self._lens):
                    grow = np.zeros(max(64, len(self._lens)))
                    self._lens = np.concatenate([self._lens, grow])
                    self._scratch = np.concatenate([self._scratch, grow])
            self._slot[doc_id] = slot
            self._doc_tf[doc_id] = tf
            self._lens[slot] = len(tokens)
            self._total_len += len(tokens)
            postings, arrays = self._postings, self._arrays
            for token, count in tf.items():
                posting = postings.get(token)
                if posting is None:
                    postings[token] = {slot: count}
                else:
                    posting[slot] = count
                    arrays.pop(token, None)

    def _arrays_of(self, token: str) -> tuple[np.ndarray, np.ndarray] | None:
        cached = self._arrays.get(token)
        if cached is None:
            posting = self._postings.get(token)
            if not posting:
                return None
            slots = np.fromiter(posting.keys(), dtype=np.intp, count=len(posting))
            tfs = np.fromiter(posting.values(), dtype=np.float64, count=len(posting))
            cached = self._arrays[token] = (slots, tfs)
        return cached

    def search(self, query: str | Sequence[str], limit: int = 10,
               weights: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
        """(doc_id, score) best first, only documents scoring above zero. `query` is a text, or its
        tokens already analysed (a search query is analysed once for every source); `weights`
        scales some tokens' share (a synonym counts less than the word the user typed)."""
        terms = list(dict.fromkeys(tokenize(query) if isinstance(query, str) else query))
        if not terms or limit <= 0:
            return []
        k1, b = self.k1, self.b
        with self._lock:
            n = len(self._slot)
            if not n:
                return []
            avg = self._total_len / n or 1.0
            lens, acc = self._lens, self._scratch
            touched: list[np.ndarray] = []
            try:  # the cost follows the postings touched, not the number of documents
                for term in terms:
                    found = self._arrays_of(term)
                    if found is None:
                        continue
                    slots, tfs = found
                    df = len(slots)
                    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                    if weights is not None:
                        idf *= weights.get(term, 1.0)
                    acc[slots] += idf * (k1 + 1) * tfs / (tfs + k1 * (1 - b + b * lens[slots] / avg))
                    touched.append(slots)
                if not touched:
                    return []
                # collect each touched slot once: a collected slot is zeroed, so it is skipped
                # when it turns up again in a later token's postings (every score is > 0)
                parts = []
                for slots in touched:
                    got = acc[slots]
                    mask = got > 0
                    parts.append((slots[mask], got[mask]))
                    acc[slots] = 0.0
            except BaseException:  # leave the accumulator clean for the next search
                for slots in touched:
                    acc[slots] = 0.0
                raise
            hits = np.concatenate([h for h, _ in parts])
            scores = np.concatenate([s for _, s in parts])
            if len(hits) > limit:
                # keep everything tied with the limit-th score, so ties are broken by id below
                kth = np.partition(scores, len(hits) - limit)[len(hits) - limit]
                keep = scores >= kth
                hits, scores = hits[keep], scores[keep]
            ranked = [(self._slot_ids[i], s) for i, s in zip(hits.tolist(), scores.tolist(), strict=True)]
        ranked.sort(key=lambda kv: (-kv[1], kv[0]))
        return ranked[:limit]

    def doc_freq(self, tokens: Iterable[str]) -> tuple[int, dict[str, int]]:
        """(documents, {token: documents that have it}): how little a word says about which
        document it is in (search/versions.py)."""
        with self._lock:
            return len(self._slot), {t: len(self._postings.get(t) or ()) for t in tokens}

    def knows(self, tokens: Iterable[str]) -> bool:
        """Whether any of these tokens occurs in some indexed document."""
        with self._lock:
            return any(t in self._postings for t in tokens)

    def tokens_of(self, doc_ids: Iterable[str]) -> dict[str, set[str]]:
        """Each indexed document's tokens (search/states.py reads what a memory is about from them)."""
        with self._lock:
            return {d: set(self._doc_tf.get(d) or ()) for d in doc_ids}

    def docs_with(self, tokens: Iterable[str]) -> set[str]:
        """The documents that have any of these tokens."""
        with self._lock:
            slots: set[int] = set()
            for t in tokens:
                slots.update(self._postings.get(t, ()))
            return {d for d in (self._slot_ids[i] for i in slots) if d is not None}

    def explain(self, query: str | Sequence[str], doc_id: str) -> list[str]:
        """The query's tokens that occur in ``doc_id`` (in query order), e.g. for a tooltip."""
        return self.explain_many(query, [doc_id])[doc_id]

    def explain_many(self, query: str | Sequence[str], doc_ids: Iterable[str]) -> dict[str, list[str]]:
        """``explain`` for several documents, analysing the query once."""
        terms = dict.fromkeys(tokenize(query) if isinstance(query, str) else query)
        with self._lock:
            return {d: [t for t in terms if t in (self._doc_tf.get(d) or ())] for d in doc_ids}
