"""Executors benchmark: threads vs a local Ray, 200 runs of a 0.5 s adapter at -j 8/32/64.

Each cell is the wall time of a whole `skill-eval run` (child process, fresh suite and store),
median of REPS. The ideal is ceil(200 / j) x 0.5 s. Printed per run:

- threads overhead  = (threads wall - ideal) / 200
- Ray over threads  = (ray wall - threads wall) / 200: everything Ray costs, its start included
- Ray per run       = (ray wall - Ray start/stop - threads wall) / 200: Ray's own cost per run
  once it is up (task submission, worker processes, shipping the bytes, the result back)

Ray start/stop is timed apart: a child process that opens and closes the executor sized for j.
"Ray per run (cold pool)" still holds the start of Ray's worker processes (about a second of CPU
each, one per run in flight); "warm pool" times the runs through the executor alone, from j
threads, on the third pass in one process (all workers up), against threads timed the same way.
The target (under 20 ms per run) is for the warm pool. On a 2-core machine Ray's worker
processes compete with the adapters for the CPU: read the figures as upper bounds.

    python benchmarks/bench_executors.py [--reps N] [--runs N] [--sleep S] [--jobs 8,32,64]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import make_suite, skill_eval, timed  # noqa: E402

RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0"}
START_STOP = """
import time
from skill_eval.engine.executors.ray_tasks import RayExecutor
from skill_eval.model.config import ExecutorConfig
t = time.perf_counter()
ex = RayExecutor(ExecutorConfig("ray"), {jobs})
ex.open()
ex.close()
print(time.perf_counter() - t)
"""


def one_run(executor: str, jobs: int, runs: int, sleep: float) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-exec-") as tmp:
        suite = make_suite(Path(tmp) / "s", cases=runs // 2, iterations=1, sleep=sleep, skills=1)
        wall, _ = timed(skill_eval("run", str(suite), "-j", str(jobs), "--executor", executor), suite.parent)
        return wall


def ray_start_stop(jobs: int) -> float:
    import subprocess

    out = subprocess.run([sys.executable, "-c", START_STOP.format(jobs=jobs)], capture_output=True,
                         text=True, check=True, env={**os.environ, **RAY_ENV})
    return float(out.stdout.strip().splitlines()[-1])


def steady(executor: str, jobs: int, runs: int, sleep: float, passes: int) -> None:
    """(child) The runs through the executor from ``jobs`` threads, ``passes`` times in one
    process; prints the wall time of the last pass: Ray's workers are all warm by then."""
    from concurrent.futures import ThreadPoolExecutor

    from skill_eval.engine.engine import Engine
    from skill_eval.engine.executors import make_executor
    from skill_eval.model.config import ExecutorConfig
    from skill_eval.model.project import load_project
    from skill_eval.store.store import Store

    with tempfile.TemporaryDirectory(prefix="bench-exec-") as tmp:
        suite = make_suite(Path(tmp) / "s", cases=runs // 2, iterations=1, sleep=sleep, skills=1)
        project = load_project(suite, None)
        store = Store(project.suite.store)
        ex = make_executor(ExecutorConfig(executor), jobs)
        ex.open()
        try:
            specs = Engine(project, store, executor=ex).selected_runs()
            for _ in range(passes):
                for spec in specs:
                    store.discard_run(spec.key)
                t = time.perf_counter()
                with ThreadPoolExecutor(jobs) as pool:
                    outcomes = list(pool.map(lambda s: ex.run(s, project.suite, store), specs))
                wall = time.perf_counter() - t
            assert all(type(o).__name__ == "RunResult" for o in outcomes), outcomes[:3]
        finally:
            ex.close()
    print(wall)


def steady_wall(executor: str, jobs: int, runs: int, sleep: float) -> float:
    import subprocess

    out = subprocess.run([sys.executable, __file__, "--steady", executor, "--jobs", str(jobs),
                          "--runs", str(runs), "--sleep", str(sleep)],
                         capture_output=True, text=True, check=True, env={**os.environ, **RAY_ENV})
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--sleep", type=float, default=0.5)
    ap.add_argument("--jobs", default="8,32,64")
    ap.add_argument("--steady", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.update(RAY_ENV)
    if args.steady:
        steady(args.steady, int(args.jobs), args.runs, args.sleep, passes=3)
        return
    rows = []
    for jobs in (int(j) for j in args.jobs.split(",")):
        ideal = math.ceil(args.runs / jobs) * args.sleep
        thr = statistics.median(one_run("threads", jobs, args.runs, args.sleep) for _ in range(args.reps))
        ray = statistics.median(one_run("ray", jobs, args.runs, args.sleep) for _ in range(args.reps))
        start = statistics.median(ray_start_stop(jobs) for _ in range(args.reps))
        s_thr = statistics.median(steady_wall("threads", jobs, args.runs, args.sleep)
                                  for _ in range(args.reps))
        s_ray = statistics.median(steady_wall("ray", jobs, args.runs, args.sleep) for _ in range(args.reps))
        rows.append((jobs, ideal, thr, ray, start, s_thr, s_ray,
                     (thr - ideal) / args.runs * 1e3,
                     (ray - thr) / args.runs * 1e3,
                     (ray - start - thr) / args.runs * 1e3,
                     (s_ray - s_thr) / args.runs * 1e3))
        print(f"-j {jobs}: threads {thr:.2f}s, ray {ray:.2f}s, ray start/stop {start:.2f}s, "
              f"warm: threads {s_thr:.2f}s, ray {s_ray:.2f}s", flush=True)
    print(f"\n{args.runs} runs of a {args.sleep:g} s adapter, median of {args.reps}; "
          f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d')}")
    head = ("-j", "ideal s", "threads s", "ray s", "ray start+stop s", "warm threads s", "warm ray s",
            "threads ovh ms/run", "ray over threads ms/run", "ray per run ms (cold pool)",
            "ray per run ms (warm pool; target < 20)")
    print(" | ".join(head))
    for r in rows:
        print(" | ".join([str(r[0])] + [f"{v:.2f}" for v in r[1:7]] + [f"{v:.1f}" for v in r[7:]]))


if __name__ == "__main__":
    main()
