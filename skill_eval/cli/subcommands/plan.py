"""`skill-eval plan SUITE --lift L`: cases, runs and cost needed to detect a lift (runs nothing)."""

from __future__ import annotations

import argparse
import json

from skill_eval.review.render.markdown import pct, plural, signed


def cmd_plan(args: argparse.Namespace) -> int:
    from skill_eval.model.config import load_suite
    from skill_eval.review.comparison.planning import read_benches, suite_plan

    suite = load_suite(args.suite)
    benches = read_benches(suite.results, suite.name)
    plan = suite_plan(benches, args.lift, args.power, args.alpha, suite.iterations, len(suite.arms))
    if args.json:
        print(json.dumps(plan, indent=2, sort_keys=True))
        return 0
    print(f"To detect a lift of {signed(args.lift)} with power {pct(args.power)} at alpha {args.alpha:g} "
          f"(two-sided, paired over cases): {plan['formula']}")
    for row in plan["comparisons"]:
        who = f"{row['skill']} [{row['model']}]" if row["skill"] else suite.name
        cost = "cost unknown (no stored price)" if row["cost_usd_estimate"] is None else \
            f"about ${row['cost_usd_estimate']:.2f}"
        print(f"  {who}: sigma_d {row['sigma_d']:.3f} ({row['sigma_source']}); "
              f"{plural(row['cases_needed'], 'case')} needed, {row['cases_now']} now; "
              f"{plural(row['runs_needed'], 'run')} at {row['iterations']} iterations, {cost}")
        if row["note"]:
            print(f"    note: {row['note']}")
    return 0
