"""The suite's `adaptive:` key: how far `run --until-decided` may go (docs/statistics.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skill_eval.errors import Problem


@dataclass(frozen=True)
class AdaptiveConfig:
    """`adaptive:` / `run --until-decided`: add iterations until the lift is decided
    (skill_eval/stats/sequential.py), at most ``max_iterations`` per case."""

    max_iterations: int = 10
    alpha: float = 0.05


def adaptive_problems(raw: dict[str, Any], file: str, where: Any) -> list[Problem]:
    """What the schema cannot say: the ceiling is not below where the rounds start."""
    adaptive = raw.get("adaptive")
    start = raw.get("iterations", 3)
    if not (isinstance(adaptive, dict) and isinstance(adaptive.get("max_iterations"), int)
            and isinstance(start, int) and adaptive["max_iterations"] < start):
        return []
    line, col = where(("adaptive", "max_iterations"))
    return [Problem(file, f"adaptive.max_iterations ({adaptive['max_iterations']}) is below iterations "
                          f"({start}), where --until-decided starts; raise it or lower iterations",
                    line, col)]
