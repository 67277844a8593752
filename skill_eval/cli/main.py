"""Command line. Only ``main()`` turns errors into exit codes; imports are lazy so --help is fast."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence

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


DEFAULT_SUITE = "configs/demo.yaml"
INIT_SUITE = "skill-eval.yaml"  # what `skill-eval init` writes; the default where it exists
DEFAULT_HELP = f"default: {INIT_SUITE} if it exists, else {DEFAULT_SUITE}"


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


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def suite_capped(key: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least 1 and at most the suite schema's cap for
    ``key`` (the same bound a suite file gets, so ``--iterations 10**9`` cannot exhaust memory)."""
    def parse(text: str) -> int:
        from skill_eval.intake.schemas_io import load_schema

        value = positive_int(text)
        cap = load_schema("suite")["properties"][key]["maximum"]
        if value > cap:
            raise argparse.ArgumentTypeError(f"{value} is more than {cap}, the most a suite's {key} allows")
        return value
    return parse


def positive_number(text: str) -> float:
    """An argparse type: a finite number above 0 (not nan, not inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be a finite number above 0")
    return value


def _unit_fraction(text: str) -> float:
    """An argparse type: a number from 0 to 1 (plugin eval's --threshold)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be from 0 to 1")
    return value


def _args_init(x: argparse.ArgumentParser) -> None:
    x.add_argument("dir", metavar="DIR", nargs="?", default=".", help="where to write (default: here)")
    x.add_argument("--skill", metavar="NAME", help="the skill's name (default: the skill in DIR/skills/, "
                                                   "else DIR's name)")
    from skill_eval.cli.subcommands.init import adapter_choices  # the registry's, as it is now

    x.add_argument("--adapter", default="command", choices=adapter_choices(),
                   help="command (default): an offline echo adapter to edit; or a builtin agent")


def _args_validate(x: argparse.ArgumentParser) -> None:
    x.add_argument("suites", nargs="*", metavar="SUITE", help=DEFAULT_HELP)


def _run_opts(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--only", metavar="GLOB", help="only runs whose skill/case/arm/model/iter matches")
    x.add_argument("--iterations", type=suite_capped("iterations"), metavar="N",
                   help="override the suite's iterations")
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"], help="eval split")
    x.add_argument("--shard", metavar="K/N", help="this job's share of the pending runs, e.g. 2/4")
    x.add_argument("--scaffold", action="store_true",
                   help="run cases' context.scaffold_script before the agent (plugin eval suites; "
                        "only for suites you trust)")
    x.add_argument("--threshold", type=_unit_fraction, metavar="T",
                   help="claude plugin eval suites: the pass mark on a case's with-arm score for the "
                        "first-party numbers (default: the suite's threshold, else 1.0)")
    x.add_argument("--allow-tools", nargs="+", metavar="TOOL",
                   help="grant these tools to every case with run settings, beyond the suite's "
                        "allow_tools (e.g. Write Edit 'Bash(npm test *)'; Bash runs sandboxed)")
    _remote_opts(x)


def _remote_opts(x: argparse.ArgumentParser) -> None:
    x.add_argument("--remote", metavar="URL",
                   help="the shared remote store (s3://, gs://, az://, file:///), instead of the "
                        "suite's remote:")
    x.add_argument("--no-remote", action="store_true", help="use the local store only")


def _args_run(x: argparse.ArgumentParser) -> None:
    _run_opts(x)
    x.add_argument("-j", "--jobs", type=suite_capped("jobs"), metavar="N",
                   help="adapters run at once (default: suite jobs)")
    x.add_argument("--force", action="store_true", help="re-run the selected runs even if stored")
    x.add_argument("--sandbox", choices=["bwrap"],
                   help="run every adapter in a bubblewrap sandbox (see docs/sandbox.md)")
    x.add_argument("--max-cost", type=positive_number, metavar="USD",
                   help="stop scheduling new runs past this spend")
    x.add_argument("--until-decided", action="store_true",
                   help="add one iteration at a time to undecided skills until the lift's confidence "
                        "sequence clears or misses minimum_lift (docs/statistics.md)")
    x.add_argument("--max-iterations", type=positive_int, metavar="N",
                   help="--until-decided: at most N iterations per case "
                        "(default: adaptive.max_iterations or 10)")
    x.add_argument("--no-wait", action="store_true", help="fail instead of waiting when the store is in use")
    x.add_argument("--executor", choices=["threads", "ray"],
                   help="where runs execute: threads (default) or ray (local Ray, or the cluster at "
                        "RAY_ADDRESS / the suite's executor.ray.address)")


def _args_status(x: argparse.ArgumentParser) -> None:
    _run_opts(x)
    x.add_argument("--json", action="store_true", help="machine-readable output")
    x.add_argument("--explain", metavar="TASK", help="print the key material of one agent:/grade: task")


def _args_report(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--format", default="md",
                   choices=["md", "github", "junit", "json", "html", "plugin-eval-json"],
                   help="plugin-eval-json: claude plugin eval's aggregate-result.json (plugin eval suites)")
    x.add_argument("--out", metavar="PATH", help="write there instead of the results folder / stdout")
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])
    x.add_argument("--threshold", type=_unit_fraction, metavar="T",
                   help="claude plugin eval suites: the pass mark on a case's with-arm score "
                        "(default: the suite's threshold, else 1.0)")


def _args_inspect(x: argparse.ArgumentParser) -> None:
    x.add_argument("path", metavar="PATH")
    x.add_argument("--json", action="store_true")
    from skill_eval.model.evalsets.registry import READERS

    dialects = "; ".join(f"{r.name} ({r.summary})" for r in READERS)
    x.add_argument("--format", metavar="DIALECT", help=f"force a dialect instead of detecting it: {dialects}")


def _args_gc(x: argparse.ArgumentParser) -> None:
    x.add_argument("suites", nargs="+", metavar="SUITE")
    x.add_argument("--dry-run", action="store_true")
    x.add_argument("--remote", nargs="?", const="", metavar="URL",
                   help="collect the suites' remote (or the one at URL) instead of the local store; "
                        "a dry run unless --yes")
    x.add_argument("--yes", action="store_true", help="gc --remote: delete what it lists")


def _args_sync(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--remote", metavar="URL", help="this remote instead of the suite's remote:")


def _args_export(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE")
    x.add_argument("--format", required=True, choices=["skill-creator", "agentskills", "plugin-eval"],
                   help="skill-creator, agentskills: the stored results; plugin-eval: the eval cases "
                        "as a claude plugin eval folder")
    x.add_argument("--out", metavar="DIR", help="default: <results>/export-<format>")


def _args_plan(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--lift", type=_lift, required=True, metavar="L",
                   help="the smallest lift to detect, as a fraction (0.1 = +10 pp)")
    x.add_argument("--power", type=_fraction, default=0.8, help="chance of detecting it (default 0.8)")
    x.add_argument("--alpha", type=_fraction, default=0.05, help="two-sided level (default 0.05)")
    x.add_argument("--json", action="store_true")


def _args_compare(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--against", default="previous", metavar="previous|baseline|REV",
                   help="previous (the last recorded version that differs; default), baseline "
                        "(<suite>.baseline.json), or a git revision")
    x.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 when the with-skill pass rate dropped with p < alpha, or a critical "
                        "case regressed")
    x.add_argument("--alpha", type=positive_number, default=0.05, metavar="P",
                   help="significance level of the gate (default 0.05)")
    x.add_argument("--format", default="md", choices=["md", "json", "github"])
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])


def _args_bless(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])


def _args_doit(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE")
    x.add_argument("doit_args", nargs=argparse.REMAINDER, metavar="DOIT_ARGS",
                   help="e.g. list --all, info agent:<task>, -n 4, forget, --always")
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])


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


def _lift(text: str) -> float:
    """A lift to plan for: a fraction in (0, 1] (0.1 is +10 pp; 10 would be +1000 pp)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"'{text}' is outside (0, 1]: give the lift as a fraction "
                                         "of the pass rate (0.1 = +10 pp)")
    return value


def _fraction(text: str) -> float:
    value = positive_number(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be below 1")
    return value


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
