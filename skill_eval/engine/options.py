"""What a user asked of one `run`/`status` invocation (kept apart so the CLI can build it
without importing the engine: the no-op path must start fast)."""

from __future__ import annotations

from dataclasses import dataclass

from skill_eval.model.until_decided import UntilDecidedSettings


@dataclass(frozen=True)
class RunOptions:
    force: bool = False
    iterations: int | None = None
    only: str | None = None
    shard: tuple[int, int] | None = None
    jobs: int | None = None
    max_cost: float | None = None
    executor: str | None = None  # --executor: overrides the suite's executor
    # --until-decided: the rule's settings, and the iterations each (skill, model) has reached
    until_decided: UntilDecidedSettings | None = None
    rounds: tuple[tuple[str, str, int], ...] = ()
    sandbox: str | None = None  # --sandbox bwrap: overrides the suite's adapter.sandbox
    scaffold: bool = False  # --scaffold: run cases' scaffold scripts (as the suite's scaffold: true)
    allow_tools: tuple[str, ...] = ()  # --allow-tools: grants added to the suite's allow_tools
    threshold: float | None = None  # --threshold: overrides the suite's threshold (plugin eval numbers)
    remote: str | None = None  # --remote URL: overrides the suite's remote URL
    no_remote: bool = False  # --no-remote: the local store only


ONLY_SHAPE = "skill/case/arm/model/iteration"


def only_matched_nothing(pattern: str) -> str:
    """The error for an --only glob that selects no run (nothing would run, silently)."""
    return (f"--only {pattern!r} matches no run of this suite; a pattern matches "
            f"{ONLY_SHAPE} (e.g. 'my-skill/*/with_skill/*/1'), a skill name, or skill/case")
