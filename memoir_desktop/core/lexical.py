"""Tokenization and BM25 for the sparse side of retrieval (placeholder: regex words)."""

from __future__ import annotations

import math
import re
from collections import Counter

_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(text or "")]


class BM25Index:
    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self._docs: dict[str, Counter] = {}
        self._len: dict[str, int] = {}
        self._df: Counter = Counter()

    def __len__(self) -> int:
        return len(self._docs)

    def add(self, doc_id: str, text: str) -> None:
        self.remove(doc_id)
        tf = Counter(tokenize(text))
        self._docs[doc_id] = tf
        self._len[doc_id] = sum(tf.values())
        self._df.update(tf.keys())

    def remove(self, doc_id: str) -> None:
        tf = self._docs.pop(doc_id, None)
        if tf is None:
            return
        self._len.pop(doc_id, None)
        self._df.subtract(tf.keys())

    def search(self, query: str, limit: int = 10) -> list[tuple[str, float]]:
        q = set(tokenize(query))
        n = len(self._docs)
        if not q or not n:
            return []
        avg = sum(self._len.values()) / n
        scores = {}
        for doc_id, tf in self._docs.items():
            s = 0.0
            for t in q:
                f = tf.get(t)
                if not f:
                    continue
                idf = math.log(1 + (n - self._df[t] + 0.5) / (self._df[t] + 0.5))
                s += idf * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * self._len[doc_id] / avg))
            if s > 0:
                scores[doc_id] = s
        return sorted(scores.items(), key=lambda kv: -kv[1])[:limit]
