"""Holm across a suite's comparisons and `gate: holm` (skill_eval/review/comparison/multiplicity.py)."""

from __future__ import annotations

import pytest

from skill_eval.review.comparison.multiplicity import adjust


def _bench(p, mean=0.5, minimum=0.1, passed=3, graded=3, verdict="pass"):
    # The verdict is decided from the table's own counts: an errored or a not-run run says so.
    arm = {"passed": passed, "graded": graded, "errors": int(verdict == "error"),
           "not_run": int(verdict == "undecided")}
    return {"lift": {"p_value": p, "pass_rate": mean, "minimum_lift": minimum, "met": True},
            "variants": {"with_skill": arm, "without_skill": {**arm, "passed": 0}},
            "cases": [{"with_skill": {"passed": passed, "graded": graded}}], "verdict": verdict}


def test_one_comparison_keeps_its_p_and_gets_no_p_holm():
    b = _bench(0.01)
    assert adjust([b], "mean") == [] and "p_holm" not in b["lift"]


def test_several_comparisons_get_holm_and_the_mean_gate_leaves_verdicts_alone():
    benches = [_bench(0.04), _bench(0.01), _bench(None)]
    assert adjust(benches, "mean") == [0, 1]
    assert [b["lift"].get("p_holm") for b in benches] == [pytest.approx(0.04), pytest.approx(0.02), None]
    assert [b["verdict"] for b in benches] == ["pass", "pass", "pass"]


def test_gate_holm_fails_a_big_lift_that_is_not_significant_after_adjustment():
    benches = [_bench(0.03), _bench(0.03), _bench(0.001, verdict="error")]
    changed = adjust(benches, "holm")
    assert changed == [0, 1, 2]
    assert [b["lift"]["met"] for b in benches] == [False, False, True]
    assert [b["verdict"] for b in benches] == ["fail", "fail", "error"]
    assert adjust(benches, "holm") == []  # applying it again changes nothing


def test_gate_holm_keeps_a_table_with_runs_not_run_undecided():
    # One rule for the verdict: runs outside this --shard are unknown, whatever the adjusted p.
    benches = [_bench(0.03, verdict="undecided"), _bench(0.03, verdict="undecided"), _bench(0.001)]
    adjust(benches, "holm")
    assert [b["lift"]["met"] for b in benches] == [False, False, True]
    assert [b["verdict"] for b in benches] == ["undecided", "undecided", "pass"]
    assert [b["decided_by"] for b in benches] == ["not_run", "not_run", "minimum_lift_holm"]
