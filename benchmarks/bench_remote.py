"""The shared remote store (docs/remote.md), measured side by side in one run.

1. The 48-run suite of bench_overhead.py (2 skills x 4 cases x 3 iterations x 2 arms, a
   scripted protocol-v1 adapter) with ``remote: file://...``: its cold run (which pushes), a
   fresh machine (empty store and results) served from the remote, and the local no-op.
2. The 6,000-run suite of bench_engine.py: ``skill-eval pull`` into an empty store.

Each figure is the median of REPS (default 3) alternating repetitions; the machine may be shared,
so quote medians. Needs obstore (pip install 'skill-eval[remote]').

    python benchmarks/bench_remote.py [--reps N] [--only small|big] [--tmp DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_engine import make_suite
from bench_overhead import measured, small_suite
from tabulate import tabulate


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "skill_eval.cli.main", *args]


def _with_remote(suite: Path, remote: Path) -> None:
    suite.write_text(suite.read_text() + f"remote: file://{remote}\n")


def _fresh(root: Path) -> None:
    for sub in ("store", "results"):
        shutil.rmtree(root / sub, ignore_errors=True)


def bench_small(base: Path, reps: int) -> list[tuple[str, str, str]]:
    times: dict[str, list[float]] = {"cold run (adapter called 48 times, pushes)": [],
                                     "fresh machine, served from the remote": [],
                                     "local no-op": [],
                                     "cold run without a remote (reference)": []}
    names = list(times)
    for rep in range(reps):
        remote = base / f"remote-{rep}"
        suite = small_suite(base / f"small-{rep}")
        times[names[3]].append(measured(_cli("run", str(suite)), suite.parent)[0])
        _fresh(suite.parent)
        _with_remote(suite, remote)
        times[names[0]].append(measured(_cli("run", str(suite)), suite.parent)[0])
        _fresh(suite.parent)  # the same inputs on a machine that has nothing yet
        times[names[1]].append(measured(_cli("run", str(suite)), suite.parent)[0])
        times[names[2]].append(measured(_cli("run", str(suite)), suite.parent)[0])
    cold = statistics.median(times[names[0]])
    return [(name, f"{statistics.median(t):.2f} s", f"{statistics.median(t) / cold:.2f}")
            for name, t in times.items()]


def bench_big(base: Path, reps: int) -> list[tuple[str, str, str]]:
    suite = make_suite(base / "big", cases=1000)
    remote = base / "remote-big"
    _with_remote(suite, remote)
    run, _cpu = measured(_cli("run", str(suite)), suite.parent)
    pulls = []
    for _ in range(reps):
        _fresh(suite.parent)
        pulls.append(measured(_cli("pull", str(suite)), suite.parent)[0])
    served = measured(_cli("run", str(suite)), suite.parent)[0]
    entries = len(list(remote.rglob("manifest.json")))
    return [("6,000-run suite: first run (pushes)", f"{run:.1f} s", f"{entries} remote entries"),
            ("pull into an empty store", f"{statistics.median(pulls):.1f} s", f"{reps} reps"),
            ("then run (grades and tables, no call)", f"{served:.1f} s", "")]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--only", choices=["small", "big"])
    p.add_argument("--tmp", help="where the suites live (default: the system's temp folder)")
    args = p.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-remote-", dir=args.tmp))
    try:
        if args.only in (None, "small"):
            print(tabulate(bench_small(base, args.reps), headers=["48-run suite", "median wall", "vs cold"]))
            print()
        if args.only in (None, "big"):
            print(tabulate(bench_big(base, args.reps), headers=["6,000 runs", "wall", ""]))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
