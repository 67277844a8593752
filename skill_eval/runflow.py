"""`skill-eval run` and `report` end to end: load, decide what is stale, execute, tabulate."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from .config import display_path
from .engine import Engine, RunOptions
from .errors import InvalidInput, SkillEvalError
from .project import Project, load_project
from .store import Store


def _say(line: str) -> None:
    print(line, flush=True)


def fast_options(options: RunOptions, split: str | None) -> dict[str, Any]:
    return {"iterations": options.iterations, "only": options.only, "shard": options.shard,
            "split": split}


def run_suite(suite_path: str | Path, options: RunOptions, split: str | None = None,
              wait: bool = True) -> int:
    from .config import load_suite
    from .fastpath import FastState, fingerprint

    started = time.monotonic()
    suite = load_suite(suite_path)
    store = Store(suite.store)
    fast = FastState(store.root, suite.name)
    fp = fingerprint(suite, fast_options(options, split), fast.watched())
    if not options.force:
        hit = fast.is_noop(fp, suite.results)
        if hit is not None:
            n = len(hit.get("runs", []))
            _say(f"Up to date: {n} runs, nothing to do ({time.monotonic() - started:.2f}s). "
                 f"Results: {display_path(suite.results)}")
            return int(hit.get("outcome", {}).get("exit_code", 0))

    project = load_project(suite_path, split)
    if project.errors:
        raise InvalidInput(project.problems)
    from .commands import gradability_problems

    ungradable = gradability_problems(project, warn=False)
    if ungradable:
        raise InvalidInput(ungradable)
    for w in project.warnings:
        print(w.format(), file=sys.stderr)

    with store.lock(wait=wait):
        return _run_locked(project, store, options, split, started)


def _run_locked(project: Project, store: Store, options: RunOptions, split: str | None,
                started: float) -> int:
    from .fastpath import FastState
    from .progress import ProgressLine
    from .tables import build_skill, build_summary, load_benches, stale_skills, verdict_exit_code
    from .tasks import execute

    suite = project.suite
    engine = Engine(project, store, options)
    runs = engine.pending_runs()
    if options.force:
        for p in runs:
            store.discard_run(p.spec.key)
    runs = _budgeted(engine, runs, options)
    grades = engine.pending_grades(runs)
    touched = {p.spec.skill_name for p in runs} | {p.spec.skill_name for p in grades}
    skills = sorted(touched | set(stale_skills(engine)))
    total = len(engine.selected_runs())
    _say(f"{suite.name}: {total} runs planned, {len(runs)} to run, {len(grades)} to re-grade, "
         f"{len(skills)} tables to rebuild")
    engine.progress.total = len(runs)
    jobs = options.jobs or suite.jobs
    try:
        with ProgressLine(engine.progress):
            failures = execute(engine, runs, grades, skills, jobs) if (runs or grades or skills) else []
    finally:
        engine.save_state()
    if not skills and not (suite.results / "summary.json").is_file():
        for se in project.skills:
            build_skill(engine, se.skill.name, full_view=True)
        build_summary(engine)
    for name, msg in failures:
        print(f"skill-eval: internal error in {name}: {msg}", file=sys.stderr)
    benches = load_benches(engine)
    code = verdict_exit_code(benches)
    if failures or engine.progress.errors:
        code = 2
    _print_outcome(engine, benches, time.monotonic() - started)
    complete = not options.shard and not options.only and not failures and not engine.progress.errors
    if complete and getattr(engine, "budget_stopped", False) is False:
        from .fastpath import fingerprint, watch_files

        outside = [str(f.source) for se in project.skills for c in se.cases for f in c.fixtures
                   if not f.source.is_relative_to(suite.skills_dir)]
        watch = watch_files(engine.adapter.argv, outside)
        fp = fingerprint(suite, fast_options(options, split), watch)
        FastState(store.root, suite.name).save(
            fp, [s.key for s in engine.selected_runs()],
            [engine.grade_key(s) for s in engine.selected_runs()], {"exit_code": code}, watch)
    else:
        FastState(store.root, suite.name).clear()
    return code


def _budgeted(engine: Engine, runs: list[Any], options: RunOptions) -> list[Any]:
    # The cost cap is enforced while running (see engine); here nothing is dropped up front.
    return runs


def _print_outcome(engine: Engine, benches: list[dict[str, Any]], elapsed: float) -> None:
    from .render.markdown import pct, signed

    for b in benches:
        lift = b["lift"]
        w, wo = b["variants"]["with_skill"], b["variants"]["without_skill"]
        note = " (indeterminate: fewer than 6 cases moved)" if lift.get("indeterminate") else ""
        _say(f"  {b['skill']} [{b['model']}]: with {pct(w['pass_rate'])}, without {pct(wo['pass_rate'])}, "
             f"lift {signed(lift['pass_rate'])} over {lift['cases']} cases, p={_p(lift['p_value'])}{note}"
             f" -> {b['verdict']}")
    p = engine.progress
    _say(f"Done in {elapsed:.1f}s: {p.done} runs executed, {p.errors} errors. "
         f"Results: {display_path(engine.suite.results)}/summary.md")


def _p(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3g}"


def _moved(results: Path) -> list[dict[str, Any]]:
    """The moved-cases list the last summary computed (the previous benchmark is gone by now)."""
    import json

    try:
        return list(json.loads((results / "summary.json").read_text("utf-8")).get("moved", []))
    except (OSError, ValueError, AttributeError):
        return []


def report(project: Project, fmt: str, out: Path | None) -> int:
    from .render import FORMATS
    from .tables import build_skill, build_summary, load_benches, verdict_exit_code

    if project.errors:
        raise InvalidInput(project.problems)
    store = Store(project.suite.store)
    engine = Engine(project, store, RunOptions())
    # Stores merged from CI shards may carry runs without grades: grading is local and cheap
    # (judge verdicts come from their own cache), so the tables never show a stored run ungraded.
    for pending in engine.pending_grades([]):
        engine.grade_one(pending.spec)
    engine.save_state()
    for se in project.skills:
        build_skill(engine, se.skill.name, full_view=True)
    build_summary(engine)
    benches = load_benches(engine)
    text = FORMATS[fmt].render(benches, _moved(project.suite.results))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, "utf-8")
        _say(f"wrote {display_path(out)}")
    else:
        sys.stdout.write(text)
    if fmt == "github":
        from .render.github import annotations

        for line in annotations(benches):
            print(line)
    if not benches:
        raise SkillEvalError("no results in the store yet for this suite; run 'skill-eval run' first")
    return verdict_exit_code(benches)
