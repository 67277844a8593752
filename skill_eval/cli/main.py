"""Command line. Only ``main()`` turns errors into exit codes; imports are lazy so --help is fast."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

# DEFAULT_HELP: the one wording of the default suite, which tests read from here.
from skill_eval.cli.commandline.arguments import DEFAULT_HELP, DEFAULT_SUITE, INIT_SUITE  # noqa: F401
from skill_eval.cli.commandline.command import COMMANDS


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


def command_in(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (its first word that is not an option; the options before a
    command take no value), or None: when it names none that exists, or asks for the top-level
    help (which lists every command)."""
    for word in argv:
        if word in ("-h", "--help"):
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def _parser(only: str | None = None, bare: bool = False) -> argparse.ArgumentParser:
    """The whole command line; with ``only``, that command alone (a command line names one, and
    building every parser is a few ms of every start-up; the top-level help, which lists them
    all, is never printed then: see command_in). ``bare``: the commands without their options,
    all the top-level help shows (their arguments are imported only when a parser needs them)."""
    p = argparse.ArgumentParser(
        prog="skill-eval",
        description="Measure what an Agent Skill changes: run eval cases with and without it, "
                    "grade, and build benchmark tables. Only what changed re-runs.",
        epilog="Run 'skill-eval COMMAND --help' for a command's options.",
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for command in COMMANDS:
        if only is None or only == command.name:
            parser = sub.add_parser(command.name, help=command.help,
                                    description=command.description or command.help)
            if not bare:
                command.arguments(parser)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    named = command_in(words)
    parser = _parser(named, bare=named is None)  # every command, none's options, when none is named
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
        return int(COMMANDS.require(args.command, "skill-eval").run(args))
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
