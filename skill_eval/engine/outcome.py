"""The outcome of one `run`: what ran, what could not and why, the verdicts, and the exit code.

The engine tallies what goes wrong while doit runs the tasks (``Incidents``, counted by worker
threads under the progress lock) and freezes it, with the tables' verdicts, into one
``RunOutcome`` when the run ends. The exit code is decided here, by one rule (``exit_code``);
the CLI only prints the outcome (cli/runsummary.py) and exits with its code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skill_eval.review.comparison.verdict import exit_code as verdict_exit_code

Named = tuple[str, str]  # (task or slot, message)


@dataclass
class Incidents:
    """What went wrong (or was out of the ordinary) during one invocation, as it happens."""

    adapter_errors: list[Named] = field(default_factory=list)  # (task, message) per errored run
    budget_stopped: int = 0  # runs not started because the budget was spent
    # An adapter said every run would fail the same way (a bad key), or every run so far was
    # unscorable for one cause (run/unscorable.py): nothing more starts.
    fatal: str | None = None
    fatal_stopped: int = 0  # runs not started because of it
    # (task slot, message) of grades a judge could not finish: not stored, retried next run.
    judge_errors: list[Named] = field(default_factory=list)
    judge_fatal: str | None = None  # the judge said every call would fail (a bad key)
    judge_stopped: int = 0  # grades not judged because of it
    # (slot, {path: why}) of stored runs some of whose workspace files could not be kept.
    not_kept: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    doit_db_replaced: bool = False  # doit's DB was damaged and made anew (tasks.doit_config)

    def freeze(self, benches: Sequence[Mapping[str, Any]], *, partial: bool,
               internal_failures: Sequence[Named], executed: int, shared: int, errored: int,
               cost_usd: float, budget: float | None, damaged: Sequence[str]) -> RunOutcome:
        return RunOutcome(
            benches=tuple(benches), partial=partial, executed=executed, shared=shared, errored=errored,
            cost_usd=cost_usd, budget=budget, internal_failures=tuple(internal_failures),
            adapter_errors=tuple(self.adapter_errors), not_kept=tuple(self.not_kept),
            judge_errors=tuple(self.judge_errors), judge_fatal=self.judge_fatal,
            judge_stopped=self.judge_stopped, budget_stopped=self.budget_stopped, fatal=self.fatal,
            fatal_stopped=self.fatal_stopped, damaged=tuple(damaged), doit_db_replaced=self.doit_db_replaced)


@dataclass(frozen=True)
class RunOutcome:
    """One `run`, decided: every field is what the CLI says at the end, and ``exit_code`` is
    the command's exit code."""

    # The verdicts: each skill x model's benchmark as written (its `verdict`, `decided_by`).
    benches: tuple[Mapping[str, Any], ...] = ()
    partial: bool = False  # --only or --shard: runs outside the selection are not this run's
    # What ran in this invocation.
    executed: int = 0  # runs done now, those that errored and those shared included
    shared: int = 0  # runs whose request another case made byte for byte: made once, graded per case
    errored: int = 0  # runs that ended in an adapter error (a timeout, an unscorable run, ...)
    cost_usd: float = 0.0  # what the runs and the judge reported spending
    budget: float | None = None  # --max-cost or max_cost_usd
    # What could not run, and why.
    internal_failures: tuple[Named, ...] = ()  # a task of ours that raised (a bug)
    adapter_errors: tuple[Named, ...] = ()  # (task, message) of each errored run, in order
    not_kept: tuple[tuple[str, Mapping[str, str]], ...] = ()  # workspace files the store could not keep
    judge_errors: tuple[Named, ...] = ()  # grades the judge could not finish (the runs are kept)
    judge_fatal: str | None = None  # the judge stopped early: every call would fail the same way
    judge_stopped: int = 0  # grades not judged because of it
    budget_stopped: int = 0  # runs not started: the budget was spent
    fatal: str | None = None  # runs stopped early: every run would fail (or be unscorable) alike
    fatal_stopped: int = 0  # runs not started because of it
    # Notes that change no code: damaged stored runs (removed and run again), doit's DB replaced.
    damaged: tuple[str, ...] = ()
    doit_db_replaced: bool = False

    @property
    def had_trouble(self) -> bool:
        """Something of this invocation could not run or was not kept (``exit_code``'s first rule)."""
        return bool(self.internal_failures or self.errored or self.adapter_errors or self.judge_errors
                    or self.not_kept or self.budget_stopped or self.judge_fatal is not None
                    or self.fatal is not None)

    @property
    def complete(self) -> bool:
        """A whole suite ran with nothing left undone: recorded in the history, and the fast path
        may skip the next identical run (files not kept still exit 2 on that replay)."""
        return (not self.partial and not self.internal_failures and not self.errored
                and not self.judge_errors and not self.budget_stopped and self.fatal is None)

    @property
    def exit_code(self) -> int:
        return exit_code(self)


def exit_code(outcome: RunOutcome) -> int:
    """`run`'s exit code, the higher rule winning when several apply:

    2  when anything of this invocation could not run or was not kept, whatever the verdicts: an
       internal failure of a task, an adapter error (a timeout, an unscorable run, every run
       stopped early for one cause), a judge error (or the judge stopped early), workspace files
       the store could not keep, runs not started because the budget was spent;
    then the verdicts of the tables (review.comparison.verdict.exit_code): 2 when a table has an
       errored or not-run slot, 1 when a verdict is fail or undecided, 0 when every one passes;
       under --only or --shard (``partial``) only a failed verdict counts (1, else 0): slots
       outside the selection read as not run yet, and are not this invocation's.

    Invalid input, a storage fault (2), Ctrl-C and signals (130, 128+n) and a bug (3) end the
    command before there is an outcome: cli.main maps them. `run --until-decided` ends by
    ``until_decided_exit_code``.
    """
    if outcome.had_trouble:
        return 2
    if outcome.partial:
        return 1 if "fail" in {b.get("verdict") for b in outcome.benches} else 0
    return verdict_exit_code(outcome.benches)


def until_decided_exit_code(benches: Sequence[Mapping[str, Any]], last_code: int) -> int:
    """`run --until-decided`, rounds of `run`: 2 when the last round exited 2 (a run errored,
    the budget was spent, the store failed), whatever was decided by then; else the verdicts of
    the comparisons it decided (``exit_code``'s second rule: a failed required check fails a
    sequential pass), and 1 when there was no comparison to decide."""
    if last_code == 2:
        return 2
    return verdict_exit_code(benches) if benches else 1
