"""Wall time of ``skill-eval validate`` against the number of cases (issue 14: 10,000 cases < 2 s).

Generates throw-away suites of one skill whose eval set holds N cases (1k, 5k, 10k by default),
each case with a prompt, a fixture, and four checks: ``contains`` with a value of its own,
``not_contains``, ``json_path_equals`` and a ``regex``. Two shapes of regex are timed:

- *pooled*: patterns drawn from 50 (eval sets repeat their patterns),
- *distinct*: a different pattern in every case (each must be compiled once: the worst case).

Each row is the median wall time of R separate ``skill-eval validate`` processes (start-up
included), default R = 3.

    python benchmarks/bench_validate.py [R] [N ...]
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_10K = 2.0


def make_suite(root: Path, n: int, distinct: bool) -> Path:
    skill = root / "skills" / "gen"
    (skill / "evals" / "files").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: gen\ndescription: A generated skill for timing validate.\n"
                                    "---\nDo the task.\n")
    (skill / "evals" / "files" / "input.txt").write_text("some input\n")
    cases = []
    for i in range(n):
        pattern = f"^item-{i}:\\s+\\d+$" if distinct else f"^(feat|fix)\\({i % 50}\\): \\w+"
        cases.append({
            "id": f"case-{i:05d}",
            "prompt": f"Write the summary for ticket {i}; keep it under 50 words.",
            "files": ["evals/files/input.txt"],
            "checks": [
                {"type": "contains", "value": f"ticket {i}"},
                {"type": "not_contains", "value": "TODO"},
                {"type": "json_path_equals", "path": "result.id", "value": i},
                {"type": "regex", "pattern": pattern},
            ],
        })
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": "gen", "evals": cases}, indent=2))
    suite = root / "suite.yaml"
    suite.write_text("suite: gen\nskills_dir: skills\nadapter: {builtin: demo}\n"
                     "store: .store\nresults: results\n")
    return suite


def time_validate(suite: Path, runs: int) -> tuple[float, float]:
    """Median (wall seconds, CPU seconds) of ``runs`` validate processes. CPU time is shown too
    because on a shared machine the wall time mostly measures the neighbours."""
    argv = [sys.executable, "-m", "skill_eval.cli.main", "validate", str(suite)]
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=suite.parent)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"validate failed ({done.returncode}): {done.stderr[-500:]}")
    return statistics.median(walls), statistics.median(cpus)


def main(runs: int = 3, sizes: tuple[int, ...] = (1000, 5000, 10000)) -> int:
    print(f"skill-eval validate, median of {runs} runs per row (target: 10,000 cases < {TARGET_10K:.1f} s)\n")
    print(f"  load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
    print(f"  {'cases':>7}  {'regexes':<9}  {'wall s':>7}  {'cpu s':>7}  {'ms/case':>8}")
    worst = 0.0
    for n in sizes:
        for distinct in (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                seconds, cpu = time_validate(make_suite(Path(tmp), n, distinct), runs)
            if n == 10000:
                worst = max(worst, seconds)
            kind = "distinct" if distinct else "pooled"
            print(f"  {n:>7}  {kind:<9}  {seconds:7.2f}  {cpu:7.2f}  {seconds / n * 1000:8.3f}")
    if 10000 in sizes:
        verdict = "OK" if worst < TARGET_10K else "OVER TARGET"
        print(f"\n  10,000 cases, slowest shape: {worst:.2f} s wall  [{verdict}]")
        return 0 if worst < TARGET_10K else 1
    return 0


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    sys.exit(main(args[0], tuple(args[1:])) if len(args) > 1 else main(*args[:1]))
