"""`skill-eval report` on a suite whose results are up to date: wall time, CPU and the files it
creates under results/. Medians of several reports.

report rebuilds every run folder (it repairs a hand-edited one); on an up-to-date folder it
should write nothing, and a new file is the dearest thing it can do (on ext4 the kernel's inode
allocation alone is 0.1-0.3 ms a file).

    python benchmarks/bench_report.py [--cases N] [--iterations N] [--repeats N] [--tmp DIR]

The suite: 2 skills x N cases x iterations x 2 arms, a protocol-v1 command adapter that answers
at once and keeps one file from its workspace (so every run folder has files/ to compare).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from skill_eval.cli.main import main as skill_eval

ADAPTER = r'''import _json, os, sys
req = _json.make_scanner(type("D", (), {"strict": True, "object_hook": None, "object_pairs_hook": None,
    "parse_float": float, "parse_int": int, "parse_constant": float, "memo": {}})())(sys.stdin.read(), 0)[0]
with open(os.path.join(req["workspace"], "notes.txt"), "w") as f:
    f.write("notes of " + req["mode"] + "\n")
out = "%s says: %s" % (req["mode"], req["prompt"])
sys.stdout.write('{"output": %s, "usage": {"input_tokens": 10, "output_tokens": 5}}'
                 % _json.encode_basestring_ascii(out))
'''

def build(root: Path, cases: int, iterations: int) -> None:
    (root / "adapter.py").write_text(ADAPTER)
    suite = {"suite": "bench-report", "skills_dir": "skills", "skills": ["*"], "iterations": iterations,
             "adapter": {"command": ["python3", "-S", "adapter.py"]}, "jobs": 2,
             "store": ".skill-eval/store", "results": "results"}
    (root / "suite.yaml").write_text(json.dumps(suite, indent=1))  # YAML reads JSON
    for skill in ("alpha", "beta"):
        d = root / "skills" / skill
        (d / "evals").mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {skill}\ndescription: The {skill} skill.\n---\nDo it.\n")
        check = {"id": "says", "type": "contains", "value": "with_skill"}
        evals = [{"id": f"c{i}", "prompt": f"Task {i}: write it.", "checks": [check]} for i in range(cases)]
        (d / "evals" / "evals.json").write_text(json.dumps({"skill_name": skill, "evals": evals}))


def cli(root: Path, *args: str) -> int:
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return skill_eval(list(args))
    finally:
        os.chdir(cwd)


def inodes(results: Path) -> dict[str, int]:
    return {str(p): p.lstat().st_ino for p in results.rglob("*")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tmp", default=None, help="where to build the suite (default: the temp folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-", dir=args.tmp) as tmp:
        root = Path(tmp)
        build(root, args.cases, args.iterations)
        assert cli(root, "run", "suite.yaml") in (0, 1)
        walls, cpus, created = [], [], []
        for _ in range(args.repeats):
            before = inodes(root / "results")
            wall, cpu = time.perf_counter(), time.process_time()
            assert cli(root, "report", "suite.yaml") == 0
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            after = inodes(root / "results")
            created.append(sum(1 for name, ino in after.items() if before.get(name) != ino))
        runs = 2 * args.cases * args.iterations * 2
        print(tabulate([["runs", runs],
                        ["report wall, s (median)", f"{statistics.median(walls):.3f}"],
                        ["report CPU, s (median)", f"{statistics.median(cpus):.3f}"],
                        ["files created under results/ per report (median)", statistics.median(created)]],
                       tablefmt="github"))


if __name__ == "__main__":
    main()
