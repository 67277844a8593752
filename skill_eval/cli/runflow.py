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
from skill_eval.cli.terminal import shown
from skill_eval.engine.options import RunOptions
from skill_eval.errors import InvalidInput, SkillEvalError
from skill_eval.fs.storage import StorageError
from skill_eval.model.config import ExecutorConfig, Suite, display_path
from skill_eval.store.store import Store

if TYPE_CHECKING:  # the no-op path must not pay for importing the engine
    from skill_eval.engine.engine import Engine
    from skill_eval.engine.fastpath import FastCheck
    from skill_eval.model.project import Project


_SHOWN_ERRORS = 20


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
    from skill_eval.cli.progress import ProgressLine
    from skill_eval.cli.subcommands.remote import remote_notes
    from skill_eval.engine.engine import Engine
    from skill_eval.engine.executors import make_executor
    from skill_eval.engine.fastpath import FastState, edited_tables, fingerprint, suite_inputs
    from skill_eval.engine.status import count_work
    from skill_eval.engine.tasks import execute
    from skill_eval.model.results import RunError
    from skill_eval.review.folder.staleness import summary_files, summary_is_stale
    from skill_eval.review.folder.tables import build_skill, build_summary, verdict_exit_code, written_benches
    from skill_eval.review.render.console import error_lines
    from skill_eval.run.agentcli.preflight import refuse_unstartable
    from skill_eval.run.containment.owner import release as release_owner
    from skill_eval.run.resolve import resolve_adapter
    from skill_eval.run.workspace import remove_stale

    suite = project.suite
    # Entries a killed run left half-written: nobody else writes while we hold the lock.
    shutil.rmtree(store.root / "tmp", ignore_errors=True)
    # Workspaces and adapters a killed skill-eval (kill -9) left behind, whatever its store.
    remove_stale()
    # The fingerprint is taken before any file is hashed: a file edited while we run changes
    # its stat after this point, so the next run looks closer instead of trusting the fast path.
    adapter = resolve_adapter(suite)
    if adapter.sandbox is not None or any(a.sandbox is not None for a in suite.adapters()):
        from skill_eval.run.sandbox import SandboxUnavailable, require

        try:
            require()  # refused in one line, before anything runs, when bwrap cannot work here
        except SandboxUnavailable as exc:
            if suite.adapter.sandbox is not None:
                raise
            raise SandboxUnavailable(f"allow_tools grants Bash, which runs the agent sandboxed: {exc}; "
                                     "or drop the Bash grant") from None
    watch = suite_inputs(project, adapter.argv)
    if check is not None:
        watch = sorted(set(watch) | set(check.data.get("watch", [])))
    fp = fingerprint(suite, fast_options(options, split), watch)
    jobs = options.jobs or suite.jobs
    if jobs != suite.jobs:  # each run records the jobs it ran with (run/runner.py run_limits)
        suite = dataclasses.replace(suite, jobs=jobs)
        project = dataclasses.replace(project, suite=suite)
    executor = make_executor(executor_config(suite, options.executor), jobs)
    engine = Engine(project, store, options, adapter=adapter, executor=executor)
    if check is not None:
        engine.skill_names = sorted(set(check.selected) | {se.skill.name for se in project.skills})
    run_errors: list[tuple[str, str]] = []  # this invocation's adapter errors, shown at the end

    def _note(kind: str, spec: Any, outcome: Any) -> None:
        if kind == "done" and isinstance(outcome, RunError):
            run_errors.append((spec.task_name, outcome.message))

    engine.on_event = _note
    runs = engine.pending_runs()
    if options.force:
        for p in runs:
            store.discard_run(p.spec.key)
    grades = engine.pending_grades(runs)
    refuse_unstartable(project, adapter, runs=bool(runs), grades=bool(grades))
    # Tables deleted or edited by hand since the last complete run are rewritten, though their
    # inputs are unchanged (that is what defeated the fast path).
    edited = edited_tables(check.data if check is not None else FastState(store.root, suite.name).load())
    # The fast path planned only the skills that changed: the others' runs count all the same.
    work = count_work(engine, runs, grades, edited, check.data["by_skill"] if check is not None else None)
    skills = work.skills
    total = len(engine.selected_runs())
    if options.only and not total:
        from skill_eval.engine.options import only_matched_nothing
        from skill_eval.plan.planner import matches_any

        if not matches_any(engine.plan.runs, options.only):  # (an empty shard is fine)
            raise SkillEvalError(only_matched_nothing(options.only))
    from skill_eval.review.render.console import work_line

    _say(work_line(suite.name, work.counts()))
    engine.progress.total = len(runs)
    try:
        if runs:
            executor.open()
        with ProgressLine(engine.progress):
            failures = execute(engine, runs, grades, skills, jobs) if (runs or grades or skills) else []
    except KeyboardInterrupt:
        engine.stop()
        raise
    finally:
        executor.close()
        release_owner()  # our adapters and workspaces are gone by now
        _save_state(engine)
    if engine.storage_error is not None:
        with contextlib.suppress(StorageError):
            FastState(store.root, suite.name).clear()  # the next run checks everything
        raise engine.storage_error
    if not skills and not (suite.results / "summary.json").is_file():
        for se in project.skills:
            build_skill(engine, se.skill.name, full_view=True)
        build_summary(engine)
    elif not skills and (summary_is_stale(engine) or edited & {str(p) for p in summary_files(engine)}):
        build_summary(engine)
    for name, msg in failures:
        print(f"skill-eval: internal error in {name}: {shown(msg)}", file=sys.stderr)
    # Each distinct error once, with its count and the first run it hit (the runs' own in benchmark.md).
    for line in error_lines(run_errors, _SHOWN_ERRORS):
        print(f"skill-eval: {shown(line)}", file=sys.stderr)
    for name, dropped in sorted(engine.not_kept)[:_SHOWN_ERRORS]:
        listed = shown("; ".join(f"{path} ({why})" for path, why in sorted(dropped.items())[:3]))
        more = f" and {len(dropped) - 3} more" if len(dropped) > 3 else ""
        print(f"skill-eval: error in agent:{name}: files the adapter left were not kept: {listed}{more}. "
              "The run is stored (its checks cannot see those files); raise max_output_bytes or have "
              "the adapter write less, then re-run it with --only and --force", file=sys.stderr)
    if engine.doit_db_replaced:
        print("skill-eval: note: doit's database in the store was damaged; it was replaced (the store "
              "is the truth, so nothing was lost) and the run went on", file=sys.stderr)
    for name in sorted(engine.damaged)[:_SHOWN_ERRORS]:
        print(f"skill-eval: note: the stored run agent:{name} was damaged (it did not match its "
              "checksums); it was removed and run again", file=sys.stderr)
    for name, msg in [e for e in engine.judge_errors if e[1] != engine.judge_fatal][:20]:
        print(f"skill-eval: judge error in grade:{name}: {shown(msg)} (the run is kept; the next run retries "
              "the judge)", file=sys.stderr)
    benches = written_benches(engine)
    partial = bool(options.shard or options.only)
    if partial:
        # Runs outside the selection read as "not run yet" in the tables; they are not this
        # invocation's errors. Its own: adapter errors (2), failed checks (1).
        code = 1 if "fail" in {b.get("verdict") for b in benches} else 0
    else:
        code = verdict_exit_code(benches)
    if failures or engine.progress.errors or engine.judge_errors or engine.not_kept:
        code = 2
    _print_outcome(engine, benches, time.monotonic() - started)
    remote_notes(engine)  # what it served; a failing remote is a warning: the exit code is the suite's
    if engine.budget_stopped:
        print(f"skill-eval: budget of ${engine.budget:g} spent (${engine.progress.cost_usd:.2f}): "
              f"{engine.budget_stopped} runs not started; the suite is incomplete. Raise --max-cost "
              "(or max_cost_usd) and run again to finish it.", file=sys.stderr)
        code = 2
    if engine.judge_fatal is not None:
        print(f"skill-eval: judge stopped early: {engine.judge_fatal} ({engine.judge_stopped} more grades "
              "not judged; fix this and run again: the runs are kept)", file=sys.stderr)
        code = 2
    if engine.fatal is not None:
        print(f"skill-eval: stopped early: {engine.fatal} ({engine.fatal_stopped} more runs not started; "
              "fix this and run again)", file=sys.stderr)
        code = 2
    complete = (not partial and not failures and not engine.progress.errors
                and not engine.judge_errors and not engine.budget_stopped and engine.fatal is None)
    if complete:
        from skill_eval.review.versions.history_records import record_run

        record_run(engine, benches)  # what compare and the review page's history read
        by_skill = dict(check.data["by_skill"]) if check is not None else {}
        by_skill.update(fast_entries(engine))
        FastState(store.root, suite.name).save(fp, by_skill, {"exit_code": code}, watch,
                                               table_files(engine))
    else:
        FastState(store.root, suite.name).clear()
    return code


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


def _print_outcome(engine: Engine, benches: list[dict[str, Any]], elapsed: float) -> None:
    from skill_eval.review.render.console import skill_lines
    from skill_eval.review.render.markdown import plural

    for b in benches:
        for line in skill_lines(b):
            _say(line)
        for warning in (b.get("triggers") or {}).get("warnings", []):
            print(f"skill-eval: warning: {b['skill']}: trigger evals: {warning}", file=sys.stderr)
    p = engine.progress
    # A run whose request (prompt, inputs, arm, skill, adapter) another case made byte for byte
    # is made once and graded per case: say so, or the adapter's call count looks wrong.
    shared = (f" ({engine.shared_runs} of them the same request as another case's, made once)"
              if engine.shared_runs else "")
    _say(f"Done in {elapsed:.1f}s: {plural(p.done, 'run')} executed{shared}, {plural(p.errors, 'error')}. "
         f"Results: {display_path(engine.suite.results)}/summary.md, review page "
         f"{display_path(engine.suite.results)}/index.html")
