"""What ``adapter: {sandbox: bwrap}`` costs per run (docs/sandbox.md).

An instant adapter (a shell script printing a fixed valid response) runs through
``runner.execute`` N times unsandboxed and N times in the bubblewrap sandbox, interleaved;
prints the medians and the difference (the price of the namespaces and mounts).

    python benchmarks/bench_sandbox.py [N]
"""

from __future__ import annotations

import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

from skill_eval.model.cases import Case
from skill_eval.model.config import AdapterConfig, Suite
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.plan.types import RunSpec
from skill_eval.run import sandbox
from skill_eval.run.runner import execute
from skill_eval.store.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_runner_overhead import instant_project  # noqa: E402


def main(n: int = 100) -> None:
    sandbox.require()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        script, skill = instant_project(root)
        suite = Suite(path=root / "suite.yaml", name="bench", skills_dir=root / "skills", skills=(),
                      adapter=AdapterConfig(command=(str(script),)), store=root / "store",
                      results=root / "results")
        argv = (str(script),)
        plain = ResolvedAdapter("command", argv)
        boxed = ResolvedAdapter("command", argv, sandbox="bwrap",
                                readable=tuple(str(p) for p in sandbox.needed_paths(argv)))
        case = Case(id="c", prompt="Write it.")
        store = Store(root / "store")
        times: dict[str, list[float]] = {"unsandboxed": [], "bwrap": []}
        for i in range(n):
            for name, adapter in (("unsandboxed", plain), ("bwrap", boxed)):
                key = hashlib.sha256(f"{name}{i}".encode()).hexdigest()
                spec = RunSpec(key, "bench", skill, case, "with_skill", "m", 1, adapter)
                t = time.perf_counter()
                result = execute(spec, suite, store)
                times[name].append(time.perf_counter() - t)
                assert result.output.startswith("feat"), result
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    print(f"{'runs':>6} {'unsandboxed ms':>15} {'bwrap ms':>10} {'sandbox cost ms':>16}")
    cost = med["bwrap"] - med["unsandboxed"]
    print(f"{n:>6} {med['unsandboxed']:>15.1f} {med['bwrap']:>10.1f} {cost:>16.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
