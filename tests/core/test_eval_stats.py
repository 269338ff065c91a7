"""Known-value tests for memoir_desktop.eval.stats (values worked out by hand in the comments)."""

import math
import random

import pytest

from memoir_desktop.eval.stats import (
    bleu1,
    mean_ci,
    normalize_answer,
    percentile,
    token_f1,
    wilson_interval,
)

# ---------------------------------------------------------------- wilson_interval


def test_wilson_8_of_10():
    # p=0.8, z^2/n=0.38416, denom=1.38416, centre=(0.8+0.19208)/1.38416=0.71674,
    # half=1.96*sqrt(0.016+0.009604)/1.38416=0.22657 -> (0.4902, 0.9433)
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4)
    assert hi == pytest.approx(0.9433, abs=1e-4)


def test_wilson_extremes_stay_in_unit_interval():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0
    # upper = z^2/n / (1 + z^2/n) = 0.38416 / 1.38416
    assert hi == pytest.approx(0.38416 / 1.38416, abs=1e-9)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0
    assert lo == pytest.approx(1 - 0.38416 / 1.38416, abs=1e-9)


def test_wilson_empty_and_symmetry():
    assert wilson_interval(0, 0) == (0.0, 0.0)
    lo, hi = wilson_interval(50, 100)
    assert (lo + hi) / 2 == pytest.approx(0.5)
    assert lo == pytest.approx(0.4038, abs=1e-4)
    a_lo, a_hi = wilson_interval(3, 20)
    b_lo, b_hi = wilson_interval(17, 20)
    assert a_lo == pytest.approx(1 - b_hi)
    assert a_hi == pytest.approx(1 - b_lo)


def test_wilson_z_changes_width():
    lo95, hi95 = wilson_interval(30, 60)
    lo99, hi99 = wilson_interval(30, 60, z=2.576)
    assert lo99 < lo95 < hi95 < hi99


def test_wilson_rejects_bad_counts():
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    with pytest.raises(ValueError):
        wilson_interval(-1, 10)


# ---------------------------------------------------------------- mean_ci


def test_mean_ci_known_value():
    # mean 2.5, sample var = (2.25+0.25+0.25+2.25)/3 = 5/3, s = 1.29099, half = 1.96*s/2 = 1.26517
    mean, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == pytest.approx(2.5)
    assert lo == pytest.approx(2.5 - 1.96 * math.sqrt(5 / 3) / 2)
    assert hi == pytest.approx(1.26517 + 2.5, abs=1e-5)


def test_mean_ci_small_inputs():
    assert mean_ci([]) == (0.0, 0.0, 0.0)
    assert mean_ci([0.7]) == (0.7, 0.7, 0.7)
    assert mean_ci([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)


def test_mean_ci_matches_numpy():
    np = pytest.importorskip("numpy")
    rng = random.Random(7)
    vals = [rng.random() for _ in range(57)]
    mean, lo, hi = mean_ci(vals, z=1.0)
    half = np.std(vals, ddof=1) / math.sqrt(len(vals))
    assert mean == pytest.approx(float(np.mean(vals)))
    assert lo == pytest.approx(float(np.mean(vals) - half))
    assert hi == pytest.approx(float(np.mean(vals) + half))


# ---------------------------------------------------------------- normalize_answer


def test_normalize_answer_squad_rules():
    assert normalize_answer("The  Cat, sat!") == "cat sat"
    assert normalize_answer("An apple a day") == "apple day"
    # articles only as whole words
    assert normalize_answer("Theatre and anatomy") == "theatre and anatomy"
    # punctuation is deleted, not replaced by a space (SQuAD behaviour)
    assert normalize_answer("don't") == "dont"
    assert normalize_answer("") == ""


def test_normalize_answer_korean():
    assert normalize_answer("  2025년 8월 16일.  ") == "2025년 8월 16일"
    assert normalize_answer("「디카페인」… 라떼!") == "디카페인 라떼"


# ---------------------------------------------------------------- token_f1


def test_token_f1_hand_example():
    # pred [cat, sat], gold [cat, sat, down] -> P=1, R=2/3, F1=0.8
    assert token_f1("the cat sat", "a cat sat down") == pytest.approx(0.8)


def test_token_f1_multiset_overlap():
    # pred [cat, cat, cat], gold [cat, dog] -> overlap 1, P=1/3, R=1/2, F1=2*(1/6)/(5/6)=0.4
    assert token_f1("cat cat cat", "cat dog") == pytest.approx(0.4)
    assert token_f1("성수동으로 이사", "성수동으로 이사") == 1.0
    assert token_f1("부산", "대전") == 0.0


def test_token_f1_empty_cases():
    assert token_f1("", "") == 1.0
    assert token_f1("the", "a") == 1.0  # both normalise to nothing
    assert token_f1("", "cat") == 0.0
    assert token_f1("cat", "") == 0.0


# ---------------------------------------------------------------- bleu1


def test_bleu1_brevity_penalty():
    # pred [cat, sat] c=2, gold [cat, sat, down] r=3: precision 1, BP=exp(1-3/2)=exp(-0.5)=0.60653
    assert bleu1("the cat sat", "a cat sat down") == pytest.approx(math.exp(-0.5))
    assert bleu1("the cat sat", "a cat sat down") == pytest.approx(0.60653, abs=1e-5)


def test_bleu1_clipping_and_no_penalty_when_longer():
    # pred [cat x4] c=4 > r=2 -> BP=1; clipped count min(4,1)=1 -> 1/4
    assert bleu1("cat cat cat cat", "cat dog") == pytest.approx(0.25)
    # equal length, exact -> BP=exp(0)=1
    assert bleu1("디카페인 라떼", "디카페인 라떼") == pytest.approx(1.0)


def test_bleu1_empty_cases():
    assert bleu1("", "cat") == 0.0
    assert bleu1("the", "cat") == 0.0
    assert bleu1("cat", "") == 0.0
    assert bleu1("dog", "cat") == 0.0


# ---------------------------------------------------------------- percentile


def test_percentile_hand_values():
    assert percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert percentile([1, 2, 3, 4], 25) == pytest.approx(1.75)
    assert percentile([10, 1, 5], 0) == 1.0
    assert percentile([10, 1, 5], 100) == 10.0
    assert percentile([42.0], 90) == 42.0
    assert percentile([], 50) == 0.0


def test_percentile_rejects_out_of_range():
    with pytest.raises(ValueError):
        percentile([1, 2], 101)
    with pytest.raises(ValueError):
        percentile([1, 2], -1)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_percentile_matches_numpy(seed):
    np = pytest.importorskip("numpy")
    rng = random.Random(seed)
    vals = [rng.gauss(0, 10) for _ in range(rng.randint(2, 200))]
    for p in (0, 1, 5, 12.5, 25, 50, 75, 90, 95, 99, 99.9, 100):
        assert percentile(vals, p) == pytest.approx(float(np.percentile(vals, p)), rel=1e-12, abs=1e-12)
