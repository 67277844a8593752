"""`skill-eval run` end to end: load, decide what is stale, execute, tabulate (`report`: cli.reportflow)."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_eval.cli.suiteoptions import with_run_options
from skill_eval.engine.options import RunOptions
from skill_eval.errors import InvalidInput, SkillEvalError
from skill_eval.fs.storage import StorageError
from skill_eval.model.config import ExecutorConfig, Suite, display_path
from skill_eval.store.store import Store

if TYPE_CHECKING:  # the no-op path must not pay for importing the engine
    from skill_eval.engine.engine import Engine, Pending
    from skill_eval.engine.fastpath import FastCheck
    from skill_eval.engine.outcome import RunOutcome
    from skill_eval.model.project import Project
    from skill_eval.plan.adapter import ResolvedAdapter


def _say(line: str) -> None:
    print(line, flush=True)


def fast_options(options: RunOptions, split: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"iterations": options.iterations, "only": options.only, "shard": options.shard,
                           "split": split}
    if options.until_decided is not None:  # a plain run after it plans other iterations
        out["until_decided"] = [options.until_decided.max_iterations, options.until_decided.alpha,
                                [list(r) for r in options.rounds]]
    if options.sandbox:
        out["sandbox"] = options.sandbox
    if options.scaffold:
        out["scaffold"] = True
    if options.allow_tools:
        out["allow_tools"] = list(options.allow_tools)
    if options.threshold is not None:
        out["threshold"] = options.threshold
    return out


def run_suite(suite_path: str | Path, options: RunOptions, split: str | None = None,
              wait: bool = True) -> int:
    from skill_eval.engine.fastpath import FastState, fingerprint
    from skill_eval.model.config import load_suite

    started = time.monotonic()
    suite = load_suite(suite_path)
    store = Store(suite.store)
    fast = FastState(store.root, suite.name)
    fp = fingerprint(suite, fast_options(options, split), fast.watched())
    check = None if options.force else fast.check(fp)
    if check is not None and check.noop:
        _say(f"Up to date: {check.runs()} runs, nothing to do ({time.monotonic() - started:.2f}s). "
             f"Results: {display_path(suite.results)}")
        return int(check.data.get("outcome", {}).get("exit_code", 0))

    from skill_eval.model.project import load_project
    from skill_eval.model.suitechecks.settings_support import settings_problems

    # Only some skill folders changed since the last complete run: plan just those skills (the
    # others' runs, grades and tables were just re-checked by stat). Keys still decide.
    only = set(check.changed) if check is not None else None
    project = load_project(suite_path, split, only_skills=only)
    if options.sandbox:
        suite = suite.sandboxed(options.sandbox)
        project = dataclasses.replace(project, suite=suite)
    suite = with_run_options(suite, options)
    project = dataclasses.replace(project, suite=suite)
    if project.errors:
        raise InvalidInput(project.problems)
    ungradable = project.gradability_problems(warn=False)
    if ungradable:
        raise InvalidInput(ungradable)
    settings = settings_problems(project)
    if any(p.is_error for p in settings):
        raise InvalidInput([p for p in settings if p.is_error])
    for w in (*project.warnings, *settings):
        print(w.format(), file=sys.stderr)

    def waiting(pid: str, since: str | None) -> None:  # said at once, not after the wait
        print(f"skill-eval: the store {display_path(store.root)} is in use by pid {pid}"
              f"{f' since {since}' if since else ''}; waiting for it to finish (Ctrl-C stops waiting; "
              "--no-wait fails at once instead)", file=sys.stderr, flush=True)

    with store.lock(wait=wait, on_wait=waiting):
        return _run_locked(project, store, options, split, started, check)


def _run_locked(project: Project, store: Store, options: RunOptions, split: str | None,
                started: float, check: FastCheck | None = None) -> int:
    from skill_eval.cli.runsummary import say_problems, say_stops, say_summary
    from skill_eval.cli.subcommands.remote import remote_notes
    from skill_eval.engine.engine import Engine
    from skill_eval.engine.executors import make_executor
    from skill_eval.engine.fastpath import fingerprint, suite_inputs

    _clear_leftovers(store)
    # The fingerprint is taken before any file is hashed: a file edited while we run changes
    # its stat after this point, so the next run looks closer instead of trusting the fast path.
    adapter = _sandbox_checked(project.suite)
    watch = suite_inputs(project, adapter.argv)
    if check is not None:
        watch = sorted(set(watch) | set(check.data.get("watch", [])))
    fp = fingerprint(project.suite, fast_options(options, split), watch)
    jobs = options.jobs or project.suite.jobs
    if jobs != project.suite.jobs:  # each run records the jobs it ran with (run/runner.py run_limits)
        project = dataclasses.replace(project, suite=dataclasses.replace(project.suite, jobs=jobs))
    executor = make_executor(executor_config(project.suite, options.executor), jobs)
    engine = Engine(project, store, options, adapter=adapter, executor=executor)
    if check is not None:
        engine.skill_names = sorted(set(check.selected) | {se.skill.name for se in project.skills})
    runs, grades, edited, skills = _work(engine, check)
    failures = _execute(engine, runs, grades, skills, jobs)
    _refresh_tables(engine, skills, edited)
    outcome = engine.outcome(failures, partial=bool(options.shard or options.only))
    say_problems(outcome)
    say_summary(outcome, time.monotonic() - started, project.suite.results)
    remote_notes(engine)  # what it served; a failing remote is a warning: the exit code is the suite's
    say_stops(outcome)
    _remember(engine, outcome, check, fp, watch)
    return outcome.exit_code


def _clear_leftovers(store: Store) -> None:
    from skill_eval.run.workspace import remove_stale

    # Entries a killed run left half-written: nobody else writes while we hold the lock.
    shutil.rmtree(store.root / "tmp", ignore_errors=True)
    # Workspaces and adapters a killed skill-eval (kill -9) left behind, whatever its store.
    remove_stale()


def _sandbox_checked(suite: Suite) -> ResolvedAdapter:
    """The suite's adapter; refused in one line, before anything runs, when it (or an agent, or
    a Bash grant) needs the sandbox and bwrap cannot work here."""
    from skill_eval.run.resolve import resolve_adapter

    adapter = resolve_adapter(suite)
    if adapter.sandbox is not None or any(a.sandbox is not None for a in suite.adapters()):
        from skill_eval.run.sandbox import SandboxUnavailable, require

        try:
            require()
        except SandboxUnavailable as exc:
            if suite.adapter.sandbox is not None:
                raise
            raise SandboxUnavailable(f"allow_tools grants Bash, which runs the agent sandboxed: {exc}; "
                                     "or drop the Bash grant") from None
    return adapter


def _work(engine: Engine,
          check: FastCheck | None) -> tuple[list[Pending], list[Pending], set[str], list[str]]:
    """What is out of date (the runs, the grades, the tables edited by hand, the skills whose
    tables are rebuilt), said in one line before anything runs."""
    from skill_eval.engine.fastpath import FastState, edited_tables
    from skill_eval.engine.status import count_work
    from skill_eval.review.render.console import work_line
    from skill_eval.run.agentcli.preflight import refuse_unstartable

    options, store = engine.options, engine.store
    runs = engine.pending_runs()
    if options.force:
        for p in runs:
            store.discard_run(p.spec.key)
    grades = engine.pending_grades(runs)
    refuse_unstartable(engine.project, engine.adapter, runs=bool(runs), grades=bool(grades))
    # Tables deleted or edited by hand since the last complete run are rewritten, though their
    # inputs are unchanged (that is what defeated the fast path).
    recorded = check.data if check is not None else FastState(store.root, engine.suite.name).load()
    edited = edited_tables(recorded)
    # The fast path planned only the skills that changed: the others' runs count all the same.
    work = count_work(engine, runs, grades, edited, check.data["by_skill"] if check is not None else None)
    if options.only and not engine.selected_runs():
        from skill_eval.engine.options import only_matched_nothing
        from skill_eval.plan.planner import matches_any

        if not matches_any(engine.plan.runs, options.only):  # (an empty shard is fine)
            raise SkillEvalError(only_matched_nothing(options.only))
    _say(work_line(engine.suite.name, work.counts()))
    return runs, grades, edited, work.skills


def _execute(engine: Engine, runs: list[Pending], grades: list[Pending], skills: list[str],
             jobs: int) -> list[tuple[str, str]]:
    """doit runs the stale work with progress on the terminal; returns the tasks that failed
    inside (a bug). A storage fault ends the run here, in one line, after the state is saved."""
    from skill_eval.cli.progress import ProgressLine
    from skill_eval.engine.fastpath import FastState
    from skill_eval.engine.tasks import execute
    from skill_eval.run.containment.owner import release as release_owner

    engine.progress.total = len(runs)
    try:
        if runs:
            engine.executor.open()
        with ProgressLine(engine.progress):
            failures = execute(engine, runs, grades, skills, jobs) if (runs or grades or skills) else []
    except KeyboardInterrupt:
        engine.stop()
        raise
    finally:
        engine.executor.close()
        release_owner()  # our adapters and workspaces are gone by now
        _save_state(engine)
    if engine.storage_error is not None:
        with contextlib.suppress(StorageError):
            FastState(engine.store.root, engine.suite.name).clear()  # the next run checks everything
        raise engine.storage_error
    return failures


def _refresh_tables(engine: Engine, skills: list[str], edited: set[str]) -> None:
    """With no skill's table to rebuild, the summary is still written when it is missing, stale
    or edited by hand (each skill's table too when the summary is missing)."""
    from skill_eval.review.folder.staleness import summary_files, summary_is_stale
    from skill_eval.review.folder.tables import build_skill, build_summary

    if skills:
        return
    if not (engine.suite.results / "summary.json").is_file():
        for se in engine.project.skills:
            build_skill(engine, se.skill.name, full_view=True)
        build_summary(engine)
    elif summary_is_stale(engine) or edited & {str(p) for p in summary_files(engine)}:
        build_summary(engine)


def _remember(engine: Engine, outcome: RunOutcome, check: FastCheck | None, fp: dict[str, Any],
              watch: list[str]) -> None:
    """A complete run goes into the history and lets the fast path skip the next identical run
    (which exits with this run's code); any other clears the fast path."""
    from skill_eval.engine.fastpath import FastState

    fast = FastState(engine.store.root, engine.suite.name)
    if not outcome.complete:
        fast.clear()
        return
    from skill_eval.review.versions.history_records import record_run

    record_run(engine, outcome.benches)  # what compare and the review page's history read
    by_skill = dict(check.data["by_skill"]) if check is not None else {}
    by_skill.update(fast_entries(engine))
    fast.save(fp, by_skill, {"exit_code": outcome.exit_code}, watch, table_files(engine))


def _save_state(engine: Engine) -> None:
    """After a disk fault the state may not be writable either: the first fault is the one to
    report, and the state is advisory (losing it only makes reasons vaguer)."""
    if engine.storage_error is None:
        engine.save_state()
        return
    with contextlib.suppress(StorageError):
        engine.save_state()


def executor_config(suite: Suite, name: str | None) -> ExecutorConfig:
    """The suite's executor, or the one --executor names (with the suite's settings for it)."""
    if name is None or name == suite.executor.name:
        return suite.executor
    return ExecutorConfig(name)


def fast_entries(engine: Engine) -> dict[str, dict[str, Any]]:
    """Per planned skill: run key → the stat stamp its entry had when verified, and grade keys
    (what the fast path re-checks next time)."""
    from skill_eval.engine.state import entry_stamp

    out: dict[str, dict[str, Any]] = {se.skill.name: {"runs": {}, "grades": [], "planned": 0}
                                      for se in engine.project.skills}
    for spec in engine.selected_runs():
        stamp = engine.state.verified.get(spec.key) or entry_stamp(engine.store.root, spec.key)
        entry = out[spec.skill_name]
        entry["planned"] += 1
        if stamp:
            entry["runs"][spec.key] = stamp
        entry["grades"].append(engine.grade_key(spec))
    return out


def table_files(engine: Engine) -> list[str]:
    """Every file a run writes under results/ but the per-run views (thousands of them, so a
    stat each would cost the no-op its milliseconds; `report` rewrites them all)."""
    from skill_eval.review.folder.staleness import skill_files, summary_files

    out = [str(p) for p in summary_files(engine)]
    for name in engine.skill_names:
        out.extend(str(p) for p in skill_files(engine, name))
    return out
