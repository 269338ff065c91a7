"""The second stage: a learned combination of the signals the first stage has, over its top 30.

Every machine runs it (a dot product per candidate, well inside the search budget). The features
are the ones a person would weigh: how close in meaning (cosine, and how far the best stands out),
how many of the question's words the memory has, whether it is in the asked time, how recent it is,
and, for a question about now, whether a newer memory about the same thing is also there (then
this one is probably out of date) — the "newest truth first" rule, learned instead of forced.
Weights are fitted by `python -m memoir_desktop.eval.fit_reranker` on the fit halves of the dev sets
and checked on the halves it did not see; they are kept per embedding model (similarity scales
differ by model) and per query language in rerank_weights.json: Korean questions and English ones
weigh the signals differently (a model fitted on both was worse on each than the first stage on
one of them). English questions are reordered within the first stage's ten best only (`depth`):
fitted with the spent blind sets, the learned order put the memory meant first for 56 % of the check
half's questions asked in other words where the first stage did for 26 % (a line sharing one common
word with the question, "home", "road", "get", came first), but over all thirty it brought lines
from past the tenth that cost LoCoMo dev's check half all@10 62.2 -> 59.3. English questions about
a version ("What car do I drive now?", "before", "at first": present.mode_of) keep the first stage's
order (`for_versions`): there the learned order put the wanted version first less often (check half
52.4 -> 50.6 % now, 60.4 -> 57.1 % past), and the stages that choose versions read that order. A
language without weights keeps the first stage's order; the fit script's report says why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from memoir_desktop.core.search.query import Query

POOL = 30  # candidates the second stage reorders
FEATURES = (
    "fused",  # first-stage score / the best first-stage score
    "first_rank",  # 1 / (1 + first-stage rank)
    "dense",  # cosine to the query
    "dense_z",  # how far above the query's mean similarity (over the pool), in standard deviations
    "dense_gap",  # cosine minus the pool's best cosine
    "lexical",  # BM25 / the pool's best BM25
    "matched",  # share of the query's words the memory has
    "in_time",  # recorded in or about the asked span, or a habit falling in it
    "recency",  # 1 for the newest in the pool, 0 for the oldest
    "now_newest",  # asks about now, and no newer memory about the same thing is in the pool
    "now_outdated",  # asks about now, and a newer memory about the same thing is in the pool
    "same_topic_share",  # share of the pool about the same thing as this memory
    "typed",  # the user wrote or edited it
    "bias",
)


@dataclass(frozen=True)
class Weights:
    model: str
    lang: str
    w: np.ndarray
    topic: float  # similarity at which two memories are about the same thing
    depth: int | None = None  # how many of the first stage's best it reorders (None: all it is given)
    for_versions: bool = True  # reorders questions about a version too (present.mode_of)

    def score(self, x: np.ndarray) -> np.ndarray:
        return x @ self.w


@lru_cache(maxsize=16)
def weights_for(model: str, lang: str) -> Weights | None:
    try:
        data = json.loads(resources.files("memoir_desktop.core.search").joinpath("rerank_weights.json")
                          .read_text("utf-8"))
    except (OSError, ValueError):
        return None
    row = data.get("models", {}).get(model, {}).get(lang)
    if not row or row.get("features") != list(FEATURES) or not row.get("use", False):
        return None  # none, fitted on another feature set, or not better than the first stage
    return Weights(model, lang, np.asarray(row["weights"], dtype=np.float64), float(row["topic"]),
                   row.get("depth"), bool(row.get("for_versions", True)))


def features(q: Query, cands: list[dict], vecs: dict, qvec: np.ndarray | None, topic: float) -> np.ndarray:
    """One row per candidate (first-stage order), columns as FEATURES."""
    n = len(cands)
    if not n:
        return np.zeros((0, len(FEATURES)))
    have = [c["id"] in vecs for c in cands]
    dim = len(next(iter(vecs.values()))) if vecs else 0
    mat = np.stack([vecs.get(c["id"], np.zeros(dim)) for c in cands]) if vecs else None
    dense = (mat @ qvec) if (mat is not None and qvec is not None) else np.zeros(n)
    dense = np.where(have, dense, 0.0)
    mu, sd = (float(dense.mean()), float(dense.std())) if n > 1 else (0.0, 0.0)
    fused = np.array([c.get("score") or 0.0 for c in cands])
    lex = np.array([(c["explain"].get("lexical") or {}).get("score", 0.0) for c in cands])
    n_tokens = max(1, len(set(q.tokens)))
    times = [c["created_at"] for c in cands]
    order = sorted(range(n), key=lambda i: times[i])
    recency = np.zeros(n)
    for r, i in enumerate(order):
        recency[i] = r / (n - 1) if n > 1 else 1.0
    sims = mat @ mat.T if mat is not None else np.zeros((n, n))
    # same[i, j]: j is about the same thing as i. Columns in arrays, not a loop over candidates and
    # pairs: 0.55 -> 0.21 ms a search of 40 candidates, paid by every Korean and English question
    known = np.array(have)
    same = (sims >= topic) & known[:, None] & known[None, :]
    np.fill_diagonal(same, False)
    stamps = np.array(times)
    has_newer = (same & (stamps[None, :] > stamps[:, None])).any(axis=1)
    asks_now = 1.0 if q.asks_now else 0.0
    matched = np.array([len(set((c["explain"].get("lexical") or {}).get("matched", []))) for c in cands])
    return np.column_stack((
        fused / (fused.max() or 1.0),
        1.0 / (1 + np.arange(n)),
        dense,
        (dense - mu) / sd if sd > 0 else np.zeros(n),
        dense - dense.max(),
        lex / (lex.max() or 1.0),
        matched / n_tokens,
        [1.0 if "time" in c["explain"] else 0.0 for c in cands],
        recency,
        asks_now * ~has_newer,
        asks_now * has_newer,
        same.sum(axis=1) / max(1, n - 1),
        [1.0 if c.get("user_edited") else 0.0 for c in cands],
        np.ones(n),
    ))


def rerank(q: Query, cands: list[dict], vecs: dict, qvec: np.ndarray | None, weights: Weights) -> list[dict]:
    """The first `weights.depth` candidates in the learned order, the rest as they were; each
    reordered one gets explain["rerank"] = {score, from rank}."""
    if len(cands) < 2:
        return cands
    x = features(q, cands, vecs, qvec, weights.topic)
    s = weights.score(x)
    order = reordered(s, weights.depth)
    out = []
    for i in order:
        c = cands[i]
        if weights.depth is None or i < weights.depth:
            c["explain"]["rerank"] = {"score": round(float(s[i]), 4), "from": i + 1}
        out.append(c)
    return out


def reordered(scores: np.ndarray, depth: int | None) -> list[int]:
    """Indexes: the first `depth` (None: all) by score (ties keep their order), then the rest in
    place (why English stops at ten: the module's docstring)."""
    k = len(scores) if depth is None else min(depth, len(scores))
    return sorted(range(k), key=lambda i: (-scores[i], i)) + list(range(k, len(scores)))


# Evidence never counts against a memory: closer meaning, more shared words, being in the asked
# time can only raise it. Without this, a dev set built so that shared words mark distractors (the
# paraphrase set) taught a negative weight on words, which would not carry to ordinary questions.
MONOTONE = ("fused", "first_rank", "dense", "dense_z", "lexical", "matched", "in_time")


def fit(x: np.ndarray, y: np.ndarray, groups: np.ndarray, *, l2: float = 0.001, steps: int = 4000,
        lr: float = 0.3, mono: list[int] | None = None, bias: bool = True) -> np.ndarray:
    """Listwise softmax: for each question, the relevant candidates should take the probability
    mass of a softmax over its candidates (each question weighted equally; questions with no
    relevant candidate teach nothing). Full-batch gradient descent with momentum, numpy only; the
    `mono` features' weights (default: MONOTONE's) are kept at or above zero. `bias`: the last
    feature is the constant one, left out of the penalty."""
    keep = np.isin(groups, np.unique(groups[y > 0]))
    x, y, groups = x[keep], y[keep], groups[keep]
    uniq, g = np.unique(groups, return_inverse=True)
    target = y / np.bincount(g, weights=y)[g]  # each question's relevant candidates share mass 1
    w = np.zeros(x.shape[1])
    velocity = np.zeros_like(w)
    mono = [FEATURES.index(f) for f in MONOTONE] if mono is None else mono
    free = np.ones_like(w)
    if bias:
        free[-1] = 0.0
    for _ in range(steps):
        s = x @ w
        s = s - _group_max(s, g, len(uniq))[g]  # a stable softmax per question
        e = np.exp(s)
        p = e / np.bincount(g, weights=e)[g]
        grad = x.T @ (p - target) / len(uniq) + l2 * free * w
        velocity = 0.9 * velocity - lr * grad
        w += velocity
        w[mono] = np.maximum(w[mono], 0.0)
    return w


def _group_max(s: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    out = np.full(n, -np.inf)
    np.maximum.at(out, g, s)
    return out
