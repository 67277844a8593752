"""Ablations: arms that run a skill with one part removed, keyed by what they are given, and the
verdict on whether the part matters. The adapter is a script written here: it answers with the
severity label only when the installed SKILL.md still holds the rule, and logs what it was given.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from skill_eval.cli.main import main
from skill_eval.intake.schemas_io import load_schema
from skill_eval.model.ablation.parts import remove_section
from skill_eval.review.comparison.ablations import verdict

SKILL_MD = """\
---
name: rev
description: Reviews a change and labels the severity of each finding.
---

# Reviewer

## Severity rules

Label every finding Blocking or Minor.

### Examples

A missing test is Blocking.

## Tone

Be kind.
"""

ADAPTER = """\
import json, os, sys
from pathlib import Path
here = os.path.dirname(os.path.abspath(__file__))
req = json.load(sys.stdin)
skill = Path(req["workspace"]) / req["skill"]["path"] if req["skill"] else None
rule = bool(skill) and "Label every finding Blocking" in (skill / "SKILL.md").read_text()
guide = bool(skill) and (skill / "references" / "guide.md").is_file()
with open(os.path.join(here, "calls.log"), "a") as f:
    f.write(json.dumps({"mode": req["mode"], "ablation": req.get("ablation"), "rule": rule,
                        "guide": guide}) + "\\n")
print(json.dumps({"output": "Severity: Blocking." if rule else "Looks fine.", "events": []}))
"""

SUITE = """\
suite: abl
skills_dir: skills
iterations: 1
jobs: 2
store: store
results: results
adapter:
  command: [{python}, adapter.py]
"""

ABLATIONS = """\
ablations:
  - remove: ["## Severity rules"]
  - name: no-guide
    remove: [references/guide.md]
"""


def _suite(root: Path, n_cases: int = 6, ablations: str = ABLATIONS) -> Path:
    skill = root / "skills" / "rev"
    (skill / "references").mkdir(parents=True)
    (skill / "scripts").mkdir()
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "references" / "guide.md").write_text("A longer guide.\n")
    (skill / "scripts" / "tool.py").write_text("print('tool')\n")
    cases = [{"id": f"c{i}", "prompt": f"Review change {i}.",
              "checks": [{"id": "severity", "type": "contains", "value": "Blocking"}]}
             for i in range(n_cases)]
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": "rev", "evals": cases}))
    (root / "adapter.py").write_text(ADAPTER)
    suite = root / "suite.yaml"
    suite.write_text(SUITE.format(python=sys.executable) + ablations)
    return suite


def _calls(root: Path) -> dict[str, int]:
    """Adapter calls per arm since the last call, and forget them."""
    log = root / "calls.log"
    counts: dict[str, int] = {}
    if log.is_file():
        for line in log.read_text().splitlines():
            call = json.loads(line)
            arm = f"ablation:{call['ablation']}" if call["ablation"] else call["mode"]
            counts[arm] = counts.get(arm, 0) + 1
        log.unlink()
    return counts


def _bench(root: Path) -> dict:
    return json.loads((root / "results" / "rev" / "benchmark.json").read_text())


@pytest.mark.slow
def test_ablation_arms_run_on_the_ablated_copy_with_a_verdict_each(tmp_path: Path):
    suite = _suite(tmp_path)
    assert main(["run", str(suite)]) == 0
    calls = [json.loads(line) for line in (tmp_path / "calls.log").read_text().splitlines()]
    by_arm = {}
    for c in calls:
        by_arm.setdefault(c["ablation"] or c["mode"], []).append(c)
    assert {k: len(v) for k, v in by_arm.items()} == {"with_skill": 6, "without_skill": 6,
                                                      "no-severity-rules": 6, "no-guide": 6}
    # Each arm was given exactly its copy: mode with_skill, one part missing, the rest intact.
    assert all(c["mode"] == "with_skill" for c in by_arm["no-severity-rules"] + by_arm["no-guide"])
    assert all(not c["rule"] and c["guide"] for c in by_arm["no-severity-rules"])
    assert all(c["rule"] and not c["guide"] for c in by_arm["no-guide"])
    assert all(c["rule"] and c["guide"] for c in by_arm["with_skill"])
    # The original skill is untouched.
    assert "## Severity rules" in (tmp_path / "skills" / "rev" / "SKILL.md").read_text()

    bench = _bench(tmp_path)
    assert not list(Draft202012Validator(load_schema("benchmark")).iter_errors(bench))
    abl = {a["name"]: a for a in bench["ablations"]}
    matters = abl["no-severity-rules"]
    assert (matters["verdict"], matters["loss"], matters["cases"]) == ("matters", 1.0, 6)
    assert matters["p_value"] == pytest.approx(2 / 64) and matters["ci95"] == [1.0, 1.0]
    assert matters["variant"] == "ablation:no-severity-rules" and matters["pass_rate"] == 0.0
    none = abl["no-guide"]
    assert (none["verdict"], none["loss"], none["p_value"]) == ("no-measurable-effect", 0.0, 1.0)
    # Ablation arms stay out of the skill's own figures and verdict.
    assert bench["verdict"] == "pass" and bench["lift"]["pass_rate"] == 1.0
    assert set(bench["variants"]) == {"with_skill", "without_skill"}

    md = (tmp_path / "results" / "rev" / "benchmark.md").read_text()
    assert "## Ablations" in md and "the removed part matters" in md and "no measurable effect" in md
    summary = (tmp_path / "results" / "summary.md").read_text()
    assert "## Ablations" in summary and "no-severity-rules" in summary
    page = (tmp_path / "results" / "index.html").read_text()
    assert '<table class="ablations">' in page and "the removed part matters" in page
    run_dir = tmp_path / "results" / "rev" / "iteration-1" / "eval-c0" / "ablation-no-guide"
    assert (run_dir / "grading.json").is_file()


@pytest.mark.slow
def test_ablation_keys_follow_what_each_arm_is_given(tmp_path: Path):
    suite = _suite(tmp_path, n_cases=2, ablations="")
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {"with_skill": 2, "without_skill": 2}
    # Adding ablations runs only the new arms: the existing arms' keys do not change.
    suite.write_text(suite.read_text() + ABLATIONS)
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {"ablation:no-severity-rules": 2, "ablation:no-guide": 2}
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {}

    skill = tmp_path / "skills" / "rev"
    # A file every installing arm contains: all of them re-run, never the without-skill arm.
    (skill / "scripts" / "tool.py").write_text("print('tool v2')\n")
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {"with_skill": 2, "ablation:no-severity-rules": 2, "ablation:no-guide": 2}
    # The removed file: the full skill and the other ablation re-run, not the arm without it.
    (skill / "references" / "guide.md").write_text("A rewritten guide.\n")
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {"with_skill": 2, "ablation:no-severity-rules": 2}
    # The removed section (its nested subsection included): the same, for the section's arm.
    md = skill / "SKILL.md"
    md.write_text(md.read_text().replace("A missing test is Blocking.", "A missing test is Blocking!"))
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {"with_skill": 2, "ablation:no-guide": 2}
    # Another section of SKILL.md: every arm that has SKILL.md.
    md.write_text(md.read_text().replace("Be kind.", "Be kind and brief."))
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {"with_skill": 2, "ablation:no-severity-rules": 2, "ablation:no-guide": 2}
    # Renaming an ablation is a new arm.
    suite.write_text(suite.read_text().replace("name: no-guide", "name: without-guide"))
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {"ablation:without-guide": 2}


@pytest.mark.slow
def test_a_few_cases_give_an_indeterminate_verdict(tmp_path: Path):
    suite = _suite(tmp_path, n_cases=3)
    assert main(["run", str(suite)]) == 0
    abl = {a["name"]: a for a in _bench(tmp_path)["ablations"]}
    assert abl["no-severity-rules"]["verdict"] == "indeterminate"
    assert abl["no-severity-rules"]["loss"] == 1.0
    assert abl["no-guide"]["verdict"] == "indeterminate"


def test_verdict_rules():
    assert verdict(1.0, 0.03, 6) == "matters"
    assert verdict(-1.0, 0.03, 6) == "removal-helps"
    assert verdict(0.2, 0.4, 6) == "no-measurable-effect"
    assert verdict(0.2, 0.4, 5) == "indeterminate"
    assert verdict(None, None, 0) == "indeterminate"


@pytest.mark.parametrize("heading, gone, kept", [
    ("## Severity rules", ["Label every", "### Examples", "A missing test"], ["## Tone", "# Reviewer"]),
    ("### Examples", ["A missing test"], ["Label every", "## Tone"]),
    ("## Tone", ["Be kind"], ["## Severity rules", "A missing test"]),
    ("# Reviewer", ["## Severity rules", "## Tone"], ["name: rev"]),
])
def test_remove_section_takes_the_heading_and_everything_under_it(heading: str, gone: list[str],
                                                                  kept: list[str]):
    out = remove_section(SKILL_MD, heading)
    assert out is not None
    assert all(g not in out for g in gone) and all(k in out for k in kept)


def test_remove_section_ignores_fenced_headings_and_keeps_line_endings():
    text = "# T\r\n\r\n## A\r\n```\r\n## B\r\n```\r\nbody\r\n## C\r\nc\r\n"
    assert remove_section(text, "## A") == "# T\r\n\r\n## C\r\nc\r\n"
    assert remove_section(text, "## B") is None  # only inside a code block
    assert remove_section(text, "### A") is None  # the level is part of the heading
    front = "---\nname: x\n# Notes\n---\n# Notes\nbody\n"
    # A '# comment' in the frontmatter is YAML, not a heading.
    assert remove_section(front, "# Notes") == "---\nname: x\n# Notes\n---\n"


@pytest.mark.slow
@pytest.mark.parametrize("ablations, expected", [
    ("ablations:\n  - remove: [references/missing.md]\n",
     "ablation 'no-references-missing-md' of skill rev: 'references/missing.md' is not a file or folder"),
    ("ablations:\n  - remove: ['## Nowhere']\n", "heading '## Nowhere' not found in SKILL.md"),
    ("ablations:\n  - remove: [../outside.md]\n", "must be a path inside the skill folder"),
    ("ablations:\n  - remove: [SKILL.md]\n", "removing SKILL.md leaves no skill"),
    ("ablations:\n  - {skill: revv, remove: [scripts]}\n",
     "names skill 'revv', which the suite does not select"),
    ("ablations:\n  - {name: x, remove: [scripts]}\n  - {name: x, remove: [references]}\n",
     "ablation 'x' is declared twice"),
    ("ablations:\n  - {remove: [scripts], skip: true}\n", "unknown key 'skip'"),
    ("ablations:\n  - {remove: [scripts], cases: [c9]}\n",
     "names case(s) c9 that skill rev has no task case of"),
])
def test_an_ablation_that_cannot_be_made_is_invalid_input(tmp_path: Path, capsys, ablations: str,
                                                           expected: str):
    suite = _suite(tmp_path, n_cases=1, ablations=ablations)
    assert main(["run", str(suite)]) == 2
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert expected in err and "Traceback" not in err
    assert not (tmp_path / "calls.log").exists()


@pytest.mark.slow
def test_a_folder_can_be_removed(tmp_path: Path):
    suite = _suite(tmp_path, n_cases=1, ablations="ablations:\n  - {name: no-refs, remove: [references/]}\n")
    assert main(["run", str(suite)]) == 0
    calls = [json.loads(line) for line in (tmp_path / "calls.log").read_text().splitlines()]
    assert [c["guide"] for c in calls if c["ablation"] == "no-refs"] == [False]


# The harness demo's adapter, but answering from the installed SKILL.md, so removing its
# labelling rule (the "Severity rules" section, or only its sentence) shows.
HARNESS_ADAPTER = """\
import json, sys
from pathlib import Path
req = json.load(sys.stdin)
if req.get("trigger"):
    events = [{"type": "skill_loaded", "name": "demo-reviewer"}] if "review" in req["prompt"].lower() else []
    print(json.dumps({"output": "ok", "events": events}))
    sys.exit(0)
text = (Path(req["workspace"]) / req["skill"]["path"] / "SKILL.md").read_text() if req["skill"] else ""
out = "Severity: Blocking, see the file and line 3." if "Label every finding" in text else "LGTM"
print(json.dumps({"output": out, "events": []}))
"""


@pytest.mark.slow
def test_the_harness_demo_manifest_runs_its_ablation(tmp_path: Path, capsys):
    from test_harness_manifest import DEMO, _repo

    manifest = {**DEMO, "ablations": [
        *DEMO["ablations"],
        {"id": "simulated", "removed_component": "evidence rule"},
        {"id": "no-allowed-tools", "removed_component": "tools", "mechanism": "frontmatter_field",
         "class": "runtime", "target": {"skill_root": "skills/demo/SKILL.md", "field": "allowed-tools"}},
        {"id": "no-guide", "removed_component": "guide", "mechanism": "asset", "class": "resource",
         "target": {"skill_root": "skills/demo/SKILL.md", "path": "references/guide.md"}},
        {"id": "no-evidence", "removed_component": "evidence", "mechanism": "section",
         "applies_to_cases": ["c-missing"], "target": {"heading": "## Evidence"}},
        {"id": "no-label-line", "removed_component": "label sentence", "mechanism": "patch",
         "class": "instructions", "applies_to_cases": ["c-review"],
         "target": {"skill_root": "skills/demo/SKILL.md",
                    "patch": "evals/ablations/no-label-line.patch"}},
    ]}
    suite = _repo(tmp_path, manifest)
    (tmp_path / "adapter.py").write_text(HARNESS_ADAPTER)
    patches = tmp_path / "repo" / "evals" / "ablations"
    patches.mkdir()
    (patches / "no-label-line.patch").write_text(
        "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -9,3 +9,2 @@\n"
        " \n-Label every finding Blocking, Minor or Clean.\n \n")
    assert main(["validate", str(suite)]) == 0
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert "ablation 'simulated' declares no removal" in err
    assert "ablation 'no-allowed-tools' is left out: mechanism 'frontmatter_field' is not supported" in err
    # A manifest's ablation the skill cannot take is left out with a warning, not a failed suite.
    assert "warning: ablation 'no-guide' of skill demo (left out): 'references/guide.md' is not a file" in err
    assert "warning: ablation 'no-evidence' (left out) names case(s) c-missing that skill demo has no" in err
    assert main(["run", str(suite)]) == 0
    bench = json.loads((tmp_path / "results" / "demo" / "benchmark.json").read_text())
    assert [a["name"] for a in bench["ablations"]] == ["no-severity", "no-label-line"]
    patched = bench["ablations"][1]
    assert patched["remove"] == ["evals/ablations/no-label-line.patch"]
    assert patched["per_case"] == [{"id": "c-review", "with_skill": 1.0, "ablation": 0.0, "loss": 1.0}]
    abl = bench["ablations"][0]
    assert abl["remove"] == ["## Severity rules"] and abl["runs"] == 1
    assert abl["per_case"] == [{"id": "c-review", "with_skill": 1.0, "ablation": 0.0, "loss": 1.0}]
    assert abl["verdict"] == "indeterminate"  # one case: no test can tell
    run_dir = tmp_path / "results" / "demo" / "iteration-1" / "eval-c-review" / "ablation-no-severity"
    grade = json.loads((run_dir / "grading.json").read_text())
    assert grade["passed"] is False


@pytest.mark.slow
def test_an_ablation_can_be_limited_to_some_cases(tmp_path: Path):
    suite = _suite(tmp_path, n_cases=3,
                   ablations="ablations:\n  - {name: some, remove: [scripts], cases: [c0, c2]}\n")
    assert main(["run", str(suite)]) == 0
    assert _calls(tmp_path) == {"with_skill": 3, "without_skill": 3, "ablation:some": 2}
    abl = _bench(tmp_path)["ablations"][0]
    assert [c["id"] for c in abl["per_case"]] == ["c0", "c2"] and abl["cases"] == 2


@pytest.mark.e2e  # Chromium
def test_the_review_page_shows_the_ablations_and_their_runs(tmp_path: Path):
    from test_review_page import ARGS, CHROMIUM, Watch

    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    suite = _suite(tmp_path)
    assert main(["run", str(suite)]) == 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        watch = Watch(page)
        page.goto((tmp_path / "results" / "index.html").as_uri())
        rows = page.locator("table.ablations tbody tr")
        assert rows.count() == 2
        assert "the removed part matters" in rows.nth(0).inner_text()
        assert "no measurable effect" in rows.nth(1).inner_text()
        page.locator("tr.case", has_text="c0").first.click()
        body = page.inner_text("body")
        # Opening a case shows each ablation arm's run beside the full and the bare arm.
        assert "ablation:no-severity-rules, iteration 1" in body and "ablation:no-guide, iteration 1" in body
        watch.clean(page)
        browser.close()
