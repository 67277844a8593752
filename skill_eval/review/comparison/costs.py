"""What runs cost: tokens (as billed, summed over the additive fields) and dollars per arm, and
the extra cost per run with the skill. Records are benchmark.RunRecords (usage, grade)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_ADDITIVE_TOKENS = ("input_tokens", "output_tokens", "cache_read_input_tokens",
                    "cache_creation_input_tokens")


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def usage_tokens(usage: Mapping[str, Any]) -> float | None:
    """All tokens of one run (or judge call): its ``total_tokens`` if reported, else the sum of
    the token counts; None when it reported none."""
    total = _num(usage.get("total_tokens"))
    if total is not None:
        return total
    parts = [v for v in (_num(usage.get(k)) for k in _ADDITIVE_TOKENS) if v is not None]
    return sum(parts) if parts else None


def _sum_known(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 9)  # sums of floats: no 0.11999999999999998


def _cost_totals(records: Sequence[Any]) -> dict[str, Any]:
    ran = [r for r in records if not r.errored]
    tokens = [usage_tokens(r.usage) for r in ran]
    costs = [_num(r.usage.get("cost_usd")) for r in ran]
    judged = [r.grade.get("judge_usage") for r in ran if r.grade is not None]
    judged = [u for u in judged if isinstance(u, Mapping)]
    with_tokens = sum(t is not None for t in tokens)
    with_cost = sum(c is not None for c in costs)
    total_tokens, cost = _sum_known(tokens), _round(_sum_known(costs))

    def field(*keys: str) -> float | None:
        return _sum_known([_num(r.usage.get(k)) for r in ran for k in keys])

    return {
        "input_tokens": field("input_tokens"),
        "output_tokens": field("output_tokens"),
        "cache_read_tokens": field("cache_read_input_tokens", "cached_input_tokens"),
        "cache_write_tokens": field("cache_creation_input_tokens"),
        "total_tokens": total_tokens,
        "cost_usd": cost,
        "runs_with_tokens": with_tokens,
        "runs_with_cost": with_cost,
        "tokens_per_run": _round(total_tokens / with_tokens) if with_tokens else None,
        "cost_usd_per_run": _round(cost / with_cost) if with_cost and cost is not None else None,
        "judge_tokens": _sum_known([usage_tokens(u) for u in judged]) if judged else None,
        "judge_cost_usd": _round(_sum_known([_num(u.get("cost_usd")) for u in judged])) if judged else None,
    }


def _cost_lift(lift: float | None, arms: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What the skill costs: extra tokens and dollars per run with it. No "lift per extra token"
    ratio: its denominator is a small difference of noisy means, so it explodes (and flips sign)
    on noise; the report shows the cost per arm and the extra cost per run instead."""
    w, wo = arms["with_skill"], arms["without_skill"]

    def extra(key: str) -> float | None:
        a, b = w.get(key), wo.get(key)
        return a - b if a is not None and b is not None else None

    return {"extra_tokens_per_run": _round(extra("tokens_per_run")),
            "extra_cost_usd_per_run": _round(extra("cost_usd_per_run"))}
