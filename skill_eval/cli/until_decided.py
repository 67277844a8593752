"""`run --until-decided`: rounds of one more iteration for every case of each skill x model still
undecided, until its lift's confidence sequence (stats/sequential.py) clears or misses
minimum_lift, or max_iterations (or the budget) is reached. Each round is an ordinary
incremental `run`: what is stored is never run again, so a round runs only its new iteration
and a repeated command resumes where the store is (and does nothing when it is all there)."""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from skill_eval.engine.options import RunOptions
from skill_eval.errors import SkillEvalError
from skill_eval.model.until_decided import UntilDecidedSettings

Rounds = dict[tuple[str, str], int]


def settings_for(suite_settings: UntilDecidedSettings | None,
                 max_iterations: int | None) -> UntilDecidedSettings:
    base = suite_settings or UntilDecidedSettings()
    return replace(base, max_iterations=max_iterations) if max_iterations else base


def stored_rounds(suite_path: str | Path, options: RunOptions, split: str | None,
                  settings: UntilDecidedSettings, start: int) -> Rounds:
    """Per skill x model, the iterations every case already has stored in both arms (at least
    ``start``, at most max_iterations): where an earlier --until-decided (or a longer fixed run)
    left off for these exact inputs. An edited skill has new keys, so it starts over."""
    from skill_eval.engine.engine import Engine
    from skill_eval.model.project import load_project
    from skill_eval.review.comparison.benchmark import ARMS
    from skill_eval.store.store import Store

    project = load_project(suite_path, split)
    if project.errors:
        return {}
    engine = Engine(project, Store(project.suite.store), replace(options, iterations=settings.max_iterations))
    complete: dict[tuple[str, str, int], bool] = defaultdict(lambda: True)
    for spec in engine.plan.runs:
        if spec.case.kind == "task" and spec.arm in ARMS:
            slot = (spec.skill_name, spec.column, spec.iteration)
            complete[slot] = complete[slot] and engine.stored(spec.key)
    out: Rounds = {}
    for se in project.skills:
        for model in project.suite.columns:
            n = 0
            while n < settings.max_iterations and complete.get((se.skill.name, model, n + 1), False):
                n += 1
            out[(se.skill.name, model)] = max(start, n)
    return out


def next_rounds(benches: list[dict[str, Any]], rounds: Rounds, settings: UntilDecidedSettings) -> Rounds:
    """The comparisons that get one more iteration: undecided, every planned iteration graded
    (an errored run is retried first), and below max_iterations."""
    grow: Rounds = {}
    for b in benches:
        key = (b["skill"], b["model"])
        if key not in rounds:
            continue
        a, n = b["adaptive"], rounds[key]
        if a["decision"] == "undecided" and a["iterations"] >= n and n < settings.max_iterations:
            grow[key] = n + 1
    return grow


def run_until_decided(suite_path: str | Path, options: RunOptions, split: str | None, wait: bool,
                      max_iterations: int | None) -> int:
    from skill_eval.cli.runflow import run_suite
    from skill_eval.model.config import load_suite
    from skill_eval.review.comparison.planning import read_benches

    if options.only or options.shard or options.force:
        raise SkillEvalError("--until-decided decides whole skill x model comparisons: it cannot be "
                             "combined with --only, --shard or --force")
    suite = load_suite(suite_path)
    settings = settings_for(suite.until_decided, max_iterations)
    start = options.iterations or suite.iterations
    if settings.max_iterations < start:
        raise SkillEvalError(f"--max-iterations {settings.max_iterations} is below the {start} iterations "
                             "every case starts with; raise it or lower --iterations")
    options = replace(options, until_decided=settings)
    rounds = stored_rounds(suite_path, options, split, settings, start)
    # The budget covers the whole command, not each round: what the stored runs cost grows by
    # what each round spent.
    budget = options.max_cost if options.max_cost is not None else suite.max_cost_usd
    spent_before = _stored_cost(read_benches(suite.results, suite.name))
    while True:
        left = None if budget is None else budget - (_stored_cost(read_benches(suite.results, suite.name))
                                                       - spent_before)
        if left is not None and left <= 0:
            print(f"skill-eval: budget of ${budget:g} spent; stopping before the next round", file=sys.stderr)
            code = 2
            break
        code = run_suite(suite_path, replace(options, rounds=_as_tuple(rounds), max_cost=left), split, wait)
        benches = [b for b in read_benches(suite.results, suite.name)
                   if (b["skill"], b["model"]) in rounds and isinstance(b.get("adaptive"), dict)]
        grow = next_rounds(benches, rounds, settings)
        if not grow or code == 2:
            break
        rounds.update(grow)
        print(f"until-decided: {len(grow)} of {len(rounds)} comparisons undecided; adding iteration "
              f"{max(grow.values())}", flush=True)
    return _outcome(benches, code)


def _stored_cost(benches: list[dict[str, Any]]) -> float:
    return sum(b["variants"][v].get("cost_usd") or 0.0 for b in benches
               for v in ("with_skill", "without_skill"))


def _as_tuple(rounds: Rounds) -> tuple[tuple[str, str, int], ...]:
    return tuple(sorted((s, m, n) for (s, m), n in rounds.items()))


def _outcome(benches: list[dict[str, Any]], code: int) -> int:
    """Exit 0 when every comparison passed, 1 when one failed or stayed undecided, 2 on errors;
    each comparison's verdict and why it stopped where it did, one line each."""
    from skill_eval.engine.outcome import until_decided_exit_code
    from skill_eval.review.comparison.verdict import stop_text, verdict_cell

    decisions = [b["adaptive"]["decision"] for b in benches]
    runs = sum(b["adaptive"]["runs"] for b in benches)
    saved = sum(b["adaptive"]["runs_saved"] for b in benches)
    counts = ", ".join(f"{decisions.count(d)} {d}" for d in ("pass", "fail", "undecided") if d in decisions)
    print(f"until-decided: {counts or 'no comparison'}; {runs} runs, {saved} saved against max_iterations "
          "everywhere", flush=True)
    for b in benches:
        print(f"until-decided: {b['skill']} [{b['model']}]: {verdict_cell(b)}; stopped: "
              f"{stop_text(b, code == 2)}", flush=True)
    if "undecided" in decisions:
        print("skill-eval: undecided: the interval still straddles minimum_lift; raise --max-iterations "
              "(or adaptive.max_iterations) or add cases ('skill-eval plan' sizes them)", file=sys.stderr)
    if code == 2:
        print("skill-eval: until-decided stopped early: a run errored, the budget was spent or the "
              "store failed (see above); comparisons not decided by then stay undecided", file=sys.stderr)
    return until_decided_exit_code(benches, code)
