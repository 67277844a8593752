"""What `run` says when it ends: the engine's ``RunOutcome`` (engine/outcome.py) as lines.

Nothing here decides anything: which problems there were, the verdicts and the exit code are
the outcome's; this only words them, in the order `run` has always said them: the problems
(stderr), each skill's lines and the "Done" line (stdout), then why the run stopped early.
"""

from __future__ import annotations

import sys
from pathlib import Path

from skill_eval.cli.terminal import shown
from skill_eval.engine.outcome import RunOutcome
from skill_eval.model.config import display_path

SHOWN_ERRORS = 20


def _say(line: str) -> None:
    print(line, flush=True)


def problem_lines(outcome: RunOutcome) -> list[str]:
    """What went wrong while running, each said once (the runs' own errors are in benchmark.md)."""
    from skill_eval.review.render.console import error_lines

    lines = [f"skill-eval: internal error in {name}: {shown(msg)}" for name, msg in outcome.internal_failures]
    # Each distinct error once, with its count and the first run it hit.
    lines += [f"skill-eval: {shown(line)}" for line in error_lines(outcome.adapter_errors, SHOWN_ERRORS)]
    for name, dropped in sorted(outcome.not_kept)[:SHOWN_ERRORS]:
        listed = shown("; ".join(f"{path} ({why})" for path, why in sorted(dropped.items())[:3]))
        more = f" and {len(dropped) - 3} more" if len(dropped) > 3 else ""
        lines.append(f"skill-eval: error in agent:{name}: files the adapter left were not kept: "
                     f"{listed}{more}. The run is stored (its checks cannot see those files); raise "
                     "max_output_bytes or have the adapter write less, then re-run it with --only and "
                     "--force")
    if outcome.doit_db_replaced:
        lines.append("skill-eval: note: doit's database in the store was damaged; it was replaced (the store "
                     "is the truth, so nothing was lost) and the run went on")
    lines += [f"skill-eval: note: the stored run agent:{name} was damaged (it did not match its "
              "checksums); it was removed and run again" for name in sorted(outcome.damaged)[:SHOWN_ERRORS]]
    judged = [e for e in outcome.judge_errors if e[1] != outcome.judge_fatal][:20]
    lines += [f"skill-eval: judge error in grade:{name}: {shown(msg)} (the run is kept; the next run "
              "retries the judge)" for name, msg in judged]
    return lines


def stop_lines(outcome: RunOutcome) -> list[str]:
    """Why the run stopped before the suite was complete: the budget, the judge, the adapter."""
    lines = []
    if outcome.budget_stopped:
        lines.append(f"skill-eval: budget of ${outcome.budget:g} spent (${outcome.cost_usd:.2f}): "
                     f"{outcome.budget_stopped} runs not started; the suite is incomplete. Raise --max-cost "
                     "(or max_cost_usd) and run again to finish it.")
    if outcome.judge_fatal is not None:
        lines.append(f"skill-eval: judge stopped early: {outcome.judge_fatal} ({outcome.judge_stopped} more "
                     "grades not judged; fix this and run again: the runs are kept)")
    if outcome.fatal is not None:
        lines.append(f"skill-eval: stopped early: {outcome.fatal} ({outcome.fatal_stopped} more runs not "
                     "started; fix this and run again)")
    return lines


def say_problems(outcome: RunOutcome) -> None:
    for line in problem_lines(outcome):
        print(line, file=sys.stderr)


def say_summary(outcome: RunOutcome, elapsed: float, results: Path) -> None:
    """Each skill's lines (its trigger evals' warnings beside them), then what ran and where."""
    from skill_eval.review.render.console import skill_lines
    from skill_eval.review.render.markdown import plural

    for b in outcome.benches:
        for line in skill_lines(dict(b)):
            _say(line)
        for warning in (b.get("triggers") or {}).get("warnings", []):
            print(f"skill-eval: warning: {b['skill']}: trigger evals: {warning}", file=sys.stderr)
    # A run whose request (prompt, inputs, arm, skill, adapter) another case made byte for byte
    # is made once and graded per case: say so, or the adapter's call count looks wrong.
    shared = (f" ({outcome.shared} of them the same request as another case's, made once)"
              if outcome.shared else "")
    _say(f"Done in {elapsed:.1f}s: {plural(outcome.executed, 'run')} executed{shared}, "
         f"{plural(outcome.errored, 'error')}. Results: {display_path(results)}/summary.md, review page "
         f"{display_path(results)}/index.html")


def say_stops(outcome: RunOutcome) -> None:
    for line in stop_lines(outcome):
        print(line, file=sys.stderr)
