from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.stats import measures as stats

deltas_st = st.lists(st.sampled_from([-1.0, -2 / 3, -0.5, -1 / 3, 0.0, 1 / 3, 0.5, 2 / 3, 1.0]),
                     min_size=1, max_size=12)


def test_sign_flip_hand_computed():
    assert stats.sign_flip_p([1, 1, 1, 1, 1, 1]) == pytest.approx(0.03125)
    assert stats.sign_flip_p([1, 0, 2 / 3, 0]) == pytest.approx(0.5)
    assert stats.sign_flip_p([0, 0, 0]) == 1.0
    assert stats.sign_flip_p([]) == 1.0
    assert stats.sign_flip_p([1] * 5) == pytest.approx(0.0625)  # cannot reach 0.05 with 5 cases


def test_sign_flip_matches_brute_force():
    deltas = [1, -1 / 3, 2 / 3, 0.5, 1, 0, -1, 1 / 3]
    nonzero = [d for d in deltas if d]
    obs = abs(sum(nonzero))
    hits = sum(abs(sum(s * d for s, d in zip(signs, nonzero, strict=True))) >= obs - 1e-12
               for signs in itertools.product((1, -1), repeat=len(nonzero)))
    assert stats.sign_flip_p(deltas) == pytest.approx(hits / 2 ** len(nonzero))


def test_monte_carlo_above_twenty_is_seeded_and_close():
    deltas = [1.0] * 18 + [-1.0] * 7  # 25 non-zero: Monte Carlo
    p1, p2 = stats.sign_flip_p(deltas), stats.sign_flip_p(deltas)
    assert p1 == p2
    exact = sum(math.comb(25, k) for k in range(26) if abs(25 - 2 * k) >= 11) / 2 ** 25
    assert p1 == pytest.approx(exact, abs=0.003)


@settings(max_examples=60, deadline=None)
@given(deltas_st)
def test_p_in_unit_interval_and_sign_symmetric(deltas):
    p = stats.sign_flip_p(deltas)
    assert 0.0 < p <= 1.0
    assert stats.sign_flip_p([-d for d in deltas]) == pytest.approx(p)


@settings(max_examples=40, deadline=None)
@given(deltas_st)
def test_bootstrap_ci_contains_observed_mean(deltas):
    lo, hi = stats.bootstrap_ci(deltas, n=500)
    mean = sum(deltas) / len(deltas)
    assert lo <= mean <= hi
    assert -1.0 <= lo <= hi <= 1.0


def test_bootstrap_is_seeded():
    d = [1, 0, 0.5, -0.25, 1, 1, 0]
    assert stats.bootstrap_ci(d) == stats.bootstrap_ci(d)
    assert stats.bootstrap_ci([0.5]) == (0.5, 0.5)
    assert stats.bootstrap_ci([]) == (0.0, 0.0)


def _bootstrap_one_call_per_resample(deltas, seed, n):
    """The interval as first written: one choices() call per resample."""
    import random

    rng, k = random.Random(seed), len(deltas)
    means = sorted(sum(rng.choices(deltas, k=k)) / k for _ in range(n))
    mean, alpha = sum(deltas) / k, (1 - 0.95) / 2
    return (min(stats._quantile(means, alpha), mean), max(stats._quantile(means, 1 - alpha), mean))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([-1.0, -2 / 3, -0.5, 0.0, 1 / 3, 0.5, 1.0]), min_size=2, max_size=12),
       st.integers(0, 3), st.integers(1, 700), st.sampled_from([7, 64, 1 << 20]))
def test_bootstrap_draws_in_blocks_give_the_same_interval_bit_for_bit(deltas, seed, n, block):
    if min(deltas) == max(deltas):
        return
    saved, stats._BLOCK = stats._BLOCK, block  # small blocks: many calls, a partial last one
    try:
        assert stats.bootstrap_ci(deltas, seed=seed, n=n) == _bootstrap_one_call_per_resample(deltas, seed, n)
    finally:
        stats._BLOCK = saved


def test_bootstrap_intervals_as_released():
    # Computed by the per-resample version of 32c23ce: tables made then read the same now.
    assert stats.bootstrap_ci([1, 0, 0.5, -0.25, 1, 1, 0]) == (0.07142857142857142, 0.8571428571428571)
    assert stats.bootstrap_ci([1 / 3, -2 / 3, 0.5, 1, 0, 0, 1 / 3, 2 / 3, -1, 1, 0.5], seed=7, n=2500) == (
        -0.10606060606060605, 0.5757575757575757)


def test_pass_at_k_and_pass_hat_k():
    assert stats.pass_at_k(10, 3, 5) == pytest.approx(0.916667, abs=1e-6)
    assert stats.pass_hat_k(10, 3, 2) == pytest.approx(1 / 15)
    assert stats.pass_at_k(3, 0, 3) == 0.0 and stats.pass_at_k(3, 1, 3) == 1.0
    assert stats.pass_hat_k(3, 3, 3) == 1.0 and stats.pass_hat_k(3, 2, 3) == 0.0
    assert stats.pass_at_k(4, 2, 1) == pytest.approx(0.5) == stats.pass_hat_k(4, 2, 1)
    with pytest.raises(ValueError):
        stats.pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        stats.pass_hat_k(3, 1, 0)


def test_median_and_p95():
    assert stats.median([3, 1, 2]) == 2
    assert stats.median([]) is None
    assert stats.p95(list(range(1, 101))) == pytest.approx(95.05)
    assert stats.p95([7.0]) == 7.0
    assert stats.p95([]) is None
