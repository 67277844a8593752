"""Harness overhead per run (docs/incremental.md#performance-targets: ≤ 10 ms beyond the adapter
process itself).

An instant adapter (a shell script that prints a fixed valid response) is timed two ways over N
runs: raw ``subprocess.run`` of the script, and ``runner.execute`` (workspace with a fixture and
the skill copied, request, process group + watcher, parse, redact, atomic store write, cleanup).
Prints medians and the difference.

    python benchmarks/bench_runner_overhead.py [N]
"""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from skill_eval.model.cases import Case, Fixture
from skill_eval.model.config import AdapterConfig, Suite
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.plan.types import RunSpec
from skill_eval.run.runner import execute
from skill_eval.store.store import Store

RESPONSE = '{"output": "feat(web): add login page", "events": [], "usage": {"input_tokens": 12}}'


def instant_project(root: Path) -> tuple[Path, Path]:
    """(script, skill folder): an adapter that prints RESPONSE at once, and a skill 'bench'.
    Also used by bench_sandbox.py."""
    script = root / "instant.sh"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\nprintf '%s' '{RESPONSE}'\n")
    script.chmod(0o755)
    skill = root / "skills" / "bench"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: bench\ndescription: x\n---\nbody\n")
    return script, skill


def main(n: int = 200) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        script, skill = instant_project(root)
        (skill / "evals" / "in.txt").write_text("fixture\n" * 100)
        suite = Suite(path=root / "suite.yaml", name="bench", skills_dir=root / "skills", skills=(),
                      adapter=AdapterConfig(command=(str(script),)))
        adapter = ResolvedAdapter("command", (str(script),))
        case = Case(id="c", prompt="Write it.", fixtures=(Fixture("in.txt", skill / "evals" / "in.txt"),))
        store = Store(root / "store")
        env = {"PATH": os.environ.get("PATH", os.defpath)}

        raw, full = [], []
        for i in range(n):
            t = time.perf_counter()
            subprocess.run([str(script)], input=b"{}", capture_output=True, env=env, check=True)
            raw.append(time.perf_counter() - t)
            spec = RunSpec(hashlib.sha256(str(i).encode()).hexdigest(), "bench", skill, case,
                           "with_skill" if i % 2 else "without_skill", "m", 1, adapter)
            t = time.perf_counter()
            result = execute(spec, suite, store)
            full.append(time.perf_counter() - t)
            assert result.output.startswith("feat"), result

        raw_ms, full_ms = statistics.median(raw) * 1e3, statistics.median(full) * 1e3
        print(f"runs: {n}")
        print(f"raw subprocess.run      median {raw_ms:7.2f} ms")
        print(f"runner.execute          median {full_ms:7.2f} ms")
        print(f"overhead per run        median {full_ms - raw_ms:7.2f} ms  (target <= 10 ms)")
        print(f"runner.execute p95 {sorted(full)[int(0.95 * n)] * 1e3:.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
