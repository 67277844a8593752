"""Several skill x model comparisons in one suite: Holm-adjusted p-values beside every p, and
`gate: holm`, where a minimum lift counts as met only when it is also significant after the
adjustment (docs/statistics.md). Suite-level, so it runs where the summary is built."""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Any

from skill_eval.review.comparison.benchmark import SIGNIFICANCE
from skill_eval.review.comparison.verdict import settle
from skill_eval.stats.intervals import holm

_EPS = 1e-12


def adjust(benches: Sequence[MutableMapping[str, Any]], gate: str) -> list[int]:
    """Set ``lift.p_holm`` (when more than one comparison has a p, or the gate asks for it) and,
    under ``gate: holm``, ``lift.met`` and the verdict. Returns the indexes of benches changed."""
    ps = [b["lift"].get("p_value") for b in benches]
    wanted = gate == "holm" or sum(p is not None for p in ps) > 1
    adjusted = holm(ps) if wanted else [None] * len(benches)
    changed = []
    for i, (b, p_holm) in enumerate(zip(benches, adjusted, strict=True)):
        lift = b["lift"]
        before = (lift.get("p_holm"), lift.get("met"), b["verdict"], b.get("decided_by"))
        if p_holm is None:
            lift.pop("p_holm", None)
        else:
            lift["p_holm"] = p_holm
        if gate == "holm" and lift.get("minimum_lift") is not None:
            mean = lift.get("pass_rate")
            lift["met"] = (mean is not None and mean >= lift["minimum_lift"] - _EPS
                           and p_holm is not None and p_holm <= SIGNIFICANCE)
            settle(b, gate)
        elif gate == "decided":  # the lift's own p decides; a lift not yet significant is undecided
            settle(b, gate)
        if (lift.get("p_holm"), lift.get("met"), b["verdict"], b.get("decided_by")) != before:
            changed.append(i)
    return changed
