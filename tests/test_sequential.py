"""The sequential decision rule (skill_eval/stats/sequential.py): valid under optional stopping."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.stats.sequential import confidence_sequence, decide


def _suite(rng, lift, k=8, rounds=12):
    base = [0.2 + 0.5 * c / k for c in range(k)]
    with_ = [min(1.0, p + lift) for p in base]
    return [[float(rng.random() < with_[c]) - float(rng.random() < base[c]) for c in range(k)]
            for _ in range(rounds)]


@given(st.lists(st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=3, max_size=3), min_size=1, max_size=15))
def test_the_intervals_are_nested_and_bounded(rounds):
    seq = confidence_sequence(rounds)
    assert len(seq) == len(rounds)
    for (lo0, hi0), (lo1, hi1) in zip(seq, seq[1:], strict=False):
        assert lo0 <= lo1 and hi1 <= hi0
    assert all(-1 <= lo <= hi <= 1 for lo, hi in seq)


@settings(deadline=None)
@given(st.integers(0, 10_000))
def test_a_pass_needs_the_whole_interval_above_the_minimum(seed):
    rows = _suite(random.Random(seed), 0.5)
    d = decide(rows, 0.1, first_look=3)
    if d.decision == "pass":
        assert d.looks[-1].lower > 0.1 and all(look.lower <= 0.1 for look in d.looks[:-1])
        assert d.looks[0].round == 3 and d.rounds == d.looks[-1].round


def test_false_pass_rate_under_optional_stopping_is_at_most_alpha():
    """True lift exactly at the minimum, a look after every round, stop at the first pass:
    a pass is a false pass. The rule promises at most alpha."""
    rng = random.Random(7)
    reps = 400
    false = sum(decide(_suite(rng, 0.1), 0.1, alpha=0.05, first_look=1).decision == "pass"
                for _ in range(reps))
    assert false / reps <= 0.05


def test_a_large_lift_passes_and_a_negative_one_fails_early():
    rng = random.Random(3)
    big = decide(_suite(rng, 0.7, k=10), 0.1, first_look=3)
    assert big.decision == "pass" and big.rounds <= 6
    worse = decide([[-1.0] * 10] * 12, 0.1, first_look=3)
    assert worse.decision == "fail"


def test_too_few_observations_stay_undecided():
    d = decide([[1.0, 1.0]] * 3, 0.1, first_look=3)
    assert d.decision == "undecided" and d.rounds == 3 and len(d.looks) == 1


def test_every_round_must_have_every_case():
    with pytest.raises(ValueError, match="round 2"):
        confidence_sequence([[1.0, 0.0], [1.0]])
