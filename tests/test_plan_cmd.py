"""`skill-eval plan` (skill_eval/cli/subcommands/plan.py, review/comparison/planning.py): cases,
runs and cost from the stored per-case deltas."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from skill_eval.stats.power import PRIOR_SIGMA_D
from tests.suitekit import Kit, case

pytestmark = pytest.mark.slow


def _plan(kit: Kit, *args: str) -> dict:
    code, out, err = kit.cli("plan", "suite.yaml", "--json", *args)
    assert code == 0, err
    return json.loads(out)


def test_plan_json_matches_the_formula_for_the_stored_sigma_d(tmp_path):
    kit = Kit.create(tmp_path, iterations=2, skills={"alpha": []})
    # Two cases the skill fixes, two it cannot change (both arms pass "says"), one both fail.
    kit.write_evals("alpha", [case("a1"), case("a2"), case("a3", check_value="says"),
                              case("a4", check_value="says"), case("a5", check_value="zzz")])
    kit.control(cost=0.01)
    assert kit.run()[0] in (0, 1)
    plan = _plan(kit, "--lift", "0.2", "--power", "0.9", "--alpha", "0.01")
    sigma = statistics.stdev([1, 1, 0, 0, 0])
    z = statistics.NormalDist().inv_cdf
    need = math.ceil(((z(1 - 0.01 / 2) + z(0.9)) * sigma / 0.2) ** 2)
    assert plan["sigma_d"] == pytest.approx(sigma)
    assert plan["cases_needed"] == need and plan["cases_now"] == 5
    assert plan["runs_needed"] == need * 2 * 2
    assert plan["cost_usd_estimate"] == pytest.approx(need * 2 * 2 * 0.01)
    code, out, _err = kit.cli("plan", "suite.yaml", "--lift", "0.2", "--power", "0.9", "--alpha", "0.01")
    assert code == 0 and f"{need} cases needed, 5 now" in out


def test_without_a_stored_benchmark_the_prior_is_stated(tmp_path):
    kit = Kit.create(tmp_path)
    plan = _plan(kit, "--lift", "0.1")
    assert plan["sigma_d"] == pytest.approx(PRIOR_SIGMA_D)
    assert plan["sigma_source"].startswith("prior")
    assert plan["cost_usd_estimate"] is None and kit.calls() == 0


def test_a_lift_of_zero_is_refused(tmp_path):
    kit = Kit.create(tmp_path)
    with pytest.raises(SystemExit):
        kit.cli("plan", "suite.yaml", "--lift", "0")
