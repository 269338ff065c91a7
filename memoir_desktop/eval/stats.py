"""Small, dependency-free statistics and answer-matching helpers for the evaluation harness.

Everything here is pure Python (stdlib only) so it can run anywhere the app runs.  Each function's
docstring names the definition it follows, so scores stay comparable with published numbers.
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence

from memoir_desktop.core.metrics import percentile  # one implementation for the app and the evaluation

__all__ = [
    "bleu1",
    "mean_ci",
    "normalize_answer",
    "percentile",
    "token_f1",
    "wilson_interval",
]


def wilson_interval(correct: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``correct / total``.

    Definition (Wilson, 1927)::

        p      = correct / total
        denom  = 1 + z**2 / n
        centre = (p + z**2 / (2n)) / denom
        half   = z * sqrt(p(1-p)/n + z**2 / (4n**2)) / denom
        CI     = (centre - half, centre + half)

    ``z = 1.96`` gives the usual two-sided 95% interval.  Unlike the normal ("Wald") interval it
    behaves well for small ``n`` and for proportions near 0 or 1, and it never leaves ``[0, 1]``.
    ``total == 0`` returns ``(0.0, 0.0)``.
    """
    if total < 0 or correct < 0 or correct > total:
        raise ValueError(f"need 0 <= correct <= total, got correct={correct}, total={total}")
    if total == 0:
        return (0.0, 0.0)
    n = float(total)
    p = correct / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean with a normal-approximation confidence interval: ``(mean, low, high)``.

    ``half = z * s / sqrt(n)`` where ``s`` is the *sample* standard deviation (``ddof=1``, i.e.
    divided by ``n - 1``).  With fewer than two values there is no spread estimate, so the interval
    collapses to ``(mean, mean, mean)``; an empty input gives ``(0.0, 0.0, 0.0)``.
    """
    vals = [float(v) for v in values]
    n = len(vals)
    if n == 0:
        return (0.0, 0.0, 0.0)
    mean = math.fsum(vals) / n
    if n < 2:
        return (mean, mean, mean)
    var = math.fsum((v - mean) ** 2 for v in vals) / (n - 1)
    half = z * math.sqrt(var) / math.sqrt(n)
    return (mean, mean - half, mean + half)


_ARTICLES = re.compile(r"\b(a|an|the)\b", flags=re.UNICODE)
_ASCII_PUNCT = frozenset(string.punctuation)


def _is_punct(ch: str) -> bool:
    return ch in _ASCII_PUNCT or unicodedata.category(ch).startswith("P")


def normalize_answer(s: str) -> str:
    """SQuAD v1.1 ``normalize_answer`` (also used by LoCoMo's QA scorer).

    Steps, in the official order: lowercase -> remove punctuation -> remove the English articles
    ``a`` / ``an`` / ``the`` -> collapse whitespace.  One extension for Korean and other non-ASCII
    text: besides ``string.punctuation`` we also drop every Unicode punctuation character
    (category ``P*``, e.g. ``…``, ``·``, ``「」``).  As in SQuAD, punctuation is deleted, not
    replaced with a space.
    """
    s = (s or "").lower()
    s = "".join(ch for ch in s if not _is_punct(ch))
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD-style token F1 between ``prediction`` and ``gold``.

    Both strings go through :func:`normalize_answer` and are split on whitespace.  The overlap is
    the multiset intersection of the two token bags; ``precision = overlap / len(pred)``,
    ``recall = overlap / len(gold)``, ``F1 = 2PR / (P + R)``.  If both token lists are empty the
    answers agree (1.0); if exactly one is empty the score is 0.0.
    """
    pred_toks = normalize_answer(prediction).split()
    gold_toks = normalize_answer(gold).split()
    if not pred_toks and not gold_toks:
        return 1.0
    if not pred_toks or not gold_toks:
        return 0.0
    overlap = sum((Counter(pred_toks) & Counter(gold_toks)).values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(pred_toks)
    recall = overlap / len(gold_toks)
    return 2.0 * precision * recall / (precision + recall)


def bleu1(prediction: str, gold: str) -> float:
    """Sentence-level BLEU-1 (Papineni et al., 2002) with a single reference.

    Tokens come from :func:`normalize_answer`.  The score is the *clipped* unigram precision (each
    predicted token counts at most as often as it occurs in the reference) times the brevity
    penalty ``BP = 1 if c > r else exp(1 - r / c)``, with ``c`` the prediction length and ``r`` the
    reference length.  No smoothing.  An empty prediction scores 0.0, as does a non-empty
    prediction against an empty reference.
    """
    pred_toks = normalize_answer(prediction).split()
    gold_toks = normalize_answer(gold).split()
    if not pred_toks or not gold_toks:
        return 0.0
    gold_counts = Counter(gold_toks)
    clipped = sum(min(cnt, gold_counts[tok]) for tok, cnt in Counter(pred_toks).items())
    precision = clipped / len(pred_toks)
    if precision == 0.0:
        return 0.0
    c, r = len(pred_toks), len(gold_toks)
    bp = 1.0 if c > r else math.exp(1.0 - r / c)
    return bp * precision
