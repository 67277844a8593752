"""Command line. Only ``main()`` turns errors into exit codes; imports are lazy so --help is fast."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from skill_eval.cli.commandline.arguments import (
    DEFAULT_HELP,  # noqa: F401 (the one wording of the default suite, read by tests)
    DEFAULT_SUITE,
    INIT_SUITE,
    _args_bless,
    _args_compare,
    _args_doit,
    _args_export,
    _args_gc,
    _args_init,
    _args_inspect,
    _args_plan,
    _args_report,
    _args_run,
    _args_status,
    _args_sync,
    _args_validate,
)

COMMANDS = {
    "init": "start here: a suite, a skill with drafted evals, an offline adapter (overwrites nothing)",
    "validate": "check suite configs, skills, eval sets and fixtures (0 ok, 2 invalid)",
    "run": "run what is out of date, grade it, rebuild the tables (0 pass, 1 fail, 2 error)",
    "status": "what would run, re-grade or rebuild, and why; runs nothing",
    "report": "rebuild tables and reports from the store, without running anything",
    "inspect": "one eval-set file or skill folder: detected format, counts, problems",
    "gc": "drop store entries that no listed suite references (--remote: the remote's, with --yes)",
    "push": "push the suite's stored runs, grades and judge verdicts to its remote (docs/remote.md)",
    "pull": "fetch the suite's runs and grades from its remote into the local store",
    "export": "results (skill-creator, agentskills) or eval cases (plugin-eval) in another tool's layout",
    "plan": "cases, runs and cost needed to detect a lift, from the stored spread of per-case deltas",
    "compare": "what an edit of a skill did: per case before/after, the paired change and its p",
    "bless": "write <suite>.baseline.json from the stored results, for compare --against baseline",
    "doit": "doit's own command line over the suite's tasks (run, list, info, forget, -n, ...)",
}


def _default_suite(args: argparse.Namespace) -> str | None:
    """Fill in the default suite where none was named; the error when that file is not here."""
    default = INIT_SUITE if os.path.exists(INIT_SUITE) else DEFAULT_SUITE
    if getattr(args, "suites", None) == []:
        args.suites = [default]
    elif hasattr(args, "suite") and args.suite is None and args.command != "export":
        args.suite = default
    else:
        return None
    if os.path.exists(default):
        return None
    return (f"skill-eval: no SUITE given, and neither default ({INIT_SUITE}, then {DEFAULT_SUITE}) "
            f"exists in {os.getcwd()}; name one: skill-eval {args.command} path/to/suite.yaml")


# Each command's arguments, by name (the order of COMMANDS is the order --help lists them in).
ARGUMENTS: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "init": _args_init, "validate": _args_validate, "run": _args_run, "status": _args_status,
    "report": _args_report, "inspect": _args_inspect, "gc": _args_gc, "push": _args_sync,
    "pull": _args_sync, "export": _args_export,
    "plan": _args_plan, "compare": _args_compare, "bless": _args_bless, "doit": _args_doit,
}
_DESCRIPTIONS = {"doit": COMMANDS["doit"] + "; paths are resolved from this folder. Exit codes are "
                         "doit's (1: a task failed, e.g. the verdict is not a pass)."}


def command_in(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (its first word that is not an option; the options before a
    command take no value), or None: when it names none that exists, or asks for the top-level
    help (which lists every command)."""
    for word in argv:
        if word in ("-h", "--help"):
            return None
        if not word.startswith("-"):
            return word if word in ARGUMENTS else None
    return None


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only``, that command alone (a command line names one, and
    building all twelve parsers is a few ms of every start-up; the top-level help, which lists
    them all, is never printed then: see command_in)."""
    p = argparse.ArgumentParser(
        prog="skill-eval",
        description="Measure what an Agent Skill changes: run eval cases with and without it, "
                    "grade, and build benchmark tables. Only what changed re-runs.",
        epilog="Run 'skill-eval COMMAND --help' for a command's options.",
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, add_arguments in ARGUMENTS.items():
        if only is None or only == name:
            add_arguments(sub.add_parser(name, help=COMMANDS[name],
                                         description=_DESCRIPTIONS.get(name, COMMANDS[name])))
    return p



def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    parser = _parser(command_in(words))  # the whole one when no command is named
    args = parser.parse_args(words)
    if args.version:
        from skill_eval import __version__

        print(f"skill-eval {__version__}")
        return 0
    if not args.command:
        parser.print_help()
        return 0
    missing = _default_suite(args)
    if missing:
        print(missing, file=sys.stderr)
        return 2
    from skill_eval.cli.signals import name, stop_on_signals

    with stop_on_signals() as received:
        try:
            return _dispatch(args)
        except KeyboardInterrupt:
            if received.signum is not None:
                print(f"skill-eval: stopped by {name(received.signum)}; running adapters were "
                      "killed, finished runs are kept in the store", file=sys.stderr)
                return 128 + received.signum
            print("skill-eval: interrupted; finished runs are kept in the store", file=sys.stderr)
            return 130


def _dispatch(args: argparse.Namespace) -> int:
    from skill_eval.cli.terminal import shown
    from skill_eval.errors import InvalidInput, SkillEvalError

    try:
        from skill_eval.cli import commands

        return int(getattr(commands, f"cmd_{args.command}")(args))
    except InvalidInput as exc:
        for problem in exc.problems:
            print(problem.format(), file=sys.stderr)
        return 2
    except SkillEvalError as exc:
        print(f"skill-eval: {shown(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        # A full disk or a read-only folder on a path no writer wrapped: still one line.
        from skill_eval.fs.storage import fault_of

        fault = fault_of(exc, exc.filename or "a file")
        if fault is None:
            raise
        print(f"skill-eval: {fault}", file=sys.stderr)
        return 2


def entry() -> None:
    """The console script. Everything is written and flushed when main() returns, so skip the
    interpreter's teardown of a big suite's objects (a tenth of a second on 6,000 runs)."""
    from skill_eval.cli.pipes import ReaderSafe

    # `skill-eval run | head`: what nobody reads is dropped; the command still ends with its
    # own exit code (see cli/pipes.py for why not 141).
    sys.stdout = ReaderSafe(sys.stdout)  # type: ignore[assignment]
    sys.stderr = ReaderSafe(sys.stderr)  # type: ignore[assignment]
    try:
        code = main()
    except BrokenPipeError:
        # A write that went around the wrappers (straight to the file descriptor): the command
        # was interrupted part-way, so say so the way a shell does for SIGPIPE.
        code = 141
    except Exception:
        # A bug, not a verdict: never exit 1, which CI scripts read as "a check failed".
        import traceback

        traceback.print_exc()
        print("skill-eval: internal error (a bug in skill-eval, not in your suite); please report "
              "it with the traceback above", file=sys.stderr)
        code = 3
    from skill_eval.run.containment.reaper import kill_adopted

    kill_adopted()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
