"""What a user asked of one `run`/`status` invocation (kept apart so the CLI can build it
without importing the engine: the no-op path must start fast)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunOptions:
    force: bool = False
    iterations: int | None = None
    only: str | None = None
    shard: tuple[int, int] | None = None
    jobs: int | None = None
    max_cost: float | None = None
    executor: str | None = None  # --executor: overrides the suite's executor
