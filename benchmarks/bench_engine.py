"""Incremental engine benchmark (docs/incremental.md#performance-targets), as ratios measured in one run.

Generates a synthetic suite (10 skills × 100 cases × 2 variants × 3 iterations = 6,000 runs, a
trivial shell adapter) and times `skill-eval run` as a child process:

- first run; no-op (fast path); no-op after `touch` of every input file (full plan path);
  one fixture edited; one skill file edited;
- `-j 1/2/4/8/16` with an adapter that sleeps (64 runs), as speed-ups over -j 1;
- peak memory (ru_maxrss of the child, from wait4);
- raw doit's no-op over 6,000 trivial tasks with 2 file_deps each (json backend), same machine.

Medians of REPS runs (default 3).   python benchmarks/bench_engine.py [--reps N] [--cases N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKILLS = 10
ADAPTER = """#!/bin/sh
cat >/dev/null
{sleep}
printf '%s' '{{"output": "ok done", "events": [], "usage": {{"input_tokens": 1}}}}'
"""


def make_suite(root: Path, cases: int, iterations: int = 3, sleep: float = 0.0, skills: int = SKILLS) -> Path:
    root.mkdir(parents=True)
    adapter = root / "adapter.sh"
    adapter.write_text(ADAPTER.format(sleep=f"sleep {sleep}" if sleep else ""))
    adapter.chmod(0o755)
    per = max(1, cases // skills)
    for s in range(skills):
        name = f"skill-{s:02d}"
        d = root / "skills" / name
        (d / "evals" / "files").mkdir(parents=True)
        (d / "references").mkdir()
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Synthetic skill {s}.\n---\nBody.\n")
        (d / "references" / "ref.md").write_text("reference\n")
        evals = []
        for c in range(per):
            (d / "evals" / "files" / f"c{c}.txt").write_text(f"fixture {s}/{c}\n")
            evals.append({"id": f"c{c}", "prompt": f"Do task {c} of {name}.",
                          "files": [f"evals/files/c{c}.txt"],
                          "checks": [{"id": "ok", "type": "contains", "value": "ok"}]})
        (d / "evals" / "evals.json").write_text(json.dumps({"skill_name": name, "evals": evals}))
    (root / "suite.yaml").write_text(
        "suite: bench\nskills_dir: skills\nadapter:\n  command: [./adapter.sh]\n"
        f"iterations: {iterations}\njobs: 4\ntimeout_seconds: 60\nstore: store\nresults: results\n")
    return root / "suite.yaml"


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one child process."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed ({proc.returncode}): {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def skill_eval(*args: str) -> list[str]:
    return [sys.executable, "-m", "skill_eval.cli.main", *args]


def touch_all(root: Path) -> None:
    for p in (root / "skills").rglob("*"):
        os.utime(p)
    os.utime(root / "suite.yaml")
    os.utime(root / "adapter.sh")


def raw_doit(root: Path, n: int, reps: int) -> float:
    root.mkdir(parents=True)
    files = root / "files"
    files.mkdir()
    for i in range(n + 1):
        (files / f"f{i}").write_text(str(i))
    (root / "dodo.py").write_text(
        "DOIT_CONFIG = {'backend': 'json', 'dep_file': '.doit.json', 'verbosity': 0}\n"
        f"def task_t():\n    for i in range({n}):\n"
        "        yield {'name': str(i), 'actions': None, 'file_dep': [f'files/f{i}', f'files/f{i + 1}']}\n")
    argv = [sys.executable, "-m", "doit", "-f", "dodo.py"]
    subprocess.run(argv, cwd=root, check=True, capture_output=True)
    return statistics.median(timed(argv, root)[0] for _ in range(reps))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--sleep", type=float, default=0.2)
    ap.add_argument("--sleep-runs", type=int, default=64)
    ap.add_argument("--parallel-only", action="store_true", help="only the -j measurements")
    args = ap.parse_args()
    rows: list[tuple[str, str, str]] = []
    peak = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        if not args.parallel_only:
            peak = big_suite(base, args, rows)
        peak = max(peak, parallel(base, args, rows))
        rows.append(("peak memory (max over children)", f"{peak:.0f} MB", "target ≤ 150 MB"))

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':{width}}  {'value':>10}  note")
    for name, value, note in rows:
        print(f"{name:{width}}  {value:>10}  {note}")


def big_suite(base: Path, args: argparse.Namespace, rows: list[tuple[str, str, str]]) -> float:
    reps = args.reps
    peak = 0.0
    if True:  # (kept as a block: the measurements below share one generated suite)
        suite = make_suite(base / "big", args.cases)
        root = suite.parent
        runs = args.cases * 2 * 3
        wall, mem = timed(skill_eval("run", str(suite)), root)
        peak = max(peak, mem)
        rows.append(("first run", f"{wall:.2f} s", f"{runs} runs, -j 4"))

        noop = []
        for _ in range(reps):
            w, mem = timed(skill_eval("run", str(suite)), root)
            noop.append(w)
            peak = max(peak, mem)
        noop_s = statistics.median(noop)
        rows.append(("no-op (fast path)", f"{noop_s:.3f} s", "target ≤ 0.5 s"))

        full = []
        for _ in range(reps):
            touch_all(root)
            w, mem = timed(skill_eval("run", str(suite)), root)
            full.append(w)
            peak = max(peak, mem)
        rows.append(("no-op after touch (full plan)", f"{statistics.median(full):.3f} s",
                     "every input file touched"))

        # adapter time of one run, for the one-edit target
        adapter_t = statistics.median(
            timed([str(root / "adapter.sh")], root)[0] for _ in range(5))

        fix = []
        for i in range(reps):
            (root / "skills" / "skill-03" / "evals" / "files" / f"c{i}.txt").write_text(f"edited {i}\n")
            w, mem = timed(skill_eval("run", str(suite)), root)
            fix.append(w)
            peak = max(peak, mem)
        fix_s = statistics.median(fix)
        budget = noop_s + 6 * adapter_t + 0.3
        rows.append(("one fixture edited (6 runs)", f"{fix_s:.3f} s",
                     f"target ≤ no-op + adapter + 0.3 = {budget:.3f} s"))

        sk = []
        for i in range(reps):
            (root / "skills" / "skill-05" / "references" / "ref.md").write_text(f"edited {i}\n")
            w, mem = timed(skill_eval("run", str(suite)), root)
            sk.append(w)
            peak = max(peak, mem)
        per_skill = args.cases // SKILLS * 3
        rows.append((f"one skill file edited ({per_skill} runs)", f"{statistics.median(sk):.3f} s",
                     "with_skill arm of one skill"))

        doit_s = raw_doit(base / "rawdoit", runs, reps)
        rows.append((f"raw doit no-op, {runs} tasks × 2 file_deps", f"{doit_s:.3f} s",
                     f"skill-eval no-op / raw doit = {noop_s / doit_s:.2f}"))

    return peak


def parallel(base: Path, args: argparse.Namespace, rows: list[tuple[str, str, str]]) -> float:
    """-j N with a sleeping adapter. Each wall also holds a fixed part (start-up, planning,
    tables) and per-run harness work that no -j can hide; the same suite with an adapter that
    does not sleep measures it, so the second figure is the speed-up of the adapters' time."""
    peak = 0.0
    n_cases = args.sleep_runs // 2
    sleepy = make_suite(base / "sleepy", n_cases, iterations=1, sleep=args.sleep, skills=1)
    quick = make_suite(base / "quick", n_cases, iterations=1, sleep=0.0, skills=1)
    walls: dict[int, float] = {}
    fixed: dict[int, float] = {}
    for suite, out in ((sleepy, walls), (quick, fixed)):
        timed(skill_eval("run", str(suite), "-j", "16"), suite.parent)
        for j in (1, 2, 4, 8, 16):
            ws = []
            for _ in range(args.reps):
                w, mem = timed(skill_eval("run", str(suite), "--force", "-j", str(j)), suite.parent)
                ws.append(w)
                peak = max(peak, mem)
            out[j] = statistics.median(ws)
    for j, w in walls.items():
        speed = walls[1] / w
        adapters = (walls[1] - fixed[1]) / max(w - fixed[j], 1e-9)
        rows.append((f"-j {j} ({args.sleep_runs} runs × {args.sleep} s sleep)", f"{w:.2f} s",
                     f"speed-up {speed:.2f} = {speed / j:.2f}·N; adapter time {adapters:.2f} = "
                     f"{adapters / j:.2f}·N (fixed {fixed[j]:.2f} s)"))
    return peak


if __name__ == "__main__":
    main()
