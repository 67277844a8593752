"""End to end: a suite run through a scripted adapter whose pass pattern the test chooses, and every
figure and flag of benchmark.json (docs/statistics.md), the exit code (docs/commands.md#exit-codes)
and the reports, checked
against numbers worked out by hand.

The adapter answers ``answer: PASS`` or ``answer: FAIL`` (or exits 7, for ``E``) per (case, mode,
iteration) from a table embedded in its script; each case has a ``contains PASS`` check
(``says-pass``) and a check that every answer passes (``format``, non-discriminating by
construction).
"""

from __future__ import annotations

import itertools
import json
import stat
import xml.etree.ElementTree as ET
from math import comb
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from scratch import kept
from suitekit import FAST_JSON, Kit

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
SKILL = "alpha"

# Started for every run: on suitekit's FAST_JSON (json's C half), which halves each call's start-up.
ADAPTER = "#!/usr/bin/env python3\n" + FAST_JSON + r'''import os, sys
TABLE = loads(r"""TABLE_JSON""")
here = os.path.dirname(os.path.abspath(__file__))
req = loads(sys.stdin.read())
cid, it, mode = req["case"]["id"], req["case"]["iteration"], req["mode"]
fd = os.open(os.path.join(here, "calls.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, ("%s %s %d\n" % (mode, cid, it)).encode())
os.close(fd)
row = TABLE[cid]
if row[mode][it - 1] == "E":
    sys.stderr.write("scripted failure\n")
    sys.exit(7)
verdict = "PASS" if row[mode][it - 1] == "P" else "FAIL"
events = [{"type": "tool_use", "name": "Read"}]
if row.get("loads_" + mode, "NNN")[it - 1] == "Y":
    events.append({"type": "skill_loaded", "name": "SKILL_NAME"})
sys.stdout.write(dumps({"output": "answer: " + verdict, "events": events,
                       "usage": {"input_tokens": 100, "output_tokens": 10}}))
'''

SUITE = """suite: e2e
skills_dir: skills
skills: ["*"]
adapter:
  command: [python3, -S, adapter.py]
iterations: 3
jobs: 4
timeout_seconds: 30
store: .skill-eval/store
results: results
{extra}"""


def make_project(tmp_path: Path, name: str, table: dict[str, dict[str, str]],
                 minimum_lift: float | None = None) -> Kit:
    root = tmp_path / name
    skill = root / "skills" / SKILL
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: {SKILL}\ndescription: The {SKILL} skill.\n---\nDo it.\n")
    cases = [{"id": cid, "prompt": f"Task {cid}.",
              "checks": [{"id": "says-pass", "type": "contains", "value": "PASS"},
                         {"id": "format", "type": "contains", "value": "answer:"}]} for cid in table]
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": SKILL, "evals": cases}))
    adapter = root / "adapter.py"
    adapter.write_text(ADAPTER.replace("TABLE_JSON", json.dumps(table)).replace("SKILL_NAME", SKILL))
    adapter.chmod(adapter.stat().st_mode | stat.S_IXUSR)
    extra = "" if minimum_lift is None else f"minimum_lift: {minimum_lift}\n"
    (root / "suite.yaml").write_text(SUITE.format(extra=extra))
    return Kit(root)


def calls(kit: Kit) -> int:
    try:
        return len((kit.root / "calls.log").read_text().splitlines())
    except FileNotFoundError:
        return 0


def run(kit: Kit, expected_code: int, errored: int = 0) -> dict[str, Any]:
    code, out, err = kit.run()
    assert "Traceback" not in out + err
    assert code == expected_code, out + err
    validate_results(kit, errored)
    return json.loads(kit.bench(SKILL).read_text())


def validate_results(kit: Kit, errored: int = 0) -> None:
    """Every benchmark.json and grading.json under the results folder is valid against its schema
    (and there is one grading.json per run that did not error)."""
    validators = {name: jsonschema.Draft202012Validator(
        json.loads((SCHEMAS / f"{name}.schema.json").read_text())) for name in ("benchmark", "grading")}
    seen = {"benchmark": 0, "grading": 0}
    for name, validator in validators.items():
        for path in sorted(kit.results.rglob(f"{name}.json")):
            errors = sorted(validator.iter_errors(json.loads(path.read_text())), key=str)
            assert not errors, f"{path}: {errors[0].message} at {list(errors[0].absolute_path)}"
            seen[name] += 1
    assert seen["benchmark"] == 1
    assert seen["grading"] == len(json.loads(kit.bench(SKILL).read_text())["cases"]) * 2 * 3 - errored


# ---- hand computations ------------------------------------------------------------------------

def rate(pattern: str) -> float:
    return pattern.count("P") / len(pattern)


def pass_at(n: int, c: int) -> dict[str, float]:
    return {str(k): 1 - comb(n - c, k) / comb(n, k) for k in range(1, n + 1)}


def pass_hat(n: int, c: int) -> dict[str, float]:
    return {str(k): comb(c, k) / comb(n, k) for k in range(1, n + 1)}


# For n = 3 the estimators above, written out (c = number of passing runs):
PASS_AT_3 = {0: {"1": 0, "2": 0, "3": 0}, 1: {"1": 1 / 3, "2": 2 / 3, "3": 1},
             2: {"1": 2 / 3, "2": 1, "3": 1}, 3: {"1": 1, "2": 1, "3": 1}}
PASS_HAT_3 = {0: {"1": 0, "2": 0, "3": 0}, 1: {"1": 1 / 3, "2": 0, "3": 0},
              2: {"1": 2 / 3, "2": 1 / 3, "3": 0}, 3: {"1": 1, "2": 1, "3": 1}}


def test_hand_tables_match_the_formula():
    for c in range(4):
        assert pass_at(3, c) == pytest.approx(PASS_AT_3[c])
        assert pass_hat(3, c) == pytest.approx(PASS_HAT_3[c])


def sign_flip_p(deltas: list[float]) -> float:
    """Two-sided exact paired sign-flip test: the share of all 2^m sign assignments of the m
    non-zero deltas whose |sum| is at least the observed |sum|."""
    nonzero = [d for d in deltas if abs(d) > 1e-12]
    observed = abs(sum(nonzero))
    hits = total = 0
    for signs in itertools.product((1, -1), repeat=len(nonzero)):
        total += 1
        hits += abs(sum(s * d for s, d in zip(signs, nonzero, strict=True))) >= observed - 1e-9
    return hits / total


def check_case(row: dict[str, Any], with_p: str, without_p: str, flags: list[str]) -> None:
    for arm, pattern in (("with_skill", with_p), ("without_skill", without_p)):
        a = row[arm]
        c = pattern.count("P")
        assert (a["runs"], a["graded"], a["passed"], a["errors"]) == (3, 3, c, 0), (row["id"], arm)
        assert a["pass_rate"] == pytest.approx(rate(pattern))
        assert a["pass_at_k"] == pytest.approx(PASS_AT_3[c]), (row["id"], arm)
        assert a["pass_hat_k"] == pytest.approx(PASS_HAT_3[c]), (row["id"], arm)
        assert a["error_messages"] == []
        failed = [(f["iteration"], f["id"]) for f in a["failed_checks"]]
        assert failed == [(i + 1, "says-pass") for i, ch in enumerate(pattern) if ch == "F"]
    assert row["delta"] == pytest.approx(rate(with_p) - rate(without_p))
    assert row["flags"] == flags, row["id"]


# ---- the main suite: every outcome flag ---------------------------------------------------------

# case: (with_skill pattern, without_skill pattern, expected flags); iteration i is character i-1.
MAIN = {
    "c1-improved": ("PPP", "FFF", ["improved"]),
    "c2-improved-flaky": ("PPF", "FFF", ["improved", "flaky"]),
    "c3-regressed": ("PFF", "PPP", ["regressed", "flaky"]),
    "c4-saturated": ("PPP", "PPP", ["saturated"]),
    "c5-floor": ("FFF", "FFF", ["floor"]),
    "c6-no-lift": ("PFP", "FPP", ["no-lift", "flaky"]),
    "c7-improved-baseline-flaky": ("PPP", "PFF", ["improved", "flaky"]),
}
# with: 1, 2/3, 1/3, 1, 0, 2/3, 1 → mean 14/21 = 2/3;  without: 0, 0, 1, 1, 0, 2/3, 1/3 → 9/21 = 3/7
# deltas 1, 2/3, -2/3, 0, 0, 0, 2/3 → lift 5/21; 4 non-zero → indeterminate.
# Sign flips of (3, 2, -2, 2)/3, observed |sum| 5/3: 8 of the 16 patterns reach it → p = 0.5.


def table_of(spec: dict[str, tuple], loads: bool = True) -> dict[str, dict[str, str]]:
    out = {}
    for cid, (w, wo, *_rest) in spec.items():
        out[cid] = {"with_skill": w, "without_skill": wo}
        if loads:
            out[cid]["loads_with_skill"] = "YYY"
    return out


def test_main_suite_every_figure(tmp_path):
    kit = make_project(tmp_path, "main", table_of(MAIN), minimum_lift=0.2)
    code, out, err = kit.run()
    assert code == 1, out + err  # with-skill checks failed → 1, though the minimum lift is met
    # The failed checks decide it, said as such: never "-> fail" beside a lift that was met.
    assert ("  alpha [default]: check failed (required checks: 7 of 21 with-skill runs failed a required "
            "check; the lift alone: pass by the minimum lift)\n"
            "    with 66.7%, without 42.9%, lift +23.8 pp over 7 cases, p=0.500 "
            "(indeterminate: fewer than 6 cases moved)\n") in out
    assert "-> fail" not in out
    assert "Traceback" not in out + err
    validate_results(kit)
    bench = json.loads(kit.bench(SKILL).read_text())
    assert calls(kit) == 7 * 2 * 3

    assert (bench["schema_version"], bench["suite"], bench["skill"], bench["model"]) == (1, "e2e", SKILL,
                                                                                         "default")
    assert [c["id"] for c in bench["cases"]] == list(MAIN)
    for row in bench["cases"]:
        w, wo, flags = MAIN[row["id"]]
        check_case(row, w, wo, flags)
    assert [c["delta"] for c in bench["cases"]] == pytest.approx([1, 2 / 3, -2 / 3, 0, 0, 0, 2 / 3])

    totals = {"with_skill": (21, 21, 14, 0, 2 / 3), "without_skill": (21, 21, 9, 0, 3 / 7)}
    for arm, (runs, graded, passed, errors, pass_rate) in totals.items():
        v = bench["variants"][arm]
        assert (v["runs"], v["graded"], v["passed"], v["errors"], v["cases"]) == (runs, graded, passed,
                                                                                   errors, 7)
        assert v["pass_rate"] == pytest.approx(pass_rate)
        assert v["pass_rate"] == pytest.approx(
            sum(rate(MAIN[c][0 if arm == "with_skill" else 1]) for c in MAIN) / 7)  # mean of case rates
        assert v["deterministic_pass_rate"] == pytest.approx(pass_rate)
        assert v["judged_pass_rate"] is None
        assert v["usage"] == {"input_tokens": 2100, "output_tokens": 210}
        assert (v["input_tokens"], v["output_tokens"], v["total_tokens"]) == (2100, 210, 2310)
        assert v["tokens_per_run"] == 110 and v["runs_with_tokens"] == 21
        assert v["cost_usd"] is None and v["runs_with_cost"] == 0
        d = v["duration_s"]
        assert 0 < d["median"] <= d["p95"] <= d["total"]

    lift = bench["lift"]
    assert lift["pass_rate"] == pytest.approx(5 / 21)
    assert lift["pass_rate"] == pytest.approx(bench["variants"]["with_skill"]["pass_rate"]
                                              - bench["variants"]["without_skill"]["pass_rate"])
    deltas = [1, 2 / 3, -2 / 3, 0, 0, 0, 2 / 3]
    assert sign_flip_p(deltas) == 0.5
    assert lift["p_value"] == pytest.approx(0.5)
    lo, hi = lift["ci95"]
    assert lo <= 5 / 21 <= hi and -2 / 3 <= lo and hi <= 1
    assert (lift["cases"], lift["nonzero_cases"]) == (7, 4)
    assert lift["significant"] is False and lift["indeterminate"] is True
    assert (lift["minimum_lift"], lift["met"]) == (0.2, True)
    assert lift["extra_tokens_per_run"] == 0
    assert bench["verdict"] == "fail"

    checks = {c["id"]: c for c in bench["checks"]}
    assert len(checks) == 14
    for cid, (w, wo, _) in MAIN.items():
        says = checks[f"{cid}/says-pass"]
        assert (says["case"], says["check"], says["type"], says["required"]) == (cid, "says-pass",
                                                                                 "contains", True)
        assert says["with_skill"] == pytest.approx(rate(w))
        assert says["without_skill"] == pytest.approx(rate(wo))
        # only the saturated case's check passes in every run of both arms
        assert says["non_discriminating"] is (cid == "c4-saturated")
        fmt = checks[f"{cid}/format"]
        assert (fmt["with_skill"], fmt["without_skill"], fmt["non_discriminating"]) == (1.0, 1.0, True)

    # The per-run view agrees with the grades.
    for cid, (w, wo, _) in MAIN.items():
        for arm, pattern in (("with_skill", w), ("without_skill", wo)):
            for i, ch in enumerate(pattern, start=1):
                folder = kit.results / SKILL / f"iteration-{i}" / f"eval-{cid}" / arm
                grading = json.loads((folder / "grading.json").read_text())
                assert grading["passed"] is (ch == "P")
                assert (folder / "output.txt").read_text() == "answer: " + ("PASS" if ch == "P" else "FAIL")

    # summary.md and junit.xml
    summary = (kit.results / "summary.md").read_text()
    row = next(line for line in summary.splitlines() if line.startswith("| alpha "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["alpha", "default", "7", "66.7%", "42.9%", "+23.8 pp (n=7)", "0.500 (indeterminate)",
                     "n/a", "check failed (required checks)"]
    assert "regressed with the skill: c3-regressed" in summary
    junit = ET.parse(kit.results / "junit.xml").getroot()
    cases = junit.findall(".//testcase")
    assert [tc.get("name") for tc in cases] == [*MAIN, "minimum_lift"]
    failing = {tc.get("name") for tc in cases if tc.find("failure") is not None}
    assert failing == {"c2-improved-flaky", "c3-regressed", "c5-floor", "c6-no-lift"}
    assert not junit.findall(".//error")
    assert junit.get("tests") == "8" and junit.get("failures") == "4" and junit.get("errors") == "0"

    # the GitHub report: a warning for the regressed case, no error (the minimum lift is met)
    code, out, err = kit.cli("report", "suite.yaml", "--format", "github")
    assert "Traceback" not in out + err
    assert code == 0  # it wrote its report; the failing verdict's exit code belongs to `run`
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    # One ::error per failed required check, grouped (issue 23), then the figures' annotations.
    group, annotations = annotations[:6], annotations[6:]
    assert group[0] == "::group::4 failed required checks" and group[-1] == "::endgroup::"
    assert [line.split("case ", 1)[1].split(":")[0] for line in group[1:5]] == [
        "c2-improved-flaky", "c3-regressed", "c5-floor", "c6-no-lift"]
    assert all(line.startswith("::error file=skills/alpha/evals/evals.json,line=") for line in group[1:5])
    # ('%' is escaped as %25 in a workflow command)
    assert annotations == ["::error ::alpha (default): verdict: check failed (required checks: 7 of 21 "
                           "with-skill runs failed a required check; the lift alone: pass by the "
                           "minimum lift)",
                           "::warning ::alpha (default): case c3-regressed regressed with the skill: "
                           "33.3%25 vs 100.0%25 without"]
    assert calls(kit) == 42  # reports call nothing

    # An unchanged suite: nothing runs, the same verdict and exit code.
    code, out, err = kit.run()
    assert code == 1 and calls(kit) == 42


# ---- every with-skill run passes: minimum lift met → 0, unmet → 1 ----------------------------------

ALL_PASS = {
    "d1": ("PPP", "FFF"), "d2": ("PPP", "FFF"), "d3": ("PPP", "PFF"), "d4": ("PPP", "FFF"),
    "d5": ("PPP", "PPF"), "d6": ("PPP", "FFP"), "d7": ("PPP", "FFF"),
}
# deltas 1, 1, 2/3, 1, 1/3, 2/3, 1 → lift 17/21; all 7 positive → p = 2/2^7 = 1/64, significant.


def _allpass_runs(folder: Path) -> Path:
    kit = make_project(folder, "allpass", table_of(ALL_PASS, loads=False))
    assert kit.run()[0] == 0 and calls(kit) == 42
    return kit.root


@pytest.mark.parametrize(("minimum", "code", "verdict"), [(0.5, 0, "pass"), (0.9, 1, "fail")])
def test_all_with_skill_pass_minimum_lift(tmp_path, minimum, code, verdict):
    # The adapter runs are the same for both minimums (minimum_lift is not in a run's key): made once
    # per test process, then each minimum is a verdict over the stored runs.
    kit = Kit(kept("e2e-allpass", _allpass_runs)).copy_to(tmp_path / "allpass")
    (kit.root / "suite.yaml").write_text(SUITE.format(extra=f"minimum_lift: {minimum}\n"))
    bench = run(kit, code)
    assert calls(kit) == 42  # nothing ran again
    deltas = [rate(w) - rate(wo) for w, wo in ALL_PASS.values()]
    for row in bench["cases"]:
        w, wo = ALL_PASS[row["id"]]
        flags = ["improved"] + (["flaky"] if 0 < rate(wo) < 1 else [])
        check_case(row, w, wo, flags)  # no skill loads reported anywhere: nobody is "not-loaded"
    v = bench["variants"]
    assert (v["with_skill"]["passed"], v["with_skill"]["pass_rate"]) == (21, 1.0)
    assert v["without_skill"]["passed"] == 4
    assert v["without_skill"]["pass_rate"] == pytest.approx(4 / 21)
    lift = bench["lift"]
    assert lift["pass_rate"] == pytest.approx(17 / 21)
    assert sign_flip_p(deltas) == 1 / 64
    assert lift["p_value"] == pytest.approx(1 / 64)
    lo, hi = lift["ci95"]
    assert lo <= 17 / 21 <= hi and 1 / 3 <= lo and hi <= 1
    assert (lift["cases"], lift["nonzero_cases"]) == (7, 7)
    assert lift["significant"] is True and lift["indeterminate"] is False
    assert lift["minimum_lift"] == minimum and lift["met"] is (minimum <= 17 / 21)
    assert bench["verdict"] == verdict
    assert all(c["non_discriminating"] is (c["check"] == "format") for c in bench["checks"])

    junit = ET.parse(kit.results / "junit.xml").getroot()
    names = [tc.get("name") for tc in junit.findall(".//testcase")]
    assert names == [*ALL_PASS, "minimum_lift"]
    failing = [tc.get("name") for tc in junit.findall(".//testcase") if tc.find("failure") is not None]
    assert failing == ([] if code == 0 else ["minimum_lift"])

    code_r, out, err = kit.cli("report", "suite.yaml", "--format", "github")
    assert code_r == 0 and "Traceback" not in out + err  # the report was written; the verdict is run's
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    if code == 0:
        assert errors == [] and "::warning" not in out and ": verdict: pass (minimum lift: " in out
    else:
        assert len(errors) == 1
        assert ": verdict: fail (minimum lift: lift " in errors[0] and "over 7 cases is below" in errors[0]


# ---- isolation: contaminated and not-loaded --------------------------------------------------------

ISOLATION = {
    # with, without, loads in with_skill runs, loads in without_skill runs, flags
    "clean": ("PPP", "FFF", "YYY", "NNN", ["improved"]),
    "leaky": ("PPP", "PPF", "YNY", "NYN", ["improved", "flaky", "contaminated"]),
    "ignored": ("PPP", "FFF", "NNN", "NNN", ["improved", "not-loaded"]),
}


def test_isolation_flags(tmp_path):
    table = {cid: {"with_skill": w, "without_skill": wo, "loads_with_skill": lw, "loads_without_skill": lwo}
             for cid, (w, wo, lw, lwo, _) in ISOLATION.items()}
    kit = make_project(tmp_path, "isolation", table)
    bench = run(kit, 0)  # flags warn; they do not change the verdict
    for row in bench["cases"]:
        w, wo, _, _, flags = ISOLATION[row["id"]]
        check_case(row, w, wo, flags)
    assert bench["verdict"] == "pass"
    lift = bench["lift"]
    assert lift["pass_rate"] == pytest.approx((1 + 1 / 3 + 1) / 3)
    assert lift["p_value"] == pytest.approx(0.25)  # 3 positive deltas: 2 of 8 sign patterns
    assert lift["indeterminate"] is True and lift["significant"] is False
    assert lift["minimum_lift"] is None and lift["met"] is None
    checks = {c["id"]: c["non_discriminating"] for c in bench["checks"]}
    assert checks == {"clean/says-pass": False, "clean/format": True, "leaky/says-pass": False,
                      "leaky/format": True, "ignored/says-pass": False, "ignored/format": True}
    code, out, err = kit.cli("report", "suite.yaml", "--format", "github")
    assert code == 0 and "Traceback" not in out + err
    notes = [line for line in out.splitlines() if line.startswith("::")]
    assert len(notes) == 2 and notes[1].startswith("::warning ") and "leaky" in notes[1]
    assert "loaded the skill" in notes[1]
    assert notes[0] == ("::notice ::alpha (default): verdict: pass (required checks: every required "
                        "with-skill check passed; no minimum_lift is set)")


# ---- an errored run: excluded from graded, the case rate over what was graded ----------------------

def test_errored_run_figures(tmp_path):
    table = {"x1": {"with_skill": "PPE", "without_skill": "FFF"},
             "x2": {"with_skill": "FFF", "without_skill": "FPF"}}
    kit = make_project(tmp_path, "errored", table)
    bench = run(kit, 2, errored=1)
    rows = {c["id"]: c for c in bench["cases"]}
    x1 = rows["x1"]["with_skill"]
    assert (x1["runs"], x1["graded"], x1["passed"], x1["errors"], x1["pass_rate"]) == (3, 2, 2, 1, 1.0)
    assert x1["pass_at_k"] == {"1": 1.0, "2": 1.0} and x1["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert len(x1["error_messages"]) == 1
    assert x1["error_messages"][0].startswith("iteration 3: exit: adapter command exited with status 7")
    assert "scripted failure" in x1["error_messages"][0]
    assert rows["x1"]["flags"] == ["improved", "error"]
    assert rows["x1"]["delta"] == 1.0
    assert rows["x2"]["flags"] == ["regressed", "flaky"]
    assert rows["x2"]["delta"] == pytest.approx(-1 / 3)
    w, wo = bench["variants"]["with_skill"], bench["variants"]["without_skill"]
    assert (w["runs"], w["graded"], w["passed"], w["errors"]) == (6, 5, 2, 1)
    assert w["pass_rate"] == 0.5  # mean of the case rates 1 and 0, not the pooled 2/5
    assert (wo["runs"], wo["graded"], wo["passed"], wo["errors"]) == (6, 6, 1, 0)
    assert wo["pass_rate"] == pytest.approx(1 / 6)
    assert w["runs_with_tokens"] == 5 and w["usage"] == {"input_tokens": 500, "output_tokens": 50}
    lift = bench["lift"]
    assert lift["pass_rate"] == pytest.approx(1 / 3)
    assert sign_flip_p([1.0, -1 / 3]) == 1.0 and lift["p_value"] == pytest.approx(1.0)
    assert lift["ci95"][0] <= 1 / 3 <= lift["ci95"][1]
    assert bench["verdict"] == "error"
    junit = ET.parse(kit.results / "junit.xml").getroot()
    by_name = {tc.get("name"): tc for tc in junit.findall(".//testcase")}
    assert by_name["x1"].find("error") is not None and by_name["x2"].find("failure") is not None
    code, out, err = kit.cli("report", "suite.yaml", "--format", "github")
    assert code == 0
    notes = [line for line in out.splitlines() if line.startswith("::")]
    assert notes == out.splitlines()  # stdout is the annotations only; the summary is in a file
    assert "# skill-eval summary" in (kit.results / "github-summary.md").read_text()
    assert notes[0] == "::group::1 failed required check" and notes[2] == "::endgroup::"
    assert "case x2: check" in notes[1]
    assert notes[3:] == ["::error ::alpha (default): verdict: error (runs errored: 1 run could not run; "
                     "see the errors in benchmark.md)",
                     "::warning ::alpha (default): case x2 regressed with the skill: "
                     "0.0%25 vs 33.3%25 without"]
