"""Grading throughput for text checks on one core (docs/incremental.md#performance-targets:
≥ 20,000 outputs/s).

Each output is ~2 KB and gets 5 text checks. Two figures: the check loop alone (context +
run_check) and full ``grade_run`` (which also builds the grading.json dict).

    python benchmarks/bench_grading.py [N]
"""

from __future__ import annotations

import random
import string
import sys
import time

from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.grade.grading import grade_run
from skill_eval.model.cases import Case, Check
from skill_eval.model.results import AdapterResponse, RunResult

TARGET = 20_000


def outputs(n: int, size: int = 2048) -> list[str]:
    rng = random.Random(0)
    words = ["".join(rng.choices(string.ascii_letters, k=rng.randint(2, 9))) for _ in range(500)]
    out = []
    for i in range(n):
        text = []
        while sum(map(len, text)) + len(text) < size:
            text.append(rng.choice(words))
        if i % 2:
            text.insert(len(text) // 2, "Total: 42 units")
        out.append(" ".join(text)[:size])
    return out


CHECKS = (
    Check("c1", "contains", params={"value": "total"}),
    Check("c2", "not_contains", params={"value": "traceback"}),
    Check("c3", "contains_all", params={"values": ["units", "42"]}),
    Check("c4", "contains_any", params={"values": ["summary", "total"]}),
    Check("c5", "regex", params={"pattern": r"total:\s*\d+"}),
)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    texts = outputs(n)
    runs = [RunResult(key=str(i), response=AdapterResponse(t), duration_s=1.0) for i, t in enumerate(texts)]
    case = Case(id="bench", prompt="p", checks=CHECKS)

    start = time.perf_counter()
    for t in texts:
        ctx = CheckContext(output=t, skill_name="sk")
        for c in CHECKS:
            run_check(c, ctx)
    loop = n / (time.perf_counter() - start)

    start = time.perf_counter()
    for r in runs:
        grade_run(case, r, "sk", False)
    full = n / (time.perf_counter() - start)

    print(f"outputs: {n} x ~{len(texts[0])} chars, {len(CHECKS)} text checks each, one core")
    print(f"{'check loop':<12} {loop:>10,.0f} outputs/s  ({loop / TARGET:.2f}x target {TARGET:,})")
    print(f"{'grade_run':<12} {full:>10,.0f} outputs/s  ({full / TARGET:.2f}x target {TARGET:,})")


if __name__ == "__main__":
    main()
