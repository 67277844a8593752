"""`run --until-decided` end to end (skill_eval/cli/until_decided.py) on a counting adapter whose
with-skill runs always pass and without-skill runs always fail: a large true lift."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from skill_eval.intake.schemas_io import load_schema
from tests.suitekit import Kit

pytestmark = pytest.mark.slow

ADAPTIVE = "minimum_lift: 0.1\nadaptive: {max_iterations: 10, alpha: 0.05}\n"
SKILLS = {"alpha": [f"a{i}" for i in range(6)], "beta": [f"b{i}" for i in range(8)]}


def _benches(kit: Kit) -> dict[str, dict]:
    return {s: json.loads(kit.bench(s).read_text()) for s in SKILLS}


def test_a_large_lift_passes_with_at_most_half_the_runs_a_rerun_does_nothing_and_a_plain_run_is_fixed(
        tmp_path):
    kit = Kit.create(tmp_path, iterations=2, extra=ADAPTIVE, skills=SKILLS)
    code, out, err = kit.run("--until-decided")
    assert code == 0, out + err
    benches = _benches(kit)
    validator = Draft202012Validator(load_schema("benchmark"))
    for name, b in benches.items():
        assert not list(validator.iter_errors(b))
        a = b["adaptive"]
        full = 2 * len(SKILLS[name]) * 10
        assert a["decision"] == "pass" and a["interval"][0] > 0.1
        assert a["runs"] <= full / 2 and a["runs_saved"] == full - a["runs"]
        assert a["looks"] == a["iterations"] - 2 + 1
        # The table holds exactly the iterations the decision took: nothing ran past it.
        assert {c["with_skill"]["runs"] for c in b["cases"]} == {a["iterations"]}
    assert kit.calls() == sum(b["adaptive"]["runs"] for b in benches.values())
    assert "until-decided: 2 pass" in out
    summary = (kit.results / "summary.md").read_text()
    assert "## Until decided" in summary and "| pass" in summary
    page = (kit.results / "index.html").read_text()
    assert "Until decided: pass: the lift on these cases is above +10.0 pp" in page
    assert "pass</span> (until decided: lift above +10.0 pp, confidence sequence [" in page

    kit.reset()
    before = kit.mtimes()
    code, out, err = kit.run("--until-decided")
    assert code == 0 and kit.calls() == 0 and kit.mtimes() == before, out + err
    assert "Up to date" in out

    # A plain run afterwards is the fixed design again (on the same project: one until-decided run
    # serves both promises).
    kit.reset()
    code, out, err = kit.run()
    assert code == 0 and kit.calls() == 0, out + err
    b = json.loads(kit.bench("alpha").read_text())
    assert {c["with_skill"]["runs"] for c in b["cases"]} == {2}
    assert b["adaptive"]["decision"] == "undecided"  # two iterations do not decide it


def test_undecided_at_max_iterations_is_said_plainly(tmp_path):
    kit = Kit.create(tmp_path, iterations=2, extra=ADAPTIVE, skills={"alpha": ["a1", "a2"]})
    code, out, err = kit.run("--until-decided", "--max-iterations", "3")
    assert code == 1
    a = json.loads(kit.bench("alpha").read_text())["adaptive"]
    assert a["decision"] == "undecided" and a["iterations"] == 3
    assert a["reason"] == "max_iterations (3) reached"
    assert "undecided" in err and "alpha [default]: undecided (until decided: " in out
    assert ("until-decided: alpha [default]: undecided (until decided); stopped: "
            "max_iterations (3) reached") in out
    assert kit.calls() == 2 * 2 * 3


def test_until_decided_refuses_a_partial_selection(tmp_path):
    kit = Kit.create(tmp_path, iterations=2, extra=ADAPTIVE)
    code, _out, err = kit.run("--until-decided", "--only", "alpha")
    assert code == 2 and "--only" in err and kit.calls() == 0


def test_max_iterations_below_iterations_is_invalid(tmp_path):
    kit = Kit.create(tmp_path, iterations=4, extra="adaptive: {max_iterations: 3}\n")
    code, _out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "adaptive.max_iterations (3) is below iterations (4)" in err


def test_p_holm_sits_beside_every_p_and_gate_holm_uses_it(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, extra="minimum_lift: 0.1\n", skills=SKILLS)
    assert kit.run()[0] == 0
    benches = _benches(kit)
    # Six cases all +1: p = 2/64; eight: 2/256. Holm over two: 2 x the smaller, then the max.
    assert benches["beta"]["lift"]["p_holm"] == pytest.approx(2 / 256 * 2)
    assert benches["alpha"]["lift"]["p_holm"] == pytest.approx(2 / 64)
    assert "p_holm" in (kit.results / "alpha" / "benchmark.md").read_text()
    kit.write_suite(iterations=1, extra="minimum_lift: 0.1\ngate: holm\n")
    kit.add_skill("gamma", ["g1", "g2", "g3"])  # three cases cannot be significant
    code, out, err = kit.run()
    assert code == 1, out + err
    gamma = json.loads(kit.bench("gamma").read_text())
    assert gamma["lift"]["met"] is False and gamma["verdict"] == "fail"
    assert json.loads(kit.bench("beta").read_text())["verdict"] == "pass"


def test_a_spent_budget_stops_the_rounds_and_says_so(tmp_path):
    kit = Kit.create(tmp_path, iterations=2, extra=ADAPTIVE, skills={"alpha": SKILLS["alpha"]})
    kit.control(cost=0.01)
    code, out, err = kit.run("--until-decided", "--max-cost", "0.3", "-j", "1")
    assert code == 2, out + err
    assert "budget" in err and "until-decided stopped early" in err
    assert kit.calls() <= 31  # nothing started past the budget (one run may be in flight)
    a = json.loads(kit.bench("alpha").read_text())["adaptive"]
    assert a["decision"] == "undecided"
