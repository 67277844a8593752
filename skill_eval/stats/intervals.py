"""Intervals that respect clustering and stay honest at small n (docs/statistics.md).

A suite's runs are clustered by case: the iterations of one case share its prompt and checks,
so they are not independent draws. Every figure here treats the case as the unit (each case
weighs one, as the pass rate does) and never reports a zero-width interval from a handful of
cases.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from skill_eval.stats.measures import bootstrap_ci

LEVEL = 0.95


def z_quantile(q: float) -> float:
    """The standard normal quantile (no scipy: the standard library's NormalDist)."""
    return statistics.NormalDist().inv_cdf(q)


def _z(level: float) -> float:
    return z_quantile(1 - (1 - level) / 2)


def wilson(p: float, n: float, level: float = LEVEL) -> tuple[float, float]:
    """Wilson (1927) score interval for a proportion ``p`` observed over ``n`` (possibly an
    effective, non-integer n). Never zero-width for n > 0, even at p = 0 or 1."""
    if n <= 0:
        return (0.0, 1.0)
    z = _z(level)
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    # Rounding must not leave the observed rate outside its own interval (p = 1 gives hi 1).
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def clustered_se(values: Sequence[float]) -> float | None:
    """Standard error of a mean over clusters, one value per cluster (each weighs one): the
    sample standard deviation of the cluster values over sqrt(k). None below two clusters."""
    if len(values) < 2:
        return None
    return statistics.stdev(values) / math.sqrt(len(values))


def arm_interval(case_rates: Sequence[float], runs: int, level: float = LEVEL) -> dict[str, float | None]:
    """An arm's pass rate (mean over cases of each case's rate) with its case-clustered
    standard error and a Wilson interval at the effective sample size (Kish's design effect:
    n_eff = p(1-p)/SE², kept between the number of cases and the number of runs). With one run
    per case this is the plain Wilson interval over the cases."""
    k = len(case_rates)
    if not k:
        return {"se_clustered": None, "n_eff": None, "ci95": None}
    p = sum(case_rates) / k
    se = clustered_se(case_rates)
    runs = max(runs, k)
    if se is None or se <= 0 or p in (0.0, 1.0):
        # Every case at the same rate: the clustered SE is zero, which is no evidence of zero
        # spread from a few cases; the runs themselves are the most a sample can say.
        n_eff = float(runs) if se == 0 or p in (0.0, 1.0) else float(k)
    else:
        n_eff = min(float(runs), max(float(k), p * (1 - p) / (se * se)))
    lo, hi = wilson(p, n_eff, level)
    return {"se_clustered": se, "n_eff": n_eff, "ci95": [lo, hi]}


def t_quantile(q: float, df: int) -> float:
    """Student's t quantile: exact for 1 and 2 degrees of freedom, else the Cornish-Fisher
    expansion in 1/df to the fifth term (Abramowitz & Stegun 26.7.5; within 0.003 of the
    tables from df = 3 at the usual levels)."""
    if df == 1:
        return math.tan(math.pi * (q - 0.5))
    if df == 2:
        a = 2 * q - 1
        return a * math.sqrt(2 / (1 - a * a))
    z = z_quantile(q)
    terms = ((z ** 3 + z) / 4, (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
             (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
             (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160,
             (27 * z ** 11 + 339 * z ** 9 + 930 * z ** 7 - 1782 * z ** 5 - 765 * z ** 3 + 17955 * z)
             / 368640)
    return z + sum(t / df ** (i + 1) for i, t in enumerate(terms))


PRIOR_DELTA_VARIANCE = 0.5  # a per-case delta of +1, 0 or -1 with chances 1/4, 1/2, 1/4


def floored_t_interval(values: Sequence[float], level: float = LEVEL) -> tuple[float, float]:
    """A Student-t interval for the mean of per-case deltas in [-1, 1] whose variance holds one
    pseudo-case of prior variance: s² = (sum of squared deviations + 0.5) / n. Where the cases
    spread it is the t interval; where they all moved alike it stays as wide as a few cases
    warrant: three cases at +100 pp give [-0.01, 1.0], not [1.0, 1.0]."""
    n = len(values)
    if not n:
        return (-1.0, 1.0)
    mean = sum(values) / n
    var = (sum((v - mean) ** 2 for v in values) + PRIOR_DELTA_VARIANCE) / n
    half = t_quantile(1 - (1 - level) / 2, max(1, n - 1)) * math.sqrt(var / n)
    return (max(-1.0, mean - half), min(1.0, mean + half))


def lift_interval(deltas: Sequence[float], level: float = LEVEL) -> dict[str, object]:
    """The lift's interval: the hull of the seeded percentile bootstrap over cases and the
    floored t interval above, so it holds the observed mean, is no narrower than the t interval
    at small n (where the bootstrap is too narrow), and stays wide where a few identical deltas
    are all there is."""
    values = [float(d) for d in deltas]
    boot = bootstrap_ci(values, level=level)
    guard = floored_t_interval(values, level=level)
    return {"ci95": [min(boot[0], guard[0]), max(boot[1], guard[1])],
            "ci95_bootstrap": list(boot), "se_clustered": clustered_se(values)}


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's (1979) step-down adjusted p-values, in the input's order (None stays None and
    does not count as a hypothesis): p_(i) x (m - i + 1), running maximum, capped at 1."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(indexed)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, p * (m - rank)))
        out[i] = running
    return out
