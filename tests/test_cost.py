"""Cost in benchmark.json: tokens and dollars per variant from the usage each run reported (and a
judge's usage from its grades), and what the lift costs."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from skill_eval.grade.grading import grade_run
from skill_eval.intake.schemas_io import load_schema
from skill_eval.model.cases import Case, Check
from skill_eval.model.results import AdapterResponse, RunError, RunResult
from skill_eval.review.comparison.benchmark import RunRecord, build_benchmark, usage_tokens
from skill_eval.review.render.markdown import benchmark_md, summary_md

CASE = Case(id="c1", prompt="p", checks=(Check("ok", "contains", params={"value": "ok"}),))


def rec(arm: str, it: int, usage: dict, passed: bool = True,
        judge_usage: dict | None = None) -> RunRecord:
    result = RunResult(key=f"{arm}-{it}", duration_s=1.0,
                       response=AdapterResponse("ok" if passed else "no", (), usage))
    grade = grade_run(CASE, result, "sk", False)
    if judge_usage is not None:
        grade["judge_usage"] = judge_usage
    return RunRecord.of(CASE.id, arm, it, result, grade)


def bench(records: list[RunRecord]) -> dict:
    b = build_benchmark("s", "sk", "m", [CASE], records, None)
    errors = list(Draft202012Validator(load_schema("benchmark")).iter_errors(b))
    assert not errors, [e.message for e in errors]
    return b


def test_usage_tokens_counts_anthropic_cache_but_not_openai_cached_subset():
    assert usage_tokens({"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100,
                         "cache_creation_input_tokens": 50, "cost_usd": 1}) == 165
    assert usage_tokens({"input_tokens": 1000, "cached_input_tokens": 600, "output_tokens": 80}) == 1080
    assert usage_tokens({"input_tokens": 3, "total_tokens": 99}) == 99
    assert usage_tokens({"cost_usd": 0.1, "num_turns": 2}) is None


def test_arm_cost_and_lift_per_token_and_dollar():
    records = [rec("with_skill", i, {"input_tokens": 900, "output_tokens": 100, "cost_usd": 0.03},
                   judge_usage={"input_tokens": 50, "output_tokens": 10, "cost_usd": 0.001}) for i in (1, 2)]
    records += [rec("without_skill", i, {"input_tokens": 400, "output_tokens": 100, "cost_usd": 0.01},
                    passed=False) for i in (1, 2)]
    records.append(RunRecord.of(CASE.id, "with_skill", 3, RunError("e", "timeout", "slow", 9.0)))
    b = bench(records)
    w, wo = b["variants"]["with_skill"], b["variants"]["without_skill"]
    assert (w["input_tokens"], w["output_tokens"], w["total_tokens"]) == (1800, 200, 2000)
    assert w["cost_usd"] == pytest.approx(0.06) and w["cost_usd_per_run"] == pytest.approx(0.03)
    assert (w["runs_with_tokens"], w["runs_with_cost"]) == (2, 2)  # the errored run reported nothing
    assert w["tokens_per_run"] == 1000 and wo["tokens_per_run"] == 500
    assert w["judge_tokens"] == 120 and w["judge_cost_usd"] == pytest.approx(0.002)
    assert wo["judge_tokens"] is None and wo["judge_cost_usd"] is None
    assert w["cache_read_tokens"] is None
    lift = b["lift"]
    assert lift["pass_rate"] == 1.0
    assert lift["extra_tokens_per_run"] == 500
    assert lift["extra_cost_usd_per_run"] == pytest.approx(0.02)
    assert "per_1k_tokens" not in lift and "per_usd" not in lift
    md = benchmark_md(b)
    assert "judge cost" in md and "$0.0020" in md
    assert "+500 tokens per run with the skill; +$0.0200 per run" in md
    assert "pp of lift per" not in md
    assert "$0.0600 / $0.0200" in summary_md([b])


def test_unknown_cost_stays_unknown():
    records = [rec("with_skill", 1, {"num_turns": 1}), rec("without_skill", 1, {}, passed=False)]
    b = bench(records)
    w = b["variants"]["with_skill"]
    assert w["total_tokens"] is None and w["cost_usd"] is None and w["tokens_per_run"] is None
    assert b["lift"]["extra_tokens_per_run"] is None and b["lift"]["extra_cost_usd_per_run"] is None
    assert "Cost of the skill: unknown (the adapter reported no token counts or cost)" in benchmark_md(b)
    assert "| n/a " in summary_md([b]) or "n/a |" in summary_md([b])


def test_a_skill_that_saves_tokens_has_no_price_per_point():
    records = [rec("with_skill", 1, {"input_tokens": 100, "cost_usd": 0.001}),
               rec("without_skill", 1, {"input_tokens": 400, "cost_usd": 0.004}, passed=False)]
    lift = bench(records)["lift"]
    assert lift["extra_tokens_per_run"] == -300
    assert lift["extra_cost_usd_per_run"] == pytest.approx(-0.003)
    assert "Cost per unit of lift" not in benchmark_md(bench(records))
