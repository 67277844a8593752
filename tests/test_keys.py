"""Grade keys (plan/keys.py): a run is shared by every case whose request is byte-identical, its
grade never is. Two cases with one prompt (in one skill or in two) are each graded with their own
checks, and a suite holding them grades each exactly as a suite holding that case alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scratch import temp_root
from suitekit import Kit

PROMPT = "Same prompt: write it."


def _check(value: str) -> list[dict[str, Any]]:
    return [{"id": "c", "type": "contains", "value": value}]


def _grades(kit: Kit) -> dict[str, dict[str, Any]]:
    """skill/iteration/case/arm -> grading.json, without what names the layout."""
    out = {}
    for path in sorted(kit.results.rglob("grading.json")):
        rel = path.parent.relative_to(kit.results).as_posix()
        out[rel] = json.loads(path.read_text())
    return out


def _arm_rates(kit: Kit, skill: str) -> dict[str, float]:
    bench = json.loads(kit.bench(skill).read_text())
    return {arm: bench["variants"][arm]["pass_rate"] for arm in ("with_skill", "without_skill")}


def test_two_cases_with_one_prompt_are_each_graded_with_their_own_checks(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    kit.write_evals("alpha", [{"id": "p1", "prompt": PROMPT, "checks": _check("with_skill")},
                              {"id": "p2", "prompt": PROMPT, "checks": _check("NOPE")}])
    code, out, err = kit.run()
    assert code == 1, out + err  # p2 fails with the skill: the suite's exit says so
    grades = _grades(kit)
    for rel, grade in grades.items():
        assert grade["case_id"] == rel.split("/")[2].removeprefix("eval-"), rel
    assert grades["alpha/iteration-1/eval-p1/with_skill"]["deterministic_passed"] is True
    assert grades["alpha/iteration-1/eval-p2/with_skill"]["deterministic_passed"] is False
    # One adapter call per request: the two cases' arms share it.
    assert sorted(kit.call_lines()) == [("with_skill", PROMPT), ("without_skill", PROMPT)]
    assert "2 of them the same request as another case's, made once" in out
    assert _arm_rates(kit, "alpha") == {"with_skill": 0.5, "without_skill": 0.0}


def test_status_says_which_runs_share_a_request(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    kit.write_evals("alpha", [{"id": "p1", "prompt": PROMPT, "checks": _check("says")},
                              {"id": "p2", "prompt": PROMPT, "checks": _check("NOPE")}])
    reasons = {r["task"]: r["reason"] for r in kit.status_json()["run"]}
    assert reasons["agent:alpha/p1/with_skill/default/1"] == "never run"
    assert reasons["agent:alpha/p2/with_skill/default/1"] == (
        "never run (the same request as alpha/p1/with_skill/default/1: one call serves both)")


def test_each_skills_baseline_is_graded_with_its_own_checks(tmp_path):
    """The without-skill arm's request names no skill, so two skills with a case of one prompt
    share its run: each skill's baseline pass rate (and lift) comes from that skill's checks."""
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": [], "beta": []})
    kit.write_evals("alpha", [{"id": "a", "prompt": PROMPT, "checks": _check("says")}])
    kit.write_evals("beta", [{"id": "b", "prompt": PROMPT, "checks": _check("with_skill")}])
    code, out, err = kit.run()
    assert code == 0, out + err
    assert _arm_rates(kit, "alpha") == {"with_skill": 1.0, "without_skill": 1.0}  # lift 0
    assert _arm_rates(kit, "beta") == {"with_skill": 1.0, "without_skill": 0.0}  # lift +100 pp
    assert [m for m, _p in kit.call_lines()].count("without_skill") == 1


def test_a_check_edit_of_one_sharing_case_regrades_only_that_case(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    kit.write_evals("alpha", [{"id": "p1", "prompt": PROMPT, "checks": _check("says")},
                              {"id": "p2", "prompt": PROMPT, "checks": _check("says")}])
    assert kit.run()[0] == 0
    kit.reset()
    kit.edit_case("alpha", "p2", checks=_check("NOPE"))
    status = kit.status_json()
    assert status["run"] == []
    assert sorted(g["task"] for g in status["regrade"]) == [
        "grade:alpha/p2/with_skill/default/1", "grade:alpha/p2/without_skill/default/1"]
    code, out, err = kit.run()
    assert code == 1 and kit.calls() == 0, out + err
    grades = _grades(kit)
    assert grades["alpha/iteration-1/eval-p1/with_skill"]["deterministic_passed"] is True
    assert grades["alpha/iteration-1/eval-p2/with_skill"]["deterministic_passed"] is False


def _outputs(kit: Kit, case_id: str) -> dict[str, str]:
    return {p.parent.name: p.read_text() for p in kit.results.rglob(f"eval-{case_id}/*/output.txt")}


def test_a_case_that_shared_a_run_can_be_replayed_alone(tmp_path):
    """The replay index (``<store>/replay``) is keyed by what a request asks, the case's id
    included: a case whose run another case's identical request made is indexed too, so a
    replay of the store finds it whichever case asked first (it named only that one)."""
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": [], "beta": []})
    kit.write_evals("alpha", [{"id": "p1", "prompt": PROMPT, "checks": _check("says")},
                              {"id": "p2", "prompt": PROMPT, "checks": _check("says")}])
    kit.write_evals("beta", [{"id": "b", "prompt": PROMPT, "checks": _check("says")}])
    assert kit.run()[0] == 0
    again = kit.copy_to(tmp_path / "replayed")
    (again.root / "suite.yaml").write_text((kit.root / "suite.yaml").read_text().replace(
        "  command: [python3, -S, adapter.py]", f"  builtin: replay\n  responses: {kit.store}").replace(
        "store: .skill-eval/store", "store: replay-store"))
    for only in ("alpha/p2/*", "beta/*"):
        code, out, err = again.run("--only", only)
        assert code == 0 and "0 errors" in out, out + err
    for case_id in ("p2", "b"):
        assert _outputs(again, case_id) == _outputs(kit, case_id) != {}


# ---- the property: for any suite whose cases share prompts, each case is graded as if alone ----

CHECK_VALUES = ("says", "with_skill", "without_skill", "NOPE")
PROMPTS = (PROMPT, "Other prompt.")
case_st = st.tuples(st.sampled_from(range(len(PROMPTS))), st.sampled_from(range(len(CHECK_VALUES))))
suite_st = st.fixed_dictionaries({
    "alpha": st.lists(case_st, min_size=1, max_size=3),
    "beta": st.lists(case_st, min_size=0, max_size=2),
})
_ALONE: dict[tuple[str, int, int], dict[str, Any]] = {}  # (skill, prompt, check) -> its grades


def _cases(skill: str, spec: list[tuple[int, int]]) -> list[dict[str, Any]]:
    return [{"id": f"{skill[0]}{i}", "prompt": PROMPTS[p], "checks": _check(CHECK_VALUES[c])}
            for i, (p, c) in enumerate(spec)]


def _without_layout(grades: dict[str, dict[str, Any]], case_id: str) -> dict[str, Any]:
    return {rel.split("/")[-1]: g for rel, g in grades.items() if rel.split("/")[2] == f"eval-{case_id}"}


def _alone(skill: str, prompt: int, check: int) -> dict[str, Any]:
    """The grades of a suite holding only this case (same skill, same id): made once per process."""
    at = (skill, prompt, check)
    if at not in _ALONE:
        root = Path(temp_root()) / f"alone-{skill}-{prompt}-{check}"
        if root.exists():
            shutil.rmtree(root)
        kit = Kit.create(root, iterations=1, skills={skill: []})
        cid = f"{skill[0]}0"
        case = {"id": cid, "prompt": PROMPTS[prompt], "checks": _check(CHECK_VALUES[check])}
        kit.write_evals(skill, [case])
        code, out, err = kit.run()
        assert code in (0, 1), out + err
        _ALONE[at] = _without_layout(_grades(kit), cid)
    return _ALONE[at]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(suite=suite_st)
def test_any_case_is_graded_as_in_a_suite_holding_it_alone(suite, tmp_path_factory):
    root = tmp_path_factory.mktemp("shared")
    skills = {name: [] for name, spec in suite.items() if spec}
    kit = Kit.create(root, iterations=1, skills=skills)
    for name in skills:
        kit.write_evals(name, _cases(name, suite[name]))
    code, out, err = kit.run()
    assert code in (0, 1), out + err
    grades = _grades(kit)
    for name in skills:
        for i, (p, c) in enumerate(suite[name]):
            mine = _without_layout(grades, f"{name[0]}{i}")
            alone = _alone(name, p, c)
            # The alone suite's case is ``<s>0``: the grades are the same but for the case's id.
            assert {arm: {**g, "case_id": None} for arm, g in mine.items()} == \
                {arm: {**g, "case_id": None} for arm, g in alone.items()}, (name, i)
            assert all(g["case_id"] == f"{name[0]}{i}" for g in mine.values())
    # And every distinct request was made once: one adapter call per stored run.
    assert kit.calls() == len(kit.stored_runs())
