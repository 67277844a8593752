"""Harness overhead at suite scale (issue 25), measured side by side in one run.

1. A 48-run suite (2 skills x 4 cases x 3 iterations x 2 arms) whose protocol-v1 adapter is a
   small Python script: ``skill-eval run -j 2`` from a cold store, against the same adapter's
   48 calls in a plain sequential shell loop. The two alternate, REPS times each; medians,
   the ratio, and our CPU beyond the adapter's own per run ((CPU of skill-eval and everything it
   waited for) - (CPU of the loop), over 48: start-up, planning and tables included).
2. The 6,000-run suite of bench_engine.py: the no-op, one fixture edited (6 runs), and raw
   doit's no-op on 6,000 tasks, alternating; medians and the targets.

Timings on a shared machine are noisy: every figure is a median of REPS (default 5).

    python benchmarks/bench_overhead.py [--reps N] [--only small|big] [--keep DIR] [--before SRC] [--tmp DIR]

Where the suites live matters: a run creates some twenty files (workspace, store entry, run
folder), and on a busy ext4 each new file costs a third of a millisecond of kernel time. The
small bench prints that cost for its folder; ``--tmp /dev/shm`` measures the same on a tmpfs.

The package is byte-compiled first (compileall), as an installed wheel is: an editable install
under PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module from source at each start.
``--before SRC`` also times the skill-eval of another source tree (a checkout of main, say: its
folder holding ``skill_eval/``) in the same alternation, for before/after figures in one run.

``--keep DIR`` keeps the generated 6,000-run suite in DIR (built once; later invocations
reuse it, so the ten-odd seconds of its first run are paid once).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import make_suite, raw_doit, skill_eval  # noqa: E402  (a sibling script)

RUNS = 48
ADAPTER = r'''import json, os, sys
req = json.load(sys.stdin)
out = "%s: %s [%s]" % (req["mode"], req["prompt"], ",".join(f["path"] for f in req["files"]))
with open(os.path.join(req["workspace"], "outputs", "answer.txt"), "w") as f:
    f.write(out)
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if req["skill"] else []
json.dump({"output": out, "events": events, "usage": {"input_tokens": 10, "output_tokens": 5}},
          sys.stdout)
'''


def measured(argv: list[str], cwd: Path, src: Path | None = None) -> tuple[float, float]:
    """(wall s, CPU s of the child and every process it waited for) of one child process;
    ``src``: run the skill-eval found there instead of this one."""
    env = {**os.environ, "PYTHONPATH": str(src)} if src is not None else None
    t = time.perf_counter()
    with open(os.devnull, "rb") as fin:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{argv} failed ({code}): {err[-2000:]}")
    if proc.stderr:
        proc.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def small_suite(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "adapter.py").write_text(ADAPTER)
    for s in ("alpha", "beta"):
        d = root / "skills" / s
        (d / "evals" / "files").mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {s}\ndescription: Skill {s} for the benchmark.\n---\n"
                                    + "Do it well.\n" * 20)
        (d / "references").mkdir()
        (d / "references" / "guide.md").write_text("A guide.\n" * 50)
        evals = []
        for c in range(4):
            (d / "evals" / "files" / f"in{c}.txt").write_text(f"input {s}/{c}\n" * 200)
            evals.append({"id": f"c{c}", "prompt": f"Task {c} of {s}: summarise the input.",
                          "files": [f"evals/files/in{c}.txt"],
                          "checks": [{"id": "says", "type": "contains", "value": "Task"},
                                     {"id": "file", "type": "file_exists", "path": "outputs/answer.txt"}]})
        (d / "evals" / "evals.json").write_text(json.dumps({"skill_name": s, "evals": evals}))
    (root / "suite.yaml").write_text(
        f"suite: overhead\nskills_dir: skills\nadapter:\n  command: [{sys.executable}, adapter.py]\n"
        "iterations: 3\njobs: 2\ntimeout_seconds: 60\nstore: store\nresults: results\n")
    # One request as the adapter gets it, for the plain loop (a real workspace, so it can write).
    ws = root / "loop-ws"
    (ws / "outputs").mkdir(parents=True)
    (root / "request.json").write_text(json.dumps({
        "protocol_version": 1, "mode": "with_skill", "skill": {"name": "alpha", "path": "skills/alpha"},
        "prompt": "Task 0 of alpha: summarise the input.", "workspace": str(ws), "model": "default",
        "files": [{"path": "inputs/in0.txt", "sha256": "0" * 64}], "case": {"id": "c0", "iteration": 1}}))
    return root / "suite.yaml"


def new_file_cost(folder: Path, n: int = 400) -> float:
    """CPU seconds to create and fill one small file in ``folder``: on a busy ext4 the inode
    allocator's skipping of recently deleted inodes makes this a third of a millisecond."""
    scratch = folder / "new-file-cost"
    scratch.mkdir()
    start = time.process_time()
    for i in range(n):
        fd = os.open(scratch / str(i), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, b"x" * 300)
        os.close(fd)
    cost = (time.process_time() - start) / n
    shutil.rmtree(scratch)
    return cost


def cold(suite: Path) -> None:
    for sub in ("store", "results"):
        shutil.rmtree(suite.parent / sub, ignore_errors=True)


def _arms(before: Path | None) -> list[tuple[str, Path | None]]:
    if before is None:
        return [("this tree", None)]
    # Both arms by PYTHONPATH: the adapters inherit it, and a Python adapter whose imports search
    # one folder more starts slower, which alone made a tree look 12% slower than itself.
    import skill_eval

    return [("this tree", Path(skill_eval.__file__).resolve().parent.parent), ("before", before)]


def _in_turn(arms: list[tuple[str, Path | None]], rep: int) -> list[tuple[str, Path | None]]:
    """The arms in turn, first one first on even repetitions and last on odd ones: an arm that
    always ran right after the other's cold store was deleted would pay for that deletion (ext4
    skips recently freed inodes when it allocates new ones), which made a tree look ~15% slower
    than itself."""
    return arms if rep % 2 == 0 else arms[::-1]


def bench_small(base: Path, reps: int, before: Path | None) -> list[tuple[str, str, str]]:
    suite = small_suite(base / "small")
    root = suite.parent
    loop = ["/bin/sh", "-c", f'i=0; while [ $i -lt {RUNS} ]; do "$0" adapter.py < request.json > /dev/null; '
            'i=$((i+1)); done', sys.executable]
    run = skill_eval("run", str(suite), "-j", "2")
    arms = _arms(before)
    measured(loop, root)  # warm the file cache
    for _, src in arms:
        cold(suite)
        measured(run, root, src)
    walls: dict[str, list[float]] = {name: [] for name, _ in [*arms, ("loop", None)]}
    cpus: dict[str, list[float]] = {name: [] for name in walls}
    for i in range(reps):
        for name, src in _in_turn(arms, i):
            cold(suite)
            w, c = measured(run, root, src)
            walls[name].append(w)
            cpus[name].append(c)
        w, c = measured(loop, root)
        walls["loop"].append(w)
        cpus["loop"].append(c)
    lw, lc = statistics.median(walls["loop"]), statistics.median(cpus["loop"])
    rows = [(f"plain sequential loop, {RUNS} adapter calls", f"{lw:.3f} s",
             f"CPU {lc:.3f} s ({lc / RUNS * 1e3:.1f} ms a call)")]
    per_run = sum(len(files) for sub in ("store", "results") for _, _, files in os.walk(root / sub)) / RUNS
    cost = new_file_cost(base)
    rows.append(("new files a run leaves in store/ and results/", f"{per_run:.1f}",
                 f"a new file in this folder costs {cost * 1e3:.3f} ms of CPU: "
                 f"{per_run * cost * 1e3:.1f} ms a run (its workspace's files come on top)"))
    for name, _ in arms:
        sw, sc = statistics.median(walls[name]), statistics.median(cpus[name])
        rows += [(f"skill-eval run -j 2, cold store ({name})", f"{sw:.3f} s", f"CPU {sc:.3f} s"),
                 ("  wall ratio skill-eval / loop", f"{sw / lw:.2f}", "target ≤ 0.60"),
                 ("  our CPU beyond the adapter's, per run", f"{(sc - lc) / RUNS * 1e3:.1f} ms",
                  "target ≤ 8 ms (start-up included)")]
    return rows


def _edit(root: Path, i: int) -> None:
    path = root / "skills" / "skill-03" / "evals" / "files" / f"c{i % 5}.txt"
    path.write_text(f"edited {time.time_ns()}\n")


def bench_big(base: Path, reps: int, keep: Path | None, before: Path | None) -> list[tuple[str, str, str]]:
    where = keep or base
    suite = where / "big" / "suite.yaml"
    if not suite.is_file():
        shutil.rmtree(where / "big", ignore_errors=True)
        make_suite(where / "big", 1000)
    root = suite.parent
    run = skill_eval("run", str(suite))
    t = time.perf_counter()
    measured(run, root)  # first run (or catch-up after an edit)
    first = time.perf_counter() - t
    rawdir = base / "rawdoit"
    raw_doit(rawdir, 6000, 1)  # builds its DB; timed below
    raw = [sys.executable, "-m", "doit", "-f", "dodo.py"]
    adapter_t = statistics.median(measured([str(root / "adapter.sh")], root)[0] for _ in range(5))
    arms = _arms(before)
    noop: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in arms}
    edit: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in arms}
    doit_t = []
    for i in range(reps):
        for name, src in _in_turn(arms, i):
            measured(run, root, src)  # the other arm's state files are its own: settle them
            noop[name].append(measured(run, root, src))
            _edit(root, i)
            edit[name].append(measured(run, root, src))
        doit_t.append(measured(raw, rawdir))
    d, dc = (statistics.median(x) for x in zip(*doit_t, strict=True))
    rows = [("6,000 runs: first run (or catch-up)", f"{first:.2f} s", "not a target"),
            ("raw doit no-op, 6,000 tasks x 2 file_deps", f"{d:.3f} s", f"CPU {dc:.3f} s")]
    for name, _ in arms:
        n, nc = (statistics.median(x) for x in zip(*noop[name], strict=True))
        e, ec = (statistics.median(x) for x in zip(*edit[name], strict=True))
        budget = n + 0.3 + 6 * adapter_t
        rows += [(f"6,000 runs: no-op ({name})", f"{n:.3f} s",
                  f"no-op / raw doit = {n / d:.2f} (target ≤ 0.30); by CPU {nc:.3f} s / {dc:.3f} s "
                  f"= {nc / dc:.2f}"),
                 (f"6,000 runs: one fixture edited, 6 runs ({name})", f"{e:.3f} s",
                  f"target ≤ no-op + 0.3 s + 6 adapter calls = {budget:.3f} s; edit - no-op = {e - n:.3f} s "
                  f"(CPU {ec:.3f} s, {ec - nc:.3f} s over the no-op's)")]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", choices=("small", "big"))
    ap.add_argument("--keep", type=Path, help="keep (and reuse) the 6,000-run suite in this folder")
    ap.add_argument("--before", type=Path, help="a source tree (holding skill_eval/) to time alongside")
    ap.add_argument("--tmp", type=Path, help="make the suites in this folder (a tmpfs, say), not in $TMPDIR")
    args = ap.parse_args()
    import skill_eval

    for tree in (Path(skill_eval.__file__).parent, *([args.before / "skill_eval"] if args.before else [])):
        compileall.compile_dir(tree, quiet=1)
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        base = Path(tmp)
        if args.only in (None, "small"):
            rows += bench_small(base, args.reps, args.before)
        if args.only in (None, "big"):
            rows += bench_big(base, args.reps, args.keep, args.before)
    width = max(len(r[0]) for r in rows)
    print(f"medians of {args.reps}, alternating; {os.cpu_count()} cores")
    print(f"{'measure':{width}}  {'value':>9}  note")
    for name, value, note in rows:
        print(f"{name:{width}}  {value:>9}  {note}")


if __name__ == "__main__":
    main()
