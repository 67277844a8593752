"""`run --until-decided` simulated: how often it passes a skill whose true lift is only the
minimum (must be at most alpha), and how many runs it spends against the fixed design.

Each simulated suite has K cases with known pass probabilities: the without-skill rate of each
case is drawn uniformly from [0.05, 0.55] and the with-skill rate is that plus the true lift, so
the suite's true lift (the mean over cases of the difference) is exactly the lift asked for.
Runs are Bernoulli draws. The rule is the one `run --until-decided` uses
(skill_eval.stats.sequential.decide): start with ITER iterations, look after every further one,
stop at the first pass or fail, or at MAX iterations (undecided). The fixed design runs MAX
iterations for every case.

    python benchmarks/bench_until_decided.py [SUITES] [--cases K] [--iterations I] [--max-iterations M]
"""

from __future__ import annotations

import argparse
import random
import time

from skill_eval.stats.intervals import wilson
from skill_eval.stats.sequential import decide


def simulate(rng: random.Random, lift: float, k: int, start: int, top: int, minimum: float,
             alpha: float) -> tuple[str, int]:
    base = [rng.uniform(0.05, 0.55) for _ in range(k)]
    rows = [[float(rng.random() < p + lift) - float(rng.random() < p) for p in base] for _ in range(top)]
    d = decide(rows, minimum, alpha, first_look=start)
    return d.decision, 2 * k * d.rounds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suites", type=int, nargs="?", default=10_000)
    ap.add_argument("--cases", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--max-iterations", type=int, default=10)
    ap.add_argument("--minimum", type=float, default=0.1)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    fixed = 2 * a.cases * a.max_iterations
    print(f"{a.suites:,} simulated suites per row: {a.cases} cases, start {a.iterations} iterations, "
          f"max {a.max_iterations}, minimum_lift {a.minimum:+.2f}, alpha {a.alpha}; fixed design "
          f"{fixed} runs per suite")
    print(f"{'true lift':>14} {'pass':>7} {'fail':>7} {'undecided':>10} {'mean runs':>10} "
          f"{'vs fixed':>9} {'saved':>7}")
    started = time.monotonic()
    rows: dict[float, dict[str, float]] = {}
    lifts = sorted({0.0, 0.1, 0.2, 0.4, 0.6, a.minimum})
    for lift in lifts:
        rng = random.Random(f"{a.seed}:{lift}")
        counts = {"pass": 0, "fail": 0, "undecided": 0}
        runs = 0
        for _ in range(a.suites):
            decision, used = simulate(rng, lift, a.cases, a.iterations, a.max_iterations, a.minimum, a.alpha)
            counts[decision] += 1
            runs += used
        mean = runs / a.suites
        rows[lift] = {**counts, "mean": mean}
        label = f"{lift * 100:+.0f} pp" + (" (=min)" if lift == a.minimum else "")
        print(f"{label:>14} {counts['pass'] / a.suites:7.1%} {counts['fail'] / a.suites:7.1%} "
              f"{counts['undecided'] / a.suites:10.1%} {mean:10.1f} {mean / fixed:9.1%} "
              f"{1 - mean / fixed:7.1%}")
    false = rows[a.minimum]["pass"]
    lo, hi = wilson(false / a.suites, a.suites)
    verdict = "within" if hi <= a.alpha or false / a.suites <= a.alpha else "ABOVE"
    print(f"\nFalse-pass rate at true lift = minimum ({a.minimum * 100:+.0f} pp): {false / a.suites:.4f} "
          f"({int(false)} of {a.suites:,}; 95% Wilson interval [{lo:.4f}, {hi:.4f}]): {verdict} alpha = "
          f"{a.alpha}")
    print(f"({time.monotonic() - started:.1f}s)")


if __name__ == "__main__":
    main()
