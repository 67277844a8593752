"""cases_needed (skill_eval/stats/power.py): the paired-design sample-size formula."""

from __future__ import annotations

import math
import statistics

import pytest

from skill_eval.stats.power import cases_needed


def test_cases_needed_is_the_formula():
    z = statistics.NormalDist().inv_cdf
    for sigma, lift, power, alpha in [(0.5, 0.1, 0.8, 0.05), (0.3, 0.2, 0.9, 0.01), (0.7, 0.05, 0.8, 0.05)]:
        want = math.ceil(((z(1 - alpha / 2) + z(power)) * sigma / lift) ** 2)
        assert cases_needed(sigma, lift, power, alpha) == want
    assert cases_needed(0.5, 0.1) == 197  # (1.95996 + 0.84162)^2 * 25 = 196.2


def test_impossible_targets_are_refused():
    with pytest.raises(ValueError):
        cases_needed(0.5, 0.0)
    with pytest.raises(ValueError):
        cases_needed(0.5, 0.1, power=1.0)
