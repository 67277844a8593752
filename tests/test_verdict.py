"""One verdict per skill x model, with the rule that decided it (skill_eval/review/comparison/verdict.py):
the line a user reads (console, benchmark.md, summary.md, JUnit, the page, GitHub annotations)
for every combination of design (fixed sample, or the decision of `run
--until-decided`), outcome (pass / fail / undecided) and failed required checks."""

from __future__ import annotations

import pytest

from skill_eval.model.cases import Case, Check
from skill_eval.model.results import AdapterResponse, RunError, RunResult
from skill_eval.model.until_decided import UntilDecidedSettings
from skill_eval.review.comparison.benchmark import NOT_RUN, RunRecord, build_benchmark
from skill_eval.review.comparison.until_decided import until_decided_block
from skill_eval.review.comparison.verdict import exit_code, settle, stop_text, verdict_text
from skill_eval.review.render.console import skill_lines
from skill_eval.review.render.github import annotations
from skill_eval.review.render.junit import junit_xml
from skill_eval.review.render.markdown import benchmark_md, summary_md
from skill_eval.review.render.review import figures

CHECK = (Check("ok", "contains", params={"value": "ok"}),)


def _rec(cid: str, arm: str, it: int, passed: bool, not_run: bool = False) -> RunRecord:
    if not_run:
        return RunRecord.of(cid, arm, it, RunError("k", NOT_RUN, "not run yet"))
    result = RunResult("k", AdapterResponse("ok" if passed else "no", (), {}), 1.0)
    checks = [{"id": "ok", "type": "contains", "required": True, "passed": passed, "evidence": "e"}]
    return RunRecord.of(cid, arm, it, result, {"passed": passed, "checks": checks})


def bench(outcome: str, *, sequential: bool, failed_check: bool) -> dict:
    """A table whose lift passes, fails or stays undecided by the design's own rule.

    Fixed: pass is a large lift, fail one below minimum_lift, undecided runs not run yet.
    Sequential: pass is a large lift over 8 cases, fail no lift over 30 cases and 10
    iterations, undecided a large lift over 2 cases and 3 iterations."""
    n_cases, iterations = {"pass": (8, 4), "fail": (30, 10), "undecided": (2, 3)}[outcome]
    if not sequential:
        n_cases, iterations = 8, 3
    cases = [Case(f"c{i}", "p", checks=CHECK) for i in range(n_cases)]
    runs = []
    for it in range(1, iterations + 1):
        for i, c in enumerate(cases):
            broken = failed_check and (i, it) == (0, 1)
            missing = outcome == "undecided" and not sequential and (i, it) == (7, 3)
            runs.append(_rec(c.id, "with_skill", it, not broken, not_run=missing))
            runs.append(_rec(c.id, "without_skill", it, outcome == "fail"))
    b = build_benchmark("s", "alpha", "m", cases, runs, 0.1)
    if sequential:
        b["adaptive"] = until_decided_block(cases, runs, 0.1, UntilDecidedSettings(10, 0.05), 3, decides=True)
        settle(b)
    return b


FIXED = {
    ("pass", False): "pass (minimum lift: lift +100.0 pp over 8 cases is at least +10.0 pp)",
    ("fail", False): "fail (minimum lift: lift +0.0 pp over 8 cases is below +10.0 pp)",
    ("undecided", False): "undecided (runs not run: 1 run not run yet: outside this --shard/--only, "
                          "or not started)",
    ("pass", True): "check failed (required checks: 1 of 24 with-skill runs failed a required check; "
                    "the lift alone: pass by the minimum lift)",
    ("fail", True): "check failed (required checks: 1 of 24 with-skill runs failed a required check; "
                    "the lift alone: fail by the minimum lift)",
    ("undecided", True): "check failed (required checks: 1 of 23 with-skill runs failed a required "
                         "check; the lift alone: pass by the minimum lift)",
}
SEQUENTIAL = {
    ("pass", False): "pass (until decided: lift above +10.0 pp, confidence sequence "
                     "[+41.3, +100.0] pp at alpha 0.05 after 3 iterations per case)",
    ("fail", False): "fail (until decided: lift below +10.0 pp, confidence sequence "
                     "[-8.0, +8.0] pp at alpha 0.05 after 5 iterations per case)",
    ("undecided", False): "undecided (until decided: confidence sequence [-100.0, +100.0] pp at "
                          "alpha 0.05 after 3 iterations per case still straddles +10.0 pp)",
    ("pass", True): "check failed (required checks: 1 of 32 with-skill runs failed a required check; "
                    "the lift alone: pass by --until-decided)",
    ("fail", True): "check failed (required checks: 1 of 300 with-skill runs failed a required check; "
                    "the lift alone: fail by --until-decided)",
    ("undecided", True): "check failed (required checks: 1 of 6 with-skill runs failed a required "
                         "check; the lift alone: undecided by --until-decided)",
}


@pytest.mark.parametrize("sequential", [False, True], ids=["fixed", "sequential"])
@pytest.mark.parametrize("outcome", ["pass", "fail", "undecided"])
@pytest.mark.parametrize("failed_check", [False, True], ids=["checks-pass", "check-failed"])
def test_the_verdict_line_names_its_rule(outcome, sequential, failed_check):
    b = bench(outcome, sequential=sequential, failed_check=failed_check)
    expected = (SEQUENTIAL if sequential else FIXED)[(outcome, failed_check)]
    assert verdict_text(b) == expected
    lines = skill_lines(b)
    assert lines[0] == f"  alpha [m]: {expected}"  # the console's headline is the verdict line
    assert all("-> " not in line for line in lines)
    assert f"Verdict: **{expected.split(' (')[0]}** (" in benchmark_md(b)
    assert expected in summary_md([b]).replace("**", "")
    assert expected in junit_xml([b])
    page = figures(b)  # the review page's header line: 'Verdict: <label> <why>'
    assert f"{page['verdict_label']} {page['verdict_why']}" == expected
    [annotation] = [a for a in annotations([b]) if ": verdict: " in a]
    assert annotation.endswith(f"alpha (m): verdict: {expected}")
    if failed_check:
        assert (b["verdict"], b["decided_by"]) == ("fail", "required_checks")
        assert exit_code([b]) == 1
    else:
        assert b["verdict"] == outcome
        assert exit_code([b]) == {"pass": 0, "fail": 1, "undecided": 1 if sequential else 2}[outcome]


def test_under_the_sequential_decision_the_fixed_sample_p_is_a_detail():
    lines = skill_lines(bench("pass", sequential=True, failed_check=False))
    assert ", fixed-sample p=" in lines[1] and lines[1].endswith(
        "; --until-decided decides the verdict, this p a detail")
    assert lines[2] == ("    Until decided: 1 look, 64 runs; 96 runs saved against 10 iterations "
                        "everywhere.")


def test_a_plain_run_of_an_adaptive_suite_keeps_the_minimum_lift_and_says_the_decision_is_beside_it():
    b = bench("undecided", sequential=True, failed_check=False)
    b["adaptive"]["decides"] = False  # what a plain `run` of a suite with an `adaptive:` key writes
    settle(b)
    assert verdict_text(b).startswith("pass on the estimate; not significant yet (p=0.500, 2 cases); "
                                      "`--until-decided` settles it (minimum lift: lift +100.0 pp")
    lines = skill_lines(b)
    assert ", p=" in lines[1]
    assert lines[2].startswith("    Until decided [not the verdict: minimum lift decided it]: "
                               "undecided against +10.0 pp")


def test_a_failed_check_beside_a_sequential_pass_is_said_as_such():
    b = bench("pass", sequential=True, failed_check=True)
    md = benchmark_md(b)
    assert "Until decided [not the verdict: required checks decided it]: pass: " in md


def test_an_error_outranks_everything_and_exits_2():
    b = bench("pass", sequential=False, failed_check=True)
    b["variants"]["without_skill"]["errors"] = 1
    settle(b)
    assert verdict_text(b) == "error (runs errored: 1 run could not run; see the errors in benchmark.md)"
    assert exit_code([b]) == 2


def test_until_decided_says_why_each_comparison_stopped():
    assert stop_text(bench("pass", sequential=True, failed_check=False), False) == (
        "decided after 3 iterations per case (1 look)")
    undecided = bench("undecided", sequential=True, failed_check=False)
    assert stop_text(undecided, False) == "3 of at most 10 iterations run; 'run --until-decided' adds more"
    assert stop_text(undecided, True).startswith("the command stopped early")


def test_gate_holm_names_the_adjusted_p_it_needed():
    from skill_eval.review.comparison.multiplicity import adjust

    small = bench("pass", sequential=False, failed_check=False)
    for c in small["cases"][2:]:  # two cases moved: the lift is big, the evidence thin
        c["delta"] = 0.0
    small["lift"]["p_value"] = 0.25
    other = bench("pass", sequential=False, failed_check=False)
    adjust([small, other], "holm")
    assert verdict_text(small) == ("fail (minimum lift, gate: holm: lift +100.0 pp over 8 cases is at least "
                                   "+10.0 pp and Holm p 0.250 is not <= 0.05)")
    assert verdict_text(other).startswith("pass (minimum lift, gate: holm: lift +100.0 pp over 8 cases "
                                          "is at least +10.0 pp and Holm p ")


def test_summary_json_carries_the_verdict_its_rule_and_its_words():
    from skill_eval.review.render.jsonout import summary_json

    b = bench("undecided", sequential=True, failed_check=False)
    [entry] = summary_json([b])["skills"]
    assert (entry["verdict"], entry["decided_by"]) == ("undecided", "sequential")
    assert entry["verdict_text"] == SEQUENTIAL[("undecided", False)]
    assert summary_json([b])["verdict"] == "undecided"


def test_the_schema_knows_every_word_and_rule():
    from skill_eval.intake.schemas_io import load_schema
    from skill_eval.review.comparison.verdict import RULES, WORDS

    props = load_schema("benchmark")["properties"]
    assert tuple(props["verdict"]["enum"]) == WORDS and tuple(props["decided_by"]["enum"]) == RULES


def moved(n_moved: int, n_cases: int = 8, gate: str = "mean") -> dict:
    """A fixed-sample table where ``n_moved`` of ``n_cases`` cases pass only with the skill."""
    from skill_eval.review.comparison.multiplicity import adjust

    cases = [Case(f"c{i}", "p", checks=CHECK) for i in range(n_cases)]
    runs = [_rec(c.id, v, it, v == "with_skill" or i >= n_moved)
            for it in (1, 2, 3) for i, c in enumerate(cases) for v in ("with_skill", "without_skill")]
    b = build_benchmark("s", "alpha", "m", cases, runs, 0.1)
    adjust([b], gate)
    return b


# The verdict's words for the four outcomes a user meets, (verdict, exit code, the line).
ESTIMATE = ("pass on the estimate; not significant yet (p=0.062, 8 cases); `--until-decided` settles it "
            "(minimum lift: lift +62.5 pp over 8 cases is at least +10.0 pp)")
WORDED = {
    "estimate-pass": (lambda: moved(5), "pass", 0, ESTIMATE),
    "decided pass": (lambda: moved(8), "pass", 0,
                     "pass (minimum lift: lift +100.0 pp over 8 cases is at least +10.0 pp)"),
    "fail": (lambda: moved(0), "fail", 1, "fail (minimum lift: lift +0.0 pp over 8 cases is below +10.0 pp)"),
    "undecided (gate: decided)": (
        lambda: moved(5, gate="decided"), "undecided", 1,
        "undecided (minimum lift, gate: decided: lift +62.5 pp over 8 cases is at least +10.0 pp but not "
        "significant yet (p=0.062, 8 cases); `--until-decided` settles it)"),
    "decided pass (gate: decided)": (
        lambda: moved(8, gate="decided"), "pass", 0,
        "pass (minimum lift, gate: decided: lift +100.0 pp over 8 cases is at least +10.0 pp and "
        "significant (p=0.008))"),
}


@pytest.mark.parametrize("case", list(WORDED))
def test_every_format_says_how_strong_the_evidence_is(case):
    from skill_eval.review.render.jsonout import summary_json

    make, verdict, code, line = WORDED[case]
    b = make()
    assert (b["verdict"], exit_code([b]), verdict_text(b)) == (verdict, code, line)
    assert skill_lines(b)[0] == f"  alpha [m]: {line}"
    assert line in summary_md([b]).replace("**", "")
    assert line in benchmark_md(b).replace("**", "")
    assert line in junit_xml([b])
    [annotation] = [a for a in annotations([b]) if ": verdict: " in a]
    assert annotation.endswith(f"alpha (m): verdict: {line}")
    # an estimate-pass warns in CI; a decided pass is a notice
    kinds = {"pass": "::notice", "fail": "::error", "undecided": "::warning"}
    assert annotation.startswith("::warning" if case == "estimate-pass" else kinds[verdict])
    page = figures(b)
    assert f"{page['verdict_label']}{page['verdict_evidence']} {page['verdict_why']}" == line
    assert page["verdict_class"] == ("estimate" if case == "estimate-pass" else verdict)
    assert summary_json([b])["skills"][0]["on_estimate"] is (case == "estimate-pass")
    if verdict == "undecided":  # exits 1: the minimum_lift testcase fails with its words
        assert f'<failure message="{line}"' in junit_xml([b]).replace("&gt;", ">")
    if case == "estimate-pass":  # the summary table's cell and the junit testcase say it too
        assert "| pass on the estimate (minimum lift) |" in summary_md([b])
        assert "<system-out>" + line.replace("`", "`") in junit_xml([b]).replace("&gt;", ">")
