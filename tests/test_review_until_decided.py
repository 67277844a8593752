"""benchmark.json's `adaptive` block (skill_eval/review/comparison/until_decided.py)."""

from __future__ import annotations

from skill_eval.model.cases import Case
from skill_eval.model.results import AdapterResponse, RunError, RunResult
from skill_eval.model.until_decided import UntilDecidedSettings
from skill_eval.review.comparison.benchmark import RunRecord
from skill_eval.review.comparison.until_decided import paired_rounds, until_decided_block

CASES = [Case(f"c{i}", "p") for i in range(8)]


def _rec(cid, arm, it, passed=True, error=False):
    if error:
        return RunRecord.of(cid, arm, it, RunError("k", "crash", "boom"))
    return RunRecord.of(cid, arm, it, RunResult("k", AdapterResponse("out", (), {}), 1.0),
                        {"passed": passed, "checks": []})


def _runs(iterations, error_at=None):
    out = []
    for it in range(1, iterations + 1):
        for c in CASES:
            out.append(_rec(c.id, "with_skill", it, error=(it, c.id) == error_at))
            out.append(_rec(c.id, "without_skill", it, passed=False))
    return out


def test_a_large_lift_passes_and_counts_runs_and_runs_saved():
    a = until_decided_block(CASES, _runs(4), 0.1, UntilDecidedSettings(10, 0.05), start=3)
    assert a["decision"] == "pass" and a["reason"] is None
    assert (a["iterations"], a["looks"], a["runs"], a["runs_saved"]) == (3, 1, 64, 160 - 64)
    assert a["interval"][0] > 0.1


def test_an_errored_run_leaves_its_round_incomplete_and_the_reason_says_so():
    rows, gap = paired_rounds(CASES, _runs(3, error_at=(2, "c5")))
    assert len(rows) == 1 and gap == 2
    a = until_decided_block(CASES, _runs(3, error_at=(2, "c5")), 0.1, UntilDecidedSettings(10, 0.05), start=3)
    assert a["decision"] == "undecided" and "iteration 2" in a["reason"] and a["looks"] == 0


def test_no_minimum_lift_means_does_the_skill_help_at_all():
    a = until_decided_block(CASES, _runs(3), None, UntilDecidedSettings(3, 0.05), start=3)
    assert a["minimum_lift"] == 0.0
