"""Per ablation: what removing the part costs, paired per case against the full skill.

The loss of a case is its with_skill pass rate minus its ablation-arm pass rate (cases graded in
both arms only). Over the cases: the mean loss, the sign-flip p and a bootstrap interval, and a
verdict that says no more than the numbers do:

- ``matters``: a significant loss (p <= 0.05): the removed part is doing work;
- ``removal-helps``: a significant gain: the skill does better without the part;
- ``no-measurable-effect``: not significant although enough cases were paired that a loss in
  every one of them would have been (at least MIN_NONZERO_CASES): absence of evidence at this n,
  not proof the part is useless;
- ``indeterminate``: too few paired cases for the test to reach significance at all.

Ablation arms never change the skill's own verdict or lift.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from skill_eval.model.ablation.parts import AblatedSkill
from skill_eval.model.cases import Case
from skill_eval.review.comparison.benchmark import MIN_NONZERO_CASES, SIGNIFICANCE, RunRecord
from skill_eval.stats import measures as stats

_EPS = 1e-12


def _case_rate(records: Sequence[RunRecord]) -> float | None:
    graded = [r for r in records if r.graded]
    return sum(r.passed for r in graded) / len(graded) if graded else None


def verdict(loss: float | None, p: float | None, paired: int) -> str:
    if loss is not None and p is not None and p <= SIGNIFICANCE:
        return "matters" if loss > 0 else "removal-helps"
    if paired < MIN_NONZERO_CASES:
        return "indeterminate"
    return "no-measurable-effect"


def ablation_block(cases: Sequence[Case], runs: Sequence[RunRecord], ablations: Sequence[AblatedSkill]
                   ) -> list[dict[str, Any]]:
    """One entry per ablation, in declaration order (schemas/benchmark.schema.json ``ablations``)."""
    by_arm: dict[str, dict[str, list[RunRecord]]] = defaultdict(lambda: defaultdict(list))
    for r in runs:
        by_arm[r.arm][r.case_id].append(r)
    full = by_arm["with_skill"]
    out = []
    for ablated in ablations:
        arm = [r for recs in by_arm[ablated.arm].values() for r in recs]
        rows, losses, rates, full_rates = [], [], [], []
        for case in (c for c in cases if ablated.runs_on(c.id)):
            w = _case_rate(full[case.id])
            a = _case_rate(by_arm[ablated.arm][case.id])
            loss = w - a if w is not None and a is not None else None
            if a is not None:
                rates.append(a)
            if loss is not None:
                losses.append(loss)
                full_rates.append(w)
            rows.append({"id": case.id, "with_skill": w, "ablation": a, "loss": loss})
        mean = sum(losses) / len(losses) if losses else None
        p = stats.sign_flip_p(losses) if losses else None
        out.append({
            "name": ablated.name, "variant": ablated.arm, "remove": list(ablated.remove),
            "runs": len(arm), "graded": sum(r.graded for r in arm), "errors": sum(r.errored for r in arm),
            "pass_rate": sum(rates) / len(rates) if rates else None,
            "with_skill_pass_rate": sum(full_rates) / len(full_rates) if full_rates else None,
            "loss": mean, "p_value": p,
            "ci95": list(stats.bootstrap_ci(losses)) if losses else None,
            "cases": len(losses), "nonzero_cases": sum(1 for d in losses if abs(d) > _EPS),
            "verdict": verdict(mean, p, len(losses)),
            "per_case": rows,
        })
    return out
