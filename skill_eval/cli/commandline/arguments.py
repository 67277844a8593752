"""Each command's arguments: the argparse types and one function per command adding its options."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skill_eval.registry import Registry

DEFAULT_SUITE = "configs/demo.yaml"
INIT_SUITE = "skill-eval.yaml"  # what `skill-eval init` writes; the default where it exists
DEFAULT_HELP = f"default: {INIT_SUITE} if it exists, else {DEFAULT_SUITE}"


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


def registered(registry: Registry[Any]) -> Callable[[str], str]:
    """An argparse type: the name of a part ``registry`` holds; any other is refused with the
    closest name and every one."""
    def parse(text: str) -> str:
        if text not in registry:
            raise argparse.ArgumentTypeError(registry.unknown(text))
        return text
    return parse


def args_init(x: argparse.ArgumentParser) -> None:
    x.add_argument("dir", metavar="DIR", nargs="?", default=".", help="where to write (default: here)")
    x.add_argument("--skill", metavar="NAME", help="the skill's name (default: the skill in DIR/skills/, "
                                                   "else DIR's name)")
    from skill_eval.cli.subcommands.init import adapter_choices  # the registry's, as it is now

    x.add_argument("--adapter", default="command", choices=adapter_choices(),
                   help="command (default): an offline echo adapter to edit; or a builtin agent")


def args_validate(x: argparse.ArgumentParser) -> None:
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


def args_run(x: argparse.ArgumentParser) -> None:
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


def args_status(x: argparse.ArgumentParser) -> None:
    _run_opts(x)
    x.add_argument("--json", action="store_true", help="machine-readable output")
    x.add_argument("--explain", metavar="TASK", help="print the key material of one agent:/grade: task")


def args_report(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    from skill_eval.review.render import FORMATS
    from skill_eval.review.render.format import formats_help

    x.add_argument("--format", default="md", type=registered(FORMATS), choices=FORMATS.names(),
                   help=formats_help())
    x.add_argument("--out", metavar="PATH", help="write there instead of the results folder / stdout")
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])
    x.add_argument("--threshold", type=_unit_fraction, metavar="T",
                   help="claude plugin eval suites: the pass mark on a case's with-arm score "
                        "(default: the suite's threshold, else 1.0)")


def args_inspect(x: argparse.ArgumentParser) -> None:
    x.add_argument("path", metavar="PATH")
    x.add_argument("--json", action="store_true")
    from skill_eval.model.evalsets.registry import READERS

    dialects = "; ".join(f"{r.name} ({r.summary})" for r in READERS)
    x.add_argument("--format", metavar="DIALECT", help=f"force a dialect instead of detecting it: {dialects}")


def args_gc(x: argparse.ArgumentParser) -> None:
    x.add_argument("suites", nargs="+", metavar="SUITE")
    x.add_argument("--dry-run", action="store_true")
    x.add_argument("--remote", nargs="?", const="", metavar="URL",
                   help="collect the suites' remote (or the one at URL) instead of the local store; "
                        "a dry run unless --yes")
    x.add_argument("--yes", action="store_true", help="gc --remote: delete what it lists")


def args_sync(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--remote", metavar="URL", help="this remote instead of the suite's remote:")


def args_export(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE")
    from skill_eval.review.exports import EXPORTS
    from skill_eval.review.exports.format import exports_help

    x.add_argument("--format", required=True, type=registered(EXPORTS), choices=EXPORTS.names(),
                   help=exports_help())
    x.add_argument("--out", metavar="DIR", help="default: <results>/export-<format>")


def args_plan(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--lift", type=_lift, required=True, metavar="L",
                   help="the smallest lift to detect, as a fraction (0.1 = +10 pp)")
    x.add_argument("--power", type=_fraction, default=0.8, help="chance of detecting it (default 0.8)")
    x.add_argument("--alpha", type=_fraction, default=0.05, help="two-sided level (default 0.05)")
    x.add_argument("--json", action="store_true")


def args_compare(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--against", default="previous", metavar="previous|baseline|REV",
                   help="previous (the last recorded version that differs; default), baseline "
                        "(<suite>.baseline.json), or a git revision")
    x.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 when the with-skill pass rate dropped with p < alpha, or a critical "
                        "case regressed")
    x.add_argument("--alpha", type=positive_number, default=0.05, metavar="P",
                   help="significance level of the gate (default 0.05)")
    from skill_eval.review.render.compare_md import COMPARE_FORMATS

    x.add_argument("--format", default="md", choices=COMPARE_FORMATS)
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])


def args_bless(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE", nargs="?", help=DEFAULT_HELP)
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])


def args_doit(x: argparse.ArgumentParser) -> None:
    x.add_argument("suite", metavar="SUITE")
    x.add_argument("doit_args", nargs=argparse.REMAINDER, metavar="DOIT_ARGS",
                   help="e.g. list --all, info agent:<task>, -n 4, forget, --always")
    x.add_argument("--split", choices=["tune", "holdout", "holdback", "all"])




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
