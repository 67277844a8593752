"""The suite's `adaptive:` key: how far `run --until-decided` may go (docs/statistics.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skill_eval.errors import Problem


@dataclass(frozen=True)
class UntilDecidedSettings:
    """`adaptive:` / `run --until-decided`: add iterations until the lift is decided
    (skill_eval/stats/sequential.py), at most ``max_iterations`` per case."""

    max_iterations: int = 10
    alpha: float = 0.05


def until_decided_problems(raw: dict[str, Any], file: str, where: Any) -> list[Problem]:
    """What the schema cannot say: the ceiling is not below where the rounds start."""
    until_decided = raw.get("adaptive")
    start = raw.get("iterations", 3)
    if not (isinstance(until_decided, dict) and isinstance(until_decided.get("max_iterations"), int)
            and isinstance(start, int) and until_decided["max_iterations"] < start):
        return []
    line, col = where(("adaptive", "max_iterations"))
    return [Problem(file, f"adaptive.max_iterations ({until_decided['max_iterations']}) is below iterations "
                          f"({start}), where --until-decided starts; raise it or lower iterations",
                    line, col)]
