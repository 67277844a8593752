"""One story across the commands (issue 55), each item through the CLI as a newcomer meets it:
the README's demo edited and reverted, `init`, a garbage adapter, two runs on one store, a real
expected_output-only eval set with a judge."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from scratch import kept
from suitekit import JSON_SHIM, Kit, main_in

ROOT = Path(__file__).resolve().parents[1]


def _copy_demo(folder: Path) -> Path:
    shutil.copytree(ROOT / "examples", folder / "examples")
    (folder / "configs").mkdir()
    (folder / "configs" / "demo.yaml").write_text((ROOT / "configs" / "demo.yaml").read_text())
    return folder


@pytest.fixture
def demo(tmp_path: Path) -> Kit:
    """The shipped demo suite, copied so the test writes nothing into the repository."""
    return Kit(_copy_demo(tmp_path))


def _first_demo_run(folder: Path) -> Path:
    root = _copy_demo(folder / "demo")
    code, out, err = main_in(root, "run", "configs/demo.yaml")
    assert code == 0, err
    (folder / "first-run.txt").write_text(out)
    return root


@pytest.fixture
def demo_ran(tmp_path: Path) -> tuple[Kit, str]:
    """The demo after its first run (78 runs, made once per test process and copied) and what
    that run printed; a test's own first run then calls nothing."""
    template = kept("newcomer-demo", _first_demo_run)
    kit = Kit(template).copy_to(tmp_path / "demo")
    return kit, (template.parent / "first-run.txt").read_text()


def _first_line(out: str) -> str:
    return out.splitlines()[0]


def test_status_run_and_json_count_the_same_work_after_an_edit_and_a_revert(demo_ran):
    demo, _ = demo_ran
    code, out, err = demo.cli("run", "configs/demo.yaml")
    assert code == 0, err
    skill = demo.root / "examples" / "skills" / "release-notes" / "SKILL.md"
    original = skill.read_text()
    for text in (original.replace("description: ", "description: (edited) ", 1), original):
        skill.write_text(text)
        code, status, err = demo.cli("status", "configs/demo.yaml")
        assert code == 0, err
        said = status.splitlines()[-1].split("; estimated cost")[0]
        counts = json.loads(demo.cli("status", "--json", "configs/demo.yaml")[1])["counts"]
        rebuild_lines = [line for line in status.splitlines() if line.startswith("rebuild ")]
        assert counts["rebuild"] == len(rebuild_lines)  # the count is the lines above it
        explained = json.loads(demo.cli("status", "configs/demo.yaml", "--explain",
                                        "agent:release-notes/only-added/with_skill/default/1")[1])
        # compared with the entry that would be used now: after the revert, the stored one
        assert explained["compared"]["differs"] == ([] if text == original else ["skill"])
        code, out, err = demo.cli("run", "configs/demo.yaml")
        assert code == 0, err
        assert _first_line(out) == said  # `run` starts with the line `status` ended with
        assert said == (f"demo: {counts['planned']} runs planned, {counts['to_run']} to run, "
                        f"{counts['regrade']} to re-grade, {counts['rebuild']} tables to rebuild")
        assert counts["planned"] == 78
    assert counts["to_run"] == 0 and counts["rebuild"] == 2  # the revert's runs are stored
    page = (demo.root / "results" / "demo" / "index.html").read_text()
    assert f"2 benchmarks, {counts['planned']} runs planned" in page  # the page counts them alike


def test_an_adapter_that_logs_to_stdout_is_said_once_with_its_count_and_the_fix(tmp_path: Path):
    from skill_eval.cli.subcommands.init import init_project

    init_project(tmp_path, skill="notes")
    adapter = tmp_path / "adapter.py"
    logs_first = "import sys\nprint('Loading model...')\n"  # a log line before the JSON
    adapter.write_text(adapter.read_text().replace("import sys\n", logs_first, 1))
    code, out, err = Kit(tmp_path).cli("run", "skill-eval.yaml")
    assert code == 2
    lines = [line for line in err.splitlines() if "not JSON" in line]
    assert len(lines) == 1, err  # 18 runs, one fault, one line
    [line] = lines
    assert line.startswith("skill-eval: 18 runs could not run: adapter command 'python3 adapter.py': "
                           "adapter stdout is not JSON")
    assert "print only its JSON response on stdout and log everything else to stderr" in line
    assert "(first: agent:notes/" in line
    # each run's own message stays in benchmark.md
    bench = json.loads((tmp_path / "results" / "notes" / "benchmark.json").read_text())
    assert sum(len(c["with_skill"]["error_messages"]) for c in bench["cases"]) == 9


# ---- a real eval set from the wild: expected_output only, the skill's own files among its inputs ---

# Beside the checkout, as tests/test_realworld.py finds it; SKILL_EVAL_REALWORLD names another place.
REALWORLD = Path(os.environ.get("SKILL_EVAL_REALWORLD", ROOT.parent / "shared" / "realworld"))
DIATAXIS = REALWORLD / "88lin__diataxis-docs-skill"
# Both scripts start for each of the set's 64 runs: under -S and on suitekit's json shim.
JUDGE = JSON_SHIM + """import sys
req = json.load(sys.stdin)
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(req) + "\\n")
ok = "diataxis" in req["output"].lower()
verdicts = [{"id": r["id"], "passed": ok, "evidence": "scripted"} for r in req["rubric"]]
print(json.dumps({"verdicts": verdicts}))
"""
ADAPTER = JSON_SHIM + """import sys
req = json.load(sys.stdin)
out = "Split by Diataxis: tutorial, how-to, reference, explanation." if req.get("skill") else "Some docs."
print(json.dumps({"output": out, "events": []}))
"""


@pytest.fixture
def diataxis(tmp_path: Path) -> Path:
    if not DIATAXIS.is_dir():
        pytest.skip(f"real-world skills not found at {REALWORLD}")
    shutil.copytree(DIATAXIS, tmp_path / "skills" / "diataxis-docs")
    (tmp_path / "judge.py").write_text(JUDGE)
    (tmp_path / "adapter.py").write_text(ADAPTER)
    base = ("suite: dia\nskills_dir: skills\nskills: ['*']\nadapter:\n  command: [python3, -S, adapter.py]\n"
            "iterations: 1\nstore: .store\nresults: results\n")
    calls = tmp_path / "judge-calls.jsonl"
    (tmp_path / "judged.yaml").write_text(base + f"judge:\n  command: [python3, -S, judge.py, {calls}]\n")
    (tmp_path / "plain.yaml").write_text(base)
    return tmp_path


def test_a_real_expected_output_set_is_judged_against_it_and_its_faults_said_once(diataxis: Path):
    kit = Kit(diataxis)
    code, out, err = kit.cli("validate", "plain.yaml")  # no judge: one line for the whole set
    assert code == 2
    lines = [line for line in err.splitlines() if "expected_output" in line]
    assert lines == ["skills/diataxis-docs/evals/evals.json:6: 32 cases of diataxis-docs (1, 2, 3, ...) have "
                     "only an expected_output and no checks: add a 'judge' to the suite to grade each "
                     "against its expected_output (as skill-creator does), or deterministic 'checks'"]
    # the skill's own files among a case's inputs: one warning for the set
    leak = [line for line in out.splitlines() if "the skill's own files" in line]
    assert len(leak) == 1 and "28 cases (1, 2, 3, ...) list the skill's own files (SKILL.md, " in leak[0]
    code, judged_out, err = kit.cli("validate", "judged.yaml")
    assert code == 0, err
    assert "expected_output" not in judged_out + err and leak[0] in judged_out
    # inspect says what validate says, each once
    code, seen, _ = kit.cli("inspect", "skills/diataxis-docs/evals/evals.json")
    assert code == 0 and seen.count("the skill's own files") == 1 and leak[0] in seen
    assert seen.count("have only an expected_output and no checks") == 1
    code, out, err = kit.cli("run", "judged.yaml")
    assert code == 0, err
    requests = [json.loads(line) for line in (diataxis / "judge-calls.jsonl").read_text().splitlines()]
    assert len(requests) == 64
    first = next(r for r in requests if "tutorial, how-to" in r["expected_output"])
    [item] = first["rubric"]  # judged against the case's expected output, as skill-creator grades
    assert item["id"] == "expected_output" and first["expected_output"] in item["text"]
    bench = json.loads((diataxis / "results" / "diataxis-docs" / "benchmark.json").read_text())
    assert bench["variants"]["with_skill"]["pass_rate"] == 1.0
    assert bench["variants"]["without_skill"]["pass_rate"] == 0.0


def _write_case(root: Path, case: dict, files: dict[str, str] | None = None) -> Kit:
    kit = Kit.create(root, iterations=1, skills={"alpha": []})
    for rel, text in (files or {}).items():
        (kit.skill_dir("alpha") / rel).parent.mkdir(parents=True, exist_ok=True)
        (kit.skill_dir("alpha") / rel).write_text(text)
    kit.write_evals("alpha", [case])
    return kit


def test_a_prompt_naming_a_fixture_by_its_skill_path_is_warned(tmp_path: Path):
    kit = _write_case(tmp_path, {"id": "c", "prompt": "Read evals/files/in.json and summarise it.",
                                 "files": ["evals/files/in.json"],
                                 "checks": [{"id": "x", "type": "contains", "value": "summary"}]},
                      {"evals/files/in.json": "{}"})
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 0, err
    assert ("case 'c' names a fixture ('evals/files/in.json', at inputs/evals/files/in.json) in the prompt "
            "by the path it has in the skill folder") in out
    code, seen, _ = kit.cli("inspect", str(kit.skill_dir("alpha")))
    assert seen.count("names a fixture") == 1


@pytest.mark.parametrize("where", ["prompt", "fixture", "check"])
def test_a_case_that_hands_over_its_answer_is_warned(tmp_path: Path, where: str):
    answer = "The total is 42 apples and 17 pears."
    case = {"id": "c", "prompt": "Count the fruit in inputs/evals/files/basket.txt."
            + (f" Answer: {answer}" if where in ("prompt", "check") else ""),
            "files": ["evals/files/basket.txt"], "expected_output": answer,
            "checks": [{"id": "says-total", "type": "contains", "value": "42 apples and 17 pears"}]}
    if where == "check":
        case["expected_output"] = "the counts"
    basket = answer if where == "fixture" else "apples, pears"
    kit = _write_case(tmp_path, case, {"evals/files/basket.txt": basket})
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 0, err
    what = "the text check 'says-total' requires" if where == "check" else "its expected output"
    assert f"case 'c' already holds {what} in the prompt or the files" in out


def test_a_loaded_skill_check_is_not_applied_in_the_arm_without_the_skill(demo_ran):
    demo, _ = demo_ran
    code, out, err = demo.cli("run", "configs/demo.yaml")
    assert code == 0, err
    run = demo.root / "results" / "demo" / "commit-message" / "iteration-1"
    case = next(p for p in sorted(run.iterdir()) if (p / "with_skill" / "grading.json").is_file()
                and "skill-used" in (p / "with_skill" / "grading.json").read_text())
    ids = {arm: [c["id"] for c in json.loads((case / arm / "grading.json").read_text())["checks"]]
           for arm in ("with_skill", "without_skill")}
    assert "skill-used" in ids["with_skill"] and "skill-used" not in ids["without_skill"]


def test_a_run_waiting_for_the_store_says_at_once_who_holds_it_and_how_not_to_wait(tmp_path: Path):
    import os
    import select
    import subprocess

    from skill_eval.store.store import Store

    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    assert kit.run()[0] == 0
    with Store(kit.store).lock():  # another run holds the store
        proc = kit.subprocess("run", "suite.yaml", "--force")
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        assert ready, "nothing said while waiting"
        line = proc.stderr.readline()
        assert line.startswith("skill-eval: the store ")
        assert f"in use by pid {os.getpid()} since 20" in line and "--no-wait" in line
        with pytest.raises(subprocess.TimeoutExpired):  # still waiting, not gone
            proc.wait(timeout=0.2)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    code, out, err = kit.run("--no-wait")
    assert code == 0, err


def test_every_command_that_defaults_its_suite_names_the_same_rule(capsys):
    from skill_eval.cli.commandline.command import COMMANDS
    from skill_eval.cli.main import DEFAULT_HELP, _parser

    parser = _parser()
    defaulted = []
    for name in COMMANDS.names():
        sub = parser._subparsers._group_actions[0].choices[name]  # noqa: SLF001
        for action in sub._actions:  # noqa: SLF001
            if action.dest in ("suite", "suites") and action.nargs in ("?", "*"):
                assert action.help == DEFAULT_HELP, name
                defaulted.append(name)
    assert {"run", "status", "report", "validate", "plan", "compare", "bless"} <= set(defaulted)


@pytest.mark.parametrize("lift", ["10", "0", "-0.1", "1.5", "nan"])
def test_plan_refuses_a_lift_outside_0_1_in_one_line(demo: Kit, lift: str):
    proc = demo.subprocess("plan", "configs/demo.yaml", "--lift", lift)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    [line] = [x for x in err.splitlines() if "error" in x]
    assert f"'{lift}' is outside (0, 1]: give the lift as a fraction of the pass rate (0.1 = +10 pp)" in line


def test_plan_says_when_the_stored_deltas_cannot_estimate_the_spread(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1", "a2"]})
    assert kit.run()[0] in (0, 1)
    code, out, err = kit.cli("plan", "suite.yaml", "--lift", "0.1", "--json")
    assert code == 0, err
    [row] = json.loads(out)["comparisons"]
    assert row["sigma_source"].endswith("(cannot estimate the spread: the 2 stored per-case deltas are all "
                                        "+100.0 pp)")
    assert row["cases_needed"] > 6  # planned with the prior, not "1 case needed"


PLUGIN_EVALS = Path(os.environ.get("SKILL_EVAL_REALWORLD_PLUGINS",
                                   ROOT.parent / "shared" / "realworld-plugin-evals"))


def test_validate_and_inspect_say_a_plugin_eval_folder_once_and_count_it_once(tmp_path: Path):
    dojo = PLUGIN_EVALS / "zainthedev__skills" / "plugins" / "dojo"
    if not dojo.is_dir():
        pytest.skip(f"the shared real plugin-eval suites are not at {PLUGIN_EVALS}")
    shutil.copytree(dojo, tmp_path / "dojo")
    for skill in ("coach", "next"):  # two skills find the plugin's one evals/ folder
        (tmp_path / "dojo" / "skills" / skill).mkdir(parents=True)
        (tmp_path / "dojo" / "skills" / skill / "SKILL.md").write_text(
            f"---\nname: {skill}\ndescription: the {skill} skill of the dojo plugin\n---\nBody\n")
    (tmp_path / "s.yaml").write_text("suite: p\nskills_dir: dojo/skills\nskills: ['*']\n"
                                     "adapter: {builtin: claude-code}\nstore: .s\nresults: r\n")
    kit = Kit(tmp_path)
    code, out, err = kit.cli("validate", "s.yaml")
    said = (out + err).splitlines()
    graders = [line for line in said if "/graders/" in line]
    assert graders and len(graders) == len(set(graders))  # each grader warning once
    [total] = [line for line in said if line.startswith("Validated ")]
    assert total.startswith("Validated 2 skills, 1 eval set, 3 cases")
    code, seen, _ = kit.cli("inspect", "dojo")
    assert sorted(line.strip() for line in seen.splitlines() if "/graders/" in line) == sorted(graders)


def test_the_demo_passes_on_the_estimate_and_gate_decided_makes_it_undecided(demo_ran):
    estimate = ("commit-message [default]: pass on the estimate; not significant yet (p=0.062, 6 cases); "
                "`--until-decided` settles it (minimum lift: lift +66.7 pp over 6 cases is at least "
                "+10.0 pp)")
    demo, out = demo_ran  # what the first run printed
    assert estimate in out  # the gate and its exit code (0, in the fixture) as before
    results = demo.root / "results" / "demo"
    said = estimate.split(": ", 1)[1]
    assert said in (results / "summary.md").read_text().replace("**", "")
    assert said in (results / "commit-message" / "benchmark.md").read_text().replace("**", "")
    assert said in (results / "junit.xml").read_text()
    assert 'class="v-estimate">pass on the estimate</span>' in (results / "index.html").read_text()
    suite = demo.root / "configs" / "demo.yaml"
    suite.write_text(suite.read_text() + "gate: decided\n")
    code, out, err = demo.cli("run", "configs/demo.yaml")
    assert code == 1, out + err
    assert ("commit-message [default]: undecided (minimum lift, gate: decided: lift +66.7 pp over 6 cases "
            "is at least +10.0 pp but not significant yet (p=0.062, 6 cases); `--until-decided` settles it)"
            ) in out
    assert json.loads((results / "summary.json").read_text())["verdict"] == "undecided"
