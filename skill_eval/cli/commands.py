"""The CLI's commands: each turns parsed arguments into calls on the library and prints."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from skill_eval.errors import InvalidInput, Problem, SkillEvalError


def count(n: int, word: str) -> str:
    """``1 skill``, ``2 skills``: a number with its noun."""
    return f"{n} {word}{'s' * (n != 1)}"


def _out(line: str = "") -> None:
    print(line, flush=True)


def cmd_init(args: argparse.Namespace) -> int:
    from skill_eval.cli.subcommands.init import init_project, next_steps

    root = Path(args.dir)
    done = init_project(root, args.skill, args.adapter)
    for item in done:
        _out(f"{'wrote' if item.written else 'kept (exists)'}: {item.path}")
    if not any(item.written for item in done):
        _out("nothing to write: every file is already there")
    _out("next:")
    for step in next_steps(root, args.adapter):
        _out(f"  {step}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from skill_eval.model.config import display_path
    from skill_eval.model.project import load_project
    from skill_eval.model.suitechecks.case_leaks import case_leaks
    from skill_eval.model.suitechecks.settings_support import settings_problems

    all_problems: list[Problem] = []
    totals = [0, 0, 0]
    for suite in args.suites:
        try:
            project = load_project(suite, use_cache=False)
        except InvalidInput as exc:
            all_problems.extend(exc.problems)
            continue
        for i, n in enumerate(project.counts()):
            totals[i] += n
        all_problems.extend(project.problems)
        # Errors, as `run` refuses them with the same message: validate passing means run starts.
        all_problems.extend(project.gradability_problems(warn=False))
        all_problems.extend(adapter_problems(project))
        all_problems.extend(preflight_problems(project))
        all_problems.extend(settings_problems(project))
        all_problems.extend(script_problems(project))
        all_problems.extend(grader_audits(project))
        # Read here, not in every `run`: the answer lint reads the cases' input files.
        all_problems.extend(p for se in project.skills for es in se.evalsets
                            for p in case_leaks(es, se.skill.path, display_path(se.skill.path)))
    all_problems = list(dict.fromkeys(all_problems))  # each said once
    for p in all_problems:
        print(p.format(), file=sys.stderr if p.is_error else sys.stdout)
    errors = sum(p.is_error for p in all_problems)
    warnings = len(all_problems) - errors
    counts = [f"{n} error{'s' * (n != 1)}" for n in (errors,) if n]
    counts += [f"{n} warning{'s' * (n != 1)}" for n in (warnings,) if n]
    words = ("skill", "eval set", "case")
    skills, sets, cases = (count(n, word) for n, word in zip(totals, words, strict=True))
    _out(f"Validated {skills}, {sets}, {cases}"
         + (f"; {', '.join(counts)}" if counts else ""))
    return 2 if errors else 0


def adapter_problems(project) -> list[Problem]:  # noqa: ANN001
    """What `run` refuses when it resolves the adapter (a builtin's unknown option, replay
    without recordings, an unreadable depends file), reported by validate with the same words."""
    from skill_eval.run.resolve import resolve_adapter, resolve_agents

    try:
        resolve_adapter(project.suite)
        resolve_agents(project.suite)
    except InvalidInput as exc:
        return list(exc.problems)
    return folder_argument_warnings(project.suite)


def preflight_problems(project) -> list[Problem]:  # noqa: ANN001
    """What `run` refuses before its first run (run/agentcli/preflight.py): the agent CLI, its
    version, sandbox and credentials, the scaffolds, the judge."""
    from skill_eval.run.agentcli.preflight import preflight
    from skill_eval.run.resolve import resolve_adapter

    try:
        adapter = resolve_adapter(project.suite)
    except InvalidInput:
        return []  # adapter_problems said why
    return preflight(project, adapter, scaffold_warns=True)


def folder_argument_warnings(suite) -> list[Problem]:  # noqa: ANN001
    """An adapter or judge argument naming a folder: its contents are not watched nor hashed."""
    from skill_eval.model.config import display_path

    out = []
    for what, cfg in (("adapter", suite.adapter), ("judge", suite.judge)):
        for i, arg in enumerate((getattr(cfg, "command", None) or ())[1:], start=1):
            folder = arg if Path(arg).is_absolute() else suite.root / arg
            if not arg.startswith("-") and Path(folder).is_dir():
                out.append(Problem(display_path(suite.path), f"{what}.command[{i}] {arg!r} is a folder: "
                                   "skill-eval neither looks inside it nor re-runs when a file there "
                                   f"changes; list the files the {what} reads in adapter.depends "
                                   f"(e.g. depends: [{arg.rstrip('/')}/*.json])", severity="warning"))
    return out


def script_problems(project) -> list[Problem]:  # noqa: ANN001
    """One warning per eval set whose script checks will fail because the suite does not allow them."""
    if project.suite.allow_scripts:
        return []
    out = []
    for se in project.skills:
        for es in se.evalsets:
            n = sum(1 for c in es.cases for k in c.checks if k.type == "script")
            if n:
                out.append(Problem(es.cases[0].source or str(es.path),
                                   f"{n} script check(s) will fail: the suite does not set "
                                   "allow_scripts: true (set it only for eval sets you trust)",
                                   severity="warning"))
    return out


def grader_audits(project) -> list[Problem]:  # noqa: ANN001
    """Warnings for cases whose checks pass a useless answer (grade/audit.py); no adapter call."""
    from skill_eval.grade.audit import audit_problems

    return [p for se in project.skills for p in audit_problems(se.cases, se.skill.names)]


def _load(args: argparse.Namespace):  # noqa: ANN202
    from skill_eval.model.project import load_project

    project = load_project(args.suite, getattr(args, "split", None))
    if project.errors:
        raise InvalidInput(project.problems)
    return project


def _options(args: argparse.Namespace):  # noqa: ANN202
    from skill_eval.engine.options import RunOptions

    shard = None
    if getattr(args, "shard", None):
        try:
            k, n = (int(x) for x in args.shard.split("/"))
            if not 1 <= k <= n:
                raise ValueError
            shard = (k, n)
        except ValueError:
            raise SkillEvalError(f"--shard {args.shard}: expected K/N with 1 <= K <= N, e.g. 1/4") from None
    return RunOptions(force=getattr(args, "force", False), iterations=args.iterations, only=args.only,
                      shard=shard, jobs=getattr(args, "jobs", None), max_cost=getattr(args, "max_cost", None),
                      executor=getattr(args, "executor", None), sandbox=getattr(args, "sandbox", None),
                      scaffold=bool(getattr(args, "scaffold", False)),
                      allow_tools=tuple(getattr(args, "allow_tools", None) or ()),
                      threshold=getattr(args, "threshold", None), remote=getattr(args, "remote", None),
                      no_remote=bool(getattr(args, "no_remote", False)))


def cmd_run(args: argparse.Namespace) -> int:
    from skill_eval.cli.runflow import run_suite

    if args.until_decided or args.max_iterations:
        from skill_eval.cli.until_decided import run_until_decided

        return run_until_decided(args.suite, _options(args), args.split, not args.no_wait,
                                 args.max_iterations)
    return run_suite(args.suite, _options(args), split=args.split, wait=not args.no_wait)


def cmd_status(args: argparse.Namespace) -> int:
    import dataclasses

    from skill_eval.cli.runflow import with_run_options
    from skill_eval.cli.subcommands.status import status

    options = _options(args)
    project = _load(args)
    # status plans with the same --scaffold / --allow-tools as the run it predicts
    project = dataclasses.replace(project, suite=with_run_options(project.suite, options))
    return status(project, options, as_json=args.json, explain_task=args.explain)


def cmd_report(args: argparse.Namespace) -> int:
    import dataclasses

    from skill_eval.cli.reportflow import report
    from skill_eval.review.render import FORMATS

    project = _load(args)
    fmt = FORMATS.require(args.format, "--format")
    unsuited = fmt.unsuited(project) if fmt.unsuited is not None else None
    if unsuited:
        raise SkillEvalError(f"report --format {fmt.name}: {unsuited}")
    if args.threshold is not None:
        suite = dataclasses.replace(project.suite, threshold=args.threshold)
        project = dataclasses.replace(project, suite=suite)
    return report(project, fmt, Path(args.out) if args.out else None)


def cmd_inspect(args: argparse.Namespace) -> int:
    from skill_eval.cli.subcommands.inspect import format_inspect, inspect_path

    path = Path(args.path)
    if not path.exists():
        raise InvalidInput([Problem(args.path, "no such file or folder")])
    result = inspect_path(path, args.format)
    items = result if isinstance(result, list) else [result]
    if args.json:
        _out(json.dumps(result, indent=2, sort_keys=True, default=str))
    else:
        _out(format_inspect(result))
    readable = all(item.get("readable", True) for item in items)
    return 0 if readable else 2


def cmd_gc(args: argparse.Namespace) -> int:
    from skill_eval.engine.gc import collect

    if args.remote is not None:
        from skill_eval.cli.subcommands.remote import gc_remote

        return gc_remote([Path(s) for s in args.suites], args.remote or None, args.yes)

    removed, kept = collect([Path(s) for s in args.suites], dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    _out(f"gc: {verb} {removed} store entries, kept {kept}")
    return 0


def cmd_push(args: argparse.Namespace) -> int:
    from skill_eval.cli.subcommands.remote import push

    return push(_load(args), args.remote)


def cmd_pull(args: argparse.Namespace) -> int:
    from skill_eval.cli.subcommands.remote import pull

    return pull(_load(args), args.remote)


def cmd_export(args: argparse.Namespace) -> int:
    from skill_eval.review.exports import EXPORTS

    project = _load(args)
    if project.errors:
        raise InvalidInput(project.problems)
    fmt = EXPORTS.require(args.format, "--format")
    out = Path(args.out) if args.out else project.suite.results / f"export-{fmt.name}"
    started = time.monotonic()
    done = fmt.write(project, _result_source(project) if fmt.reads_store else None, out)
    for why in done.skipped:
        _out(f"not written: {why}")
    took = f" in {time.monotonic() - started:.1f}s" if fmt.reads_store else ""
    _out(f"exported {count(done.count, done.noun)} to {out} ({done.layout}){took}")
    return 0


def _result_source(project):  # noqa: ANN001, ANN202
    from skill_eval.engine.engine import Engine
    from skill_eval.store.store import Store

    return Engine(project, Store(project.suite.store))


def cmd_plan(args: argparse.Namespace) -> int:
    from skill_eval.cli.subcommands.plan import cmd_plan as plan

    return plan(args)
def cmd_compare(args: argparse.Namespace) -> int:
    from skill_eval.cli.subcommands.compare import compare

    return compare(_load(args), args.against, args.format, args.fail_on_regression, args.alpha)


def cmd_bless(args: argparse.Namespace) -> int:
    from skill_eval.cli.subcommands.compare import bless

    return bless(_load(args))


def cmd_doit(args: argparse.Namespace) -> int:
    from skill_eval.engine.dodo import doit_main

    return doit_main(args.suite, args.doit_args, args.split)
