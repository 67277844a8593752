"""The sequential decision rule of `run --until-decided` (docs/statistics.md): an anytime-valid
confidence sequence for the suite's mean paired per-case difference.

Data: rounds. Round r holds, for every case in a fixed order, x = pass(with) - pass(without) of
that case's iteration r, in {-1, 0, 1}; its mean over the cases' true rates is the lift D. The
sequence is the predictable-plug-in empirical-Bernstein confidence sequence of Waudby-Smith &
Ramdas (2024, JRSS-B, "Estimating means of bounded random variables by betting", Thm. 2), on
z = (x + 1) / 2 in [0, 1], with two choices made for this design:

- the bet lambda is fixed for a whole round (chosen from earlier rounds only), so at the end
  of each round the lambda-weighted mean of the observations' conditional means is D itself
  although the cases' own rates differ (the bound holds for any predictable lambda in [0, 1));
- each observation's centre is its own case's running mean of earlier rounds (any predictable
  centre keeps the supermartingale, Fan et al. 2015), so the variance the interval pays for is
  the variation within cases, not the spread between them.

Each bound is a one-sided confidence sequence at level alpha: by Ville's inequality the lower
bound stays below D at every round at once with probability at least 1 - alpha, so stopping at
a data-dependent round (optional stopping) keeps it, and a false pass (D at or below the
minimum, lower bound above it) happens at most alpha of the time; likewise a false fail with
the upper bound. Together the two bounds form a (1 - 2 alpha) interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MAX_BET = 0.5  # Waudby-Smith & Ramdas's truncation c = 1/2


@dataclass(frozen=True)
class Look:
    round: int  # the rounds (iterations per case) seen at this look
    lower: float  # the running intersection of the intervals so far, on the lift's scale
    upper: float


@dataclass(frozen=True)
class Decision:
    decision: str  # "pass" | "fail" | "undecided"
    looks: tuple[Look, ...]  # the looks taken, up to and including the deciding one
    rounds: int  # rounds used by the decision (the one it was reached at, or all there were)


def _psi(lam: float) -> float:
    return -math.log1p(-lam) - lam


def confidence_sequence(rounds: Sequence[Sequence[float]], alpha: float = 0.05) -> list[tuple[float, float]]:
    """The bounds for D after each round, each a one-sided level-alpha confidence sequence
    (a running intersection, in [-1, 1]). Every round lists the same cases in the same order."""
    if not rounds:
        return []
    k = len(rounds[0])
    log_term = math.log(1 / alpha)
    case_sums = [0.0] * k
    seen = 0  # observations so far
    sq = 0.0  # sum of squared deviations from the predictions
    weighted = bets = penalty = 0.0
    lo, hi = -1.0, 1.0
    out = []
    for r, row in enumerate(rounds):
        if len(row) != k:
            raise ValueError(f"round {r + 1} has {len(row)} cases, the first had {k}")
        variance = (0.25 + sq) / (seen + 1)
        t = seen + k
        lam = min(math.sqrt(2 * log_term / (variance * t * math.log1p(t))), MAX_BET)
        for c, x in enumerate(row):
            z = (float(x) + 1) / 2
            centre = (0.5 + case_sums[c]) / (r + 1)
            dev = (z - centre) ** 2
            weighted += lam * z
            bets += lam
            penalty += _psi(lam) * dev
            sq += dev
            case_sums[c] += z
        seen = t
        margin = (log_term + penalty) / bets
        lo = max(lo, 2 * (weighted / bets - margin) - 1)
        hi = min(hi, 2 * (weighted / bets + margin) - 1)
        out.append((max(-1.0, lo), min(1.0, hi)))
    return out


def decide(rounds: Sequence[Sequence[float]], minimum: float, alpha: float = 0.05,
           first_look: int = 1) -> Decision:
    """pass when the interval lies wholly above ``minimum``, fail when wholly below, at the
    first look (after round ``first_look``, then every round) where either holds."""
    looks = []
    for r, (lo, hi) in enumerate(confidence_sequence(rounds, alpha), start=1):
        if r < first_look:
            continue
        looks.append(Look(r, lo, hi))
        if lo > minimum:
            return Decision("pass", tuple(looks), r)
        if hi < minimum:
            return Decision("fail", tuple(looks), r)
    return Decision("undecided", tuple(looks), len(rounds))
