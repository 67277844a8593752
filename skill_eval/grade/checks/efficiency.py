"""Budget checks: max_tokens (from the adapter's usage) and max_seconds (the run's wall time).

Missing data fails the check with a reason: a budget nobody measured is not a budget met.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError


def _limit(params: Mapping[str, Any]) -> float:
    limit = params.get("limit")
    if isinstance(limit, bool) or not isinstance(limit, int | float):
        raise CheckParamError("'limit' must be a number")
    return float(limit)


def _tokens(usage: Mapping[str, float], key: str | None) -> tuple[float | None, str]:
    def num(k: str) -> float | None:
        v = usage.get(k)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    if key:
        return num(key), key
    parts = [v for v in (num("input_tokens"), num("output_tokens")) if v is not None]
    if parts:
        return sum(parts), "input_tokens+output_tokens"
    return num("total_tokens"), "total_tokens"


def max_tokens(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    limit = _limit(params)
    key = params.get("usage_key")
    used, what = _tokens(ctx.usage, key if isinstance(key, str) and key else None)
    if used is None:
        named = f" (usage_key {key!r})" if key else ""
        return False, f"no token usage reported{named}"
    verdict = "≤" if used <= limit else ">"
    return used <= limit, f"{what} = {used:g} {verdict} limit {limit:g}"


def max_seconds(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    limit = _limit(params)
    if ctx.duration_s is None:
        return False, "no duration recorded for this run"
    verdict = "≤" if ctx.duration_s <= limit else ">"
    return ctx.duration_s <= limit, f"took {ctx.duration_s:.3f} s {verdict} limit {limit:g} s"


MAX_TOKENS = CheckType(
    "max_tokens", max_tokens,
    ("Passes when the run's token usage (input_tokens + output_tokens, else total_tokens, or `usage_key`) "
     "is at most `limit`; fails when no usage was reported."),
    {
        "limit": {"type": "number", "minimum": 0, "description": "The most tokens allowed."},
        "usage_key": {"type": "string", "description": "Compare this one usage field instead."},
    },
    required=("limit",),
)

MAX_SECONDS = CheckType(
    "max_seconds", max_seconds,
    "Passes when the run took at most `limit` seconds of wall time.",
    {"limit": {"type": "number", "exclusiveMinimum": 0, "description": "The most seconds allowed."}},
    required=("limit",),
)
