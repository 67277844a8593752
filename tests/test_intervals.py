"""Intervals clustered by case and honest at small n (skill_eval/stats/intervals.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.stats import intervals as iv


def test_z_quantile_is_the_normal_quantile():
    assert iv.z_quantile(0.975) == pytest.approx(1.959964, abs=1e-6)
    assert iv.z_quantile(0.8) == pytest.approx(0.841621, abs=1e-6)


def test_wilson_matches_the_published_formula():
    # Wilson (1927); the textbook example 0 of 10 gives [0, 0.2775], 5 of 10 [0.2366, 0.7634].
    lo, hi = iv.wilson(0.0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = iv.wilson(0.5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))


@given(st.integers(1, 200), st.data())
def test_wilson_never_collapses_and_holds_the_rate(n, data):
    k = data.draw(st.integers(0, n))
    lo, hi = iv.wilson(k / n, n)
    assert 0 <= lo <= k / n <= hi <= 1 and hi - lo > 0


def test_one_run_per_case_is_the_plain_wilson_interval_over_cases():
    rates = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    arm = iv.arm_interval(rates, runs=len(rates))
    assert arm["n_eff"] == len(rates)
    assert arm["ci95"] == list(iv.wilson(6 / 8, 8))


def test_iterations_of_a_case_are_not_independent_runs():
    """Three cases at 3/3 and three at 0/3: 18 runs, but the spread is between cases, so the
    interval is no narrower than six cases' (the naive 18-run Wilson interval is narrower)."""
    rates = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    arm = iv.arm_interval(rates, runs=18)
    naive = iv.wilson(0.5, 18)
    assert arm["n_eff"] == 6
    assert arm["ci95"][1] - arm["ci95"][0] > naive[1] - naive[0]
    assert arm["se_clustered"] == pytest.approx(math.sqrt(0.3) / math.sqrt(6))


@pytest.mark.parametrize(("df", "want"), [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228),
                                          (30, 2.042)])
def test_t_quantile_matches_the_tables(df, want):
    assert iv.t_quantile(0.975, df) == pytest.approx(want, abs=3e-3)


def test_three_cases_all_plus_100pp_do_not_report_certainty():
    """The bug this replaces: a bootstrap over three identical deltas said ci95 [1.0, 1.0]."""
    out = iv.lift_interval([1.0, 1.0, 1.0])
    assert out["ci95_bootstrap"] == [1.0, 1.0]
    lo, hi = out["ci95"]
    assert hi == 1.0 and lo < 0.0  # three cases cannot exclude "no effect" (sign-flip p = 0.25)
    six = iv.lift_interval([1.0] * 6)["ci95"]
    assert 0.5 < six[0] < 1.0  # six can (p = 1/32), and the interval says so


@settings(deadline=None, max_examples=40)  # each example bootstraps 10,000 resamples
@given(st.lists(st.sampled_from([-1.0, -0.5, 0.0, 1 / 3, 0.5, 2 / 3, 1.0]), min_size=1, max_size=30))
def test_the_lift_interval_holds_the_mean_and_never_collapses(deltas):
    lo, hi = iv.lift_interval(deltas)["ci95"]
    mean = sum(deltas) / len(deltas)
    assert -1 <= lo <= mean + 1e-12 and mean - 1e-12 <= hi <= 1 and hi - lo > 0


def test_the_lift_interval_follows_the_bootstrap_with_many_spread_cases():
    deltas = [1.0] * 20 + [0.0] * 60 + [-1.0] * 20
    out = iv.lift_interval(deltas)
    boot = out["ci95_bootstrap"]
    assert out["ci95"][1] - out["ci95"][0] < 1.2 * (boot[1] - boot[0])


def _holm_by_definition(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    m = len(ps)
    adj = {}
    for rank, i in enumerate(order):
        adj[i] = min(1.0, max((m - j) * ps[order[j]] for j in range(rank + 1)))
    return [adj[i] for i in range(m)]


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_p_holm_is_holms_step_down_procedure(ps):
    assert iv.holm(ps) == pytest.approx(_holm_by_definition(ps))


def test_p_holm_rejects_what_holm_rejects():
    ps = [0.01, 0.04, 0.03, 0.005]
    # Holm at 0.05: sorted 0.005*4=0.02 ok, 0.01*3=0.03 ok, 0.03*2=0.06 stop.
    assert [p <= 0.05 for p in iv.holm(ps)] == [True, False, False, True]
    assert iv.holm([0.2, None, 0.01]) == [pytest.approx(0.2), None, pytest.approx(0.02)]
