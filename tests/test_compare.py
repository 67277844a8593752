"""`skill-eval compare` and `bless`: what an edit of a skill did, against the previous version,
the blessed baseline or a git revision, with a regression gate that works on a fresh clone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from suitekit import Kit, case

from skill_eval.review.versions.compare import CaseChange, compare
from skill_eval.store.history import CaseCounts, HistoryRecord

DATA = Path(__file__).parent / "data" / "test_compare"
V1 = "---\nname: alpha\ndescription: The alpha skill.\n---\nDo it.\n"
V2 = V1 + "BREAK: c1 c2\n"  # the keyed adapter answers c1 and c2 wrongly for this version
CASES = ["c1", "c2", "c3", "c4"]


def keyed_kit(tmp_path: Path, name: str = "proj", iterations: int = 1) -> Kit:
    # One iteration: the regressions, the gate and the history are about cases, not repeats
    # (the review page's history shows each repeat: tests/test_history_view.py asks for two).
    kit = Kit.create(tmp_path, iterations=iterations, skills={"alpha": []}, name=name)
    shutil.copy(DATA / "skill_keyed_adapter.py", kit.root / "adapter.py")
    cases = [case(cid) for cid in CASES]
    cases[1]["critical"] = True  # c2: its regression alone fails the gate
    kit.write_evals("alpha", cases)
    (kit.skill_dir("alpha") / "SKILL.md").write_text(V1)
    return kit


def compare_json(kit: Kit, *args: str) -> tuple[int, dict]:
    code, out, err = kit.cli("compare", "suite.yaml", "--format", "json", *args)
    return code, json.loads(out) if out.strip() else {"stderr": err}


def regressed(report: dict) -> list[str]:
    return [cid for c in report["comparisons"] for cid in c["regressed"]]


@pytest.mark.slow
def test_an_edit_that_breaks_two_cases_is_named_and_gated_and_the_revert_costs_nothing(tmp_path: Path):
    kit = keyed_kit(tmp_path)
    code, _, err = kit.run()
    assert code == 0, err
    code, out, err = kit.cli("bless", "suite.yaml")
    assert code == 0, err
    text = (kit.root / "suite.baseline.json").read_text()
    baseline = json.loads(text)
    assert sorted(baseline["skills"]["alpha"]["default"]["cases"]) == CASES
    assert [line.strip()[:5] for line in text.splitlines() if '"with_skill": {' in line] == [
        f'"{c}":' for c in CASES]  # one line per case: a moved case is a one-line diff
    assert kit.cli("bless", "suite.yaml")[0] == 0
    assert (kit.root / "suite.baseline.json").read_text() == text  # no dates: blessing again changes nothing

    (kit.skill_dir("alpha") / "SKILL.md").write_text(V2)
    assert kit.run()[0] == 1  # with-skill checks fail now
    for against in ("baseline", "previous"):
        code, report = compare_json(kit, "--against", against)
        assert code == 0, report
        assert regressed(report) == ["c1", "c2"], against
        assert report["comparisons"][0]["improved"] == []
        code, _, err = kit.cli("compare", "suite.yaml", "--against", against, "--fail-on-regression")
        assert code == 1 and "critical case c2 regressed" in err
    code, out, _ = kit.cli("compare", "suite.yaml", "--against", "baseline")
    assert "Regressed: c1, c2." in out and "| c2 " in out and "regressed (critical)" in out

    (kit.skill_dir("alpha") / "SKILL.md").write_text(V1)
    kit.reset()
    assert kit.run()[0] == 0
    assert kit.calls() == 0  # both versions are stored: putting v1 back runs nothing
    code, report = compare_json(kit, "--against", "previous")
    assert code == 0 and regressed(report) == [] and report["comparisons"][0]["improved"] == ["c1", "c2"]
    code, report = compare_json(kit, "--against", "baseline", "--fail-on-regression")
    assert code == 0 and regressed(report) == [] and report["regression"] is False

    history = (kit.store / "history" / "kit.jsonl").read_text().splitlines()
    hashes = [json.loads(line)["skill_hash"] for line in history]
    assert len(hashes) == 3 and hashes[0] == hashes[2] != hashes[1]


@pytest.mark.slow
def test_the_gate_works_on_a_fresh_clone_with_only_the_baseline(tmp_path: Path):
    kit = keyed_kit(tmp_path)
    assert kit.run()[0] == 0
    assert kit.cli("bless", "suite.yaml")[0] == 0
    clone = Kit(tmp_path / "clone")
    fresh = shutil.ignore_patterns(".skill-eval", "results", "calls.log")  # what a clone has not
    shutil.copytree(kit.root, clone.root, ignore=fresh)
    assert not clone.store.exists()

    code, out, err = clone.cli("compare", "suite.yaml", "--against", "baseline", "--fail-on-regression")
    assert code == 2 and "has no graded runs" in err and "skill-eval run suite.yaml" in err

    (clone.skill_dir("alpha") / "SKILL.md").write_text(V2)
    assert clone.run()[0] == 1
    code, report = compare_json(clone, "--against", "baseline", "--fail-on-regression")
    assert code == 1 and regressed(report) == ["c1", "c2"]
    code, out, err = clone.cli("compare", "suite.yaml", "--against", "previous")
    assert code == 2 and "nothing to compare" in err  # the clone's history holds one version


def test_previous_and_baseline_that_do_not_exist_say_how_to_get_them(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    code, _, err = kit.cli("compare", "suite.yaml", "--against", "baseline")
    assert code == 2 and "has no graded runs" in err
    code, _, err = kit.cli("bless", "suite.yaml")
    assert code == 2 and "not blessed" in err and not (kit.root / "suite.baseline.json").exists()
    assert kit.run()[0] == 0
    code, _, err = kit.cli("compare", "suite.yaml", "--against", "baseline")
    assert code == 2 and "skill-eval bless suite.yaml" in err
    code, _, err = kit.cli("compare", "suite.yaml")
    assert code == 2 and "nothing to compare" in err
    # the regression gate on a first version: nothing to regress from, so a first CI run passes
    code, out, err = kit.cli("compare", "suite.yaml", "--fail-on-regression", "--format", "github")
    assert code == 0 and "nothing to compare against 'previous'" in err
    assert "skill-eval: regression gate: nothing to compare yet (a first version): not failing" in err
    assert "::notice title=regression gate::nothing to compare yet" in out


@pytest.mark.slow
def test_a_damaged_stored_run_is_named_not_compared_as_missing(tmp_path: Path):
    # issue 20: compare read a damaged entry as "not run" and compared without it, exit 0.
    kit = keyed_kit(tmp_path)
    assert kit.run()[0] == 0 and kit.cli("bless", "suite.yaml")[0] == 0
    key = kit.stored_runs()[0]
    response = kit.store / "runs" / key[:2] / key / "response.json"
    st = response.stat()
    data = bytearray(response.read_bytes())
    data[5] ^= 1  # same size, mtime put back: only the checksum can tell
    response.write_bytes(bytes(data))
    os.utime(response, ns=(st.st_atime_ns, st.st_mtime_ns))
    kit.reset()
    code, out, err = kit.cli("compare", "suite.yaml", "--against", "baseline", "--fail-on-regression")
    assert code == 2, out + err
    [line] = [line for line in err.splitlines() if "damaged" in line]
    assert line.startswith("skill-eval: the stored run agent:alpha/") and "'skill-eval run'" in line
    assert kit.calls() == 0  # compare runs nothing; run redoes just that one
    assert kit.run()[0] == 0 and kit.calls() == 1
    assert kit.cli("compare", "suite.yaml", "--against", "baseline")[0] == 0


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.slow
def test_against_a_git_revision_looks_its_skill_content_up_in_the_history(tmp_path: Path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    kit = keyed_kit(tmp_path)
    git(kit.root, "init", "-q")
    (kit.root / ".gitignore").write_text(".skill-eval/\nresults/\ncalls.log\n")
    git(kit.root, "add", "-A")
    git(kit.root, "commit", "-qm", "v1")
    assert kit.run()[0] == 0
    first = json.loads((kit.store / "history" / "kit.jsonl").read_text().splitlines()[0])
    assert first["git"] == {"commit": git(kit.root, "rev-parse", "HEAD"), "dirty": False}

    (kit.skill_dir("alpha") / "SKILL.md").write_text(V2)
    assert kit.run()[0] == 1
    second = json.loads((kit.store / "history" / "kit.jsonl").read_text().splitlines()[1])
    assert second["git"]["dirty"] is True  # the skill's folder differs from the commit
    code, report = compare_json(kit, "--against", "HEAD")
    assert code == 0 and regressed(report) == ["c1", "c2"]
    code, _, err = kit.cli("compare", "suite.yaml", "--against", "no-such-rev")
    assert code == 2 and "no such revision" in err

    git(kit.root, "commit", "-qam", "v2")
    (kit.skill_dir("alpha") / "references" / "new.md").write_text("never run\n")
    code, _, err = kit.cli("compare", "suite.yaml", "--against", "HEAD")
    assert code == 2 and "has no graded runs" in err  # the current content was never run


def _record(cases: dict[str, tuple[int, int]], skill_hash: str = "a" * 64) -> HistoryRecord:
    return HistoryRecord("s", "k", "m", skill_hash, "", None,
                         {cid: CaseCounts(w, (0, w[1])) for cid, w in cases.items()},
                         {"with_skill": None, "without_skill": None}, {}, {})


def test_a_broad_significant_drop_fails_the_gate_and_two_cases_do_not():
    before = _record({f"c{i}": (3, 3) for i in range(8)})
    after = _record({f"c{i}": (0 if i < 7 else 3, 3) for i in range(8)})
    c = compare("previous", before, after)
    assert [x.id for x in c.with_status("regressed")] == [f"c{i}" for i in range(7)]
    assert c.p_value < 0.05 and c.failures() and "dropped" in c.failures()[0]
    two = compare("previous", before, _record({f"c{i}": (0 if i < 2 else 3, 3) for i in range(8)}))
    assert two.p_value > 0.05 and two.failures() == []  # no critical case: not a significant drop
    assert compare("previous", before, two.after, critical=["c1"]).failures()


def test_cases_added_removed_or_without_graded_runs_are_not_paired():
    c = compare("baseline", _record({"a": (1, 2), "gone": (1, 1), "err": (1, 1)}),
                _record({"a": (2, 2), "new": (1, 1), "err": (0, 0)}))
    assert {x.id: x.status for x in c.cases} == {"a": "improved", "new": "added", "err": "unknown",
                                                 "gone": "removed"}
    assert c.deltas == [0.5] and CaseChange("x", (1, 2), (1, 2)).status == "same"


@pytest.mark.slow
def test_report_github_carries_the_compare_table_and_an_annotation_per_regressed_case(tmp_path: Path):
    kit = keyed_kit(tmp_path)
    assert kit.run()[0] == 0
    code, out, err = kit.cli("report", "suite.yaml", "--format", "github")
    assert code == 0 and "regressed since" not in out  # one version so far: nothing to compare
    assert "What changed since" not in (kit.results / "github-summary.md").read_text()
    assert kit.cli("bless", "suite.yaml")[0] == 0
    (kit.skill_dir("alpha") / "SKILL.md").write_text(V2)
    assert kit.run()[0] == 1
    code, out, err = kit.cli("report", "suite.yaml", "--format", "github")
    assert code == 0, err
    summary = (kit.results / "github-summary.md").read_text()
    assert "What changed since the compared version" in summary and "Regressed: c1, c2." in summary
    regressed_lines = [line for line in out.splitlines() if "regressed since baseline" in line]
    assert len(regressed_lines) == 2
    assert regressed_lines[0].startswith("::warning file=skills/alpha/evals/evals.json,line=")
    assert regressed_lines[1].startswith("::error ") and "case c2" in regressed_lines[1]  # critical

    code, out, err = kit.cli("compare", "suite.yaml", "--against", "baseline", "--format", "github")
    assert code == 0 and sum("regressed since baseline" in line for line in out.splitlines()) == 2


@pytest.mark.slow
def test_a_gate_that_holds_says_why_in_every_format(tmp_path: Path):
    kit = keyed_kit(tmp_path)
    kit.write_evals("alpha", [case(cid) for cid in CASES])  # no critical case this time
    assert kit.run()[0] == 0
    assert kit.cli("bless", "suite.yaml")[0] == 0
    code, _, err = kit.cli("compare", "suite.yaml", "--against", "baseline", "--fail-on-regression")
    assert code == 0 and "skill-eval: regression gate: no case regressed: not failing" in err
    (kit.skill_dir("alpha") / "SKILL.md").write_text(V2)
    assert kit.run()[0] == 1
    held = "2 cases regressed, none significant at alpha 0.05 and none critical: not failing"
    code, out, err = kit.cli("compare", "suite.yaml", "--against", "baseline", "--fail-on-regression")
    assert code == 0 and f"skill-eval: regression gate: {held}" in err, out + err
    code, out, err = kit.cli("compare", "suite.yaml", "--against", "baseline", "--fail-on-regression",
                             "--format", "github")
    assert code == 0 and f"::notice title=regression gate::{held}" in out.splitlines()
    code, out, err = kit.cli("compare", "suite.yaml", "--against", "baseline", "--fail-on-regression",
                             "--alpha", "0.6")
    assert code == 1 and "dropped" in err and "regression gate:" not in err  # a gate that fires


@pytest.mark.slow
def test_a_broken_baseline_or_critical_flag_is_invalid_input_not_a_crash(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    assert kit.run()[0] == 0
    (kit.root / "suite.baseline.json").write_text('{"schema_version": 1, "suite": "kit", "skils": {}}')
    code, _, err = kit.cli("compare", "suite.yaml", "--against", "baseline")
    assert code == 2 and "suite.baseline.json" in err and "skils" in err and "Traceback" not in err
    assert kit.run("--force")[0] == 0  # the page falls back to the previous version
    kit.edit_case("alpha", "a1", critical="yes")
    code, _, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "critical must be true or false" in err


def test_a_case_gates_when_marked_critical_or_holding_a_critical_check_or_rubric_item():
    from skill_eval.model.cases import Case, Check, RubricItem

    assert not Case("a", "p", checks=(Check("c", "contains"),)).gates
    assert Case("a", "p", critical=True).gates
    assert Case("a", "p", checks=(Check("c", "contains", critical=True),)).gates
    assert Case("a", "p", rubric=(RubricItem("r", "text", critical=True),)).gates
