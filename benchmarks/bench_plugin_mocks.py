"""What ``validate`` and ``status`` read of a ``claude plugin eval`` suite whose mocks are
suite-wide: CASES cases sharing one mocked server whose fixtures hold MB megabytes.

Suite-wide mocks (``evals/mocks/``) are the same for every case; reading and hashing them once
per case made a 60-case suite with 10 MB of fixtures read 1.2 GB per command. Each command runs
in a fresh process REPEAT times; prints the median wall time and the bytes the process read
(``rchar`` of /proc/self/io: every read() call, page cache or not).

    python benchmarks/bench_plugin_mocks.py [--cases 60] [--mb 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUN = ("import sys; from skill_eval.cli.main import main; code = main(sys.argv[1:]); "
       "print('rchar', next(ln.split()[1] for ln in open('/proc/self/io') if ln.startswith('rchar')), "
       "file=sys.stderr); sys.exit(code)")


def write_suite(root: Path, cases: int, mb: int) -> Path:
    files = {".claude-plugin/plugin.json": '{"name": "p"}',
             "skills/s/SKILL.md": "---\nname: s\ndescription: S things.\n---\nDo s.\n",
             "a.py": "print('{}')\n",
             "evals/mocks/db/query.md": "Rows: {{file:fixtures/rows-{input.n}.json}}\n"}
    for i in range(cases):
        files[f"evals/c{i}/prompt.md"] = f"Query the rows, case {i}.\n"
        files[f"evals/c{i}/graders/g.md"] = '---\ntype: regex\npattern: "ok"\n---\n'
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    chunk = ("[" + ",".join(['{"id": 1, "name": "row"}'] * 40_000) + "]\n")[: 1024 * 1024]
    (root / "evals/mocks/db/fixtures").mkdir()
    for i in range(mb):  # 1 MiB fixtures: under the 4 MiB cap, so each one is served and hashed
        (root / f"evals/mocks/db/fixtures/rows-{i}.json").write_text(chunk)
    suite = root / "suite.yaml"
    suite.write_text(f"suite: p\nskills_dir: skills\nskills: ['*']\nadapter: {{command: [{sys.executable!r}, "
                     "a.py]}\nvariants: [with_skill]\niterations: 1\nstore: .store\nresults: results\n")
    return suite


def timed(command: str, suite: Path) -> tuple[float, int, int]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN, command, str(suite)], capture_output=True,
                          text=True, cwd=suite.parent, timeout=1800)
    wall = time.perf_counter() - start
    rchar = next(int(ln.split()[1]) for ln in done.stderr.splitlines() if ln.startswith("rchar"))
    return wall, rchar, done.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--mb", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-plugin-mocks-") as tmp:
        suite = write_suite(Path(tmp), args.cases, args.mb)
        print(f"{args.cases} cases, suite-wide mocks with {args.mb} MiB of fixtures; "
              f"medians of {args.repeat} fresh processes")
        for command in ("validate", "status"):
            runs = [timed(command, suite) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            read = statistics.median(r[1] for r in runs)
            print(f"  {command:9} {wall:7.2f} s  {read / 1e6:9.1f} MB read  (exit {runs[0][2]})")


if __name__ == "__main__":
    main()
