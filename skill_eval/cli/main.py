"""Command line. Only ``main()`` turns errors into exit codes; imports are lazy so --help is fast."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

COMMANDS = {
    "validate": "check suite configs, skills, eval sets and fixtures (0 ok, 2 invalid)",
    "run": "run what is out of date, grade it, rebuild the tables (0 pass, 1 fail, 2 error)",
    "status": "what would run, re-grade or rebuild, and why; runs nothing",
    "report": "rebuild tables and reports from the store, without running anything",
    "inspect": "one eval-set file or skill folder: detected format, counts, problems",
    "gc": "drop store entries that no listed suite references",
    "export": "write results in another tool's layout (skill-creator, agentskills)",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="skill-eval",
        description="Measure what an Agent Skill changes: run eval cases with and without it, "
                    "grade, and build benchmark tables. Only what changed re-runs.",
        epilog="Run 'skill-eval COMMAND --help' for a command's options.",
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", title="commands")

    v = sub.add_parser("validate", help=COMMANDS["validate"], description=COMMANDS["validate"])
    v.add_argument("suites", nargs="*", default=["configs/demo.yaml"], metavar="SUITE")

    def run_opts(x: argparse.ArgumentParser) -> None:
        x.add_argument("suite", metavar="SUITE", nargs="?", default="configs/demo.yaml")
        x.add_argument("--only", metavar="GLOB", help="only runs whose skill/case/variant/model/iter matches")
        x.add_argument("--iterations", type=int, metavar="N", help="override the suite's iterations")
        x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"], help="eval split")
        x.add_argument("--shard", metavar="K/N", help="this job's share of the pending runs, e.g. 2/4")

    r = sub.add_parser("run", help=COMMANDS["run"], description=COMMANDS["run"])
    run_opts(r)
    r.add_argument("-j", "--jobs", type=int, metavar="N", help="adapters run at once (default: suite jobs)")
    r.add_argument("--force", action="store_true", help="re-run the selected runs even if stored")
    r.add_argument("--max-cost", type=float, metavar="USD", help="stop scheduling new runs past this spend")
    r.add_argument("--no-wait", action="store_true", help="fail instead of waiting when the store is in use")
    r.add_argument("--executor", choices=["threads", "ray"],
                   help="where runs execute: threads (default) or ray (local Ray, or the cluster at "
                        "RAY_ADDRESS / the suite's executor.ray.address)")

    s = sub.add_parser("status", help=COMMANDS["status"], description=COMMANDS["status"])
    run_opts(s)
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument("--explain", metavar="TASK", help="print the key material of one agent:/grade: task")

    rep = sub.add_parser("report", help=COMMANDS["report"], description=COMMANDS["report"])
    rep.add_argument("suite", metavar="SUITE", nargs="?", default="configs/demo.yaml")
    rep.add_argument("--format", default="md", choices=["md", "github", "junit", "json", "html"])
    rep.add_argument("--out", metavar="PATH", help="write there instead of the results folder / stdout")
    rep.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])

    i = sub.add_parser("inspect", help=COMMANDS["inspect"], description=COMMANDS["inspect"])
    i.add_argument("path", metavar="PATH")
    i.add_argument("--json", action="store_true")
    i.add_argument("--format", help="force a dialect instead of detecting it")

    g = sub.add_parser("gc", help=COMMANDS["gc"], description=COMMANDS["gc"])
    g.add_argument("suites", nargs="+", metavar="SUITE")
    g.add_argument("--dry-run", action="store_true")

    e = sub.add_parser("export", help=COMMANDS["export"], description=COMMANDS["export"])
    e.add_argument("suite", metavar="SUITE")
    e.add_argument("--format", required=True, choices=["skill-creator", "agentskills"])
    e.add_argument("--out", metavar="DIR", help="default: <results>/export-<format>")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.version:
        from skill_eval import __version__

        print(f"skill-eval {__version__}")
        return 0
    if not args.command:
        _parser().print_help()
        return 0
    from skill_eval.model.errors import InvalidInput, SkillEvalError

    try:
        from skill_eval.cli import commands

        return int(getattr(commands, f"cmd_{args.command}")(args))
    except InvalidInput as exc:
        for problem in exc.problems:
            print(problem.format(), file=sys.stderr)
        return 2
    except SkillEvalError as exc:
        print(f"skill-eval: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("skill-eval: interrupted; finished runs are kept in the store", file=sys.stderr)
        return 130


def entry() -> None:
    """The console script. Everything is written and flushed when main() returns, so skip the
    interpreter's teardown of a big suite's objects (a tenth of a second on 6,000 runs)."""
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
