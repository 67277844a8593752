"""claude plugin eval's own numbers, proven side by side: one small plugin suite (weighted regex
graders, a Skill tool_used indicator, arm: with-only and arm: both, a case of indicators only,
a case whose runs end at max_turns) run by the real ``claude plugin eval --json`` and by
``skill-eval run`` against the scripted model server give the same run scores, per-grader
``passed``/``scored``, case scores and Δ, and ``report --format plugin-eval-json`` the same
aggregates. Prints the agreement as n/m."""

from __future__ import annotations

import json

import pytest
from fakemodel import Script
from plugineval_oracle import plugin_eval, skill_eval, write_plugin
from realcli import PLUGIN_EVAL_SETS, cli

from skill_eval.cli.main import main

pytestmark = pytest.mark.slow


def _g(front: str) -> str:
    return f"---\n{front}\n---\n"


FIRED = "type: tool_used\ntool: Skill\ninput_match: '\"skill\"\\s*:\\s*\"(?:[\\w-]+:)?csv-summary\"'"
CASES = {
    "weighted": {"prompt.md": "---\nruns: 2\n---\nSum the sales.\n",
                 "graders/w42.md": _g('type: regex\npattern: "42"\nweight: 3'),
                 "graders/total.md": _g('type: regex\npattern: "TOTAL"\nflags: i'),
                 "graders/nope.md": _g('type: regex\npattern: "never-there"\nweight: 2'),
                 "graders/fired.md": _g(f"{FIRED}\nweight: 10"),
                 "graders/withonly.md": _g('type: regex\npattern: "never-there"\narm: with-only\nweight: 5')},
    "thirds": {"prompt.md": "---\nruns: 1\n---\nSum the sales.\n",
               "graders/a.md": _g('type: regex\npattern: "42"'),
               "graders/b.md": _g('type: regex\npattern: "otal"'),
               "graders/c.md": _g('type: regex\npattern: "never-there"')},
    "both": {"prompt.md": "---\nruns: 1\n---\nSum the sales.\n",
             "graders/noskill.md": _g("type: tool_used\ntool: Skill\nmin: 0\nmax: 0\narm: both"),
             "graders/w42.md": _g('type: regex\npattern: "42"')},
    "onlyfired": {"prompt.md": "---\nruns: 1\n---\nSum the sales.\n",
                  "graders/fired.md": _g("type: tool_used\ntool: Skill"),
                  "graders/wo.md": _g('type: regex\npattern: "42"\narm: with-only')},
    "turns": {"prompt.md": "---\nruns: 1\nmax_turns: 2\nallowed_tools: [Glob]\n---\nLOOPME list the files.\n",
              "graders/any.md": _g('type: regex\npattern: "."'),
              "graders/fired.md": _g("type: tool_used\ntool: Skill")},
}
THRESHOLD = "0.5"


@pytest.fixture(scope="module", params=PLUGIN_EVAL_SETS)
def both(request, tmp_path_factory):  # noqa: ANN001, ANN201
    claude = cli("claude", request.param)
    root = tmp_path_factory.mktemp(f"pes-{request.param}")
    plugin = write_plugin(root / "plug", CASES)
    script = Script(loop_tool="Glob", loop_if="LOOPME")
    theirs = plugin_eval(claude, plugin, script, "-j", "2", "--threshold", THRESHOLD)
    skill_eval(claude, plugin, script, root / "se", "--threshold", THRESHOLD,
               arms=("with_skill", "without_skill"))
    [bench] = [json.loads(p.read_text()) for p in (root / "se" / "results").glob("*/benchmark.json")]
    return theirs.document, bench, root


def _theirs(doc: dict) -> dict:
    return {c["name"]: c for c in doc["cases"]}


def test_run_scores_graders_case_scores_and_delta_agree_with_plugin_eval(both):
    doc, bench, _ = both
    ours = {c["id"]: c for c in bench["plugin_eval"]["cases"]}
    agree = total = 0
    differences = []
    for name, case in _theirs(doc).items():
        mine = ours[name]
        for arm, runs in case["arms"].items():
            for i, (real, run) in enumerate(zip(runs, mine["runs"][arm], strict=True)):
                for what, a, b in (
                        ("score", run["score"], real["score"]), ("passed", run["passed"], real["passed"]),
                        ("graders", sorted((g["name"], g["passed"], g["scored"]) for g in run["graders"]),
                         sorted((g["name"], g["passed"], g["scored"]) for g in real["graders"]))):
                    total += 1
                    agree += a == b
                    if a != b:
                        differences.append(f"{name}/{arm}/{i + 1} {what}: ours {a} theirs {b}")
        for what, key in (("score", "score"), ("without", "scoreWithout"), ("delta", "delta")):
            total += 1
            a, b = mine.get({"score": "score", "without": "score_without", "delta": "delta"}[what]), \
                case["aggregates"].get(key)
            agree += a == pytest.approx(b, abs=1e-12) if b is not None else a is None
            if not (a == pytest.approx(b, abs=1e-12) if b is not None else a is None):
                differences.append(f"{name} {what}: ours {a} theirs {b}")
    print(f"\nagreement with claude plugin eval {doc['claudeVersion']}: {agree}/{total}")
    assert differences == []
    assert sorted(ours) == sorted(_theirs(doc))


def test_the_suite_numbers_and_the_plugin_eval_json_report_agree(both):
    doc, bench, root = both
    block = bench["plugin_eval"]
    agg = doc["aggregates"]
    assert block["threshold"] == float(THRESHOLD) == doc["suite"]["threshold"]
    assert block["cases_passed"] == agg["casesPassed"]
    assert block["overall_score"] == pytest.approx(agg["overallScore"], abs=1e-12)
    assert block["mean_delta"] == pytest.approx(agg["meanDelta"], abs=1e-12)
    assert block["perfect_runs"] == pytest.approx(agg["overallPassRate"], abs=1e-12)
    out = root / "aggregate-result.json"
    assert main(["report", str(root / "se" / "suite.yaml"), "--format", "plugin-eval-json",
                 "--threshold", THRESHOLD, "--out", str(out)]) == 0
    ours = json.loads(out.read_text())
    assert ours["aggregates"] == pytest.approx(agg, abs=1e-12)
    theirs = _theirs(doc)
    assert sorted(c["name"] for c in ours["cases"]) == sorted(theirs)
    for case in ours["cases"]:
        assert case["aggregates"] == pytest.approx(theirs[case["name"]]["aggregates"], abs=1e-12)


def test_the_summary_shows_the_first_party_numbers_beside_the_lift(both):
    _, bench, root = both
    summary = (root / "se" / "results" / "summary.md").read_text()
    assert "claude plugin eval's numbers beside skill-eval's" in summary and "mean Δ" in summary
    table = (root / "se" / "results" / bench["skill"] / "benchmark.md").read_text()
    assert "## claude plugin eval's scores" in table and "≥ 50.0%" in table
    page = (root / "se" / "results" / "index.html").read_text()
    assert "claude plugin eval's scores" in page and "plugin-fired indicator: not scored" in page
