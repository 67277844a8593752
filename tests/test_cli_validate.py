"""`skill-eval validate`: exit codes and the exact one-line messages for each bad input.

Problems print as ``path:line[:column]: message`` (errors on stderr, warnings on stdout), then one
summary line ``Validated N skills, M eval sets, K cases[; E errors, W warnings]``; exit 0 when
nothing is an error, 2 otherwise; never a traceback.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skill_eval.cli.commandline.command import COMMANDS
from skill_eval.cli.main import main
from skill_eval.grade.audit import WHY

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "test_cli_validate"
LINE = re.compile(r"^[^\n:]+(:\d+(:\d+)?)?: (warning: )?\S[^\n]*$")
CHECK_TYPES = ("command_count_le, command_not_ran, command_order, command_ran, contains, contains_all, "
               "contains_any, file_exists, golden_output, json_path_equals, json_schema, loaded_skill, "
               "max_seconds, max_tokens, no_repeated_command_loop, no_secrets, not_contains, not_regex, "
               "plugin_file_exists, plugin_regex, plugin_tool_order, plugin_tool_used, "
               "regex, script, similarity, tool_call, tool_count_le")


@pytest.fixture
def proj(tmp_path, monkeypatch) -> Path:
    """A copy of the data folder (plus a symlink pointing out of a skill), as the current folder."""
    root = tmp_path / "proj"
    shutil.copytree(DATA, root)
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (root / "skills" / "escape" / "evals" / "files" / "link.txt").symlink_to(outside)
    monkeypatch.chdir(root)
    return root


def validate(capsys, *suites: str) -> tuple[int, list[str], list[str]]:
    code = main(["validate", *suites])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out.splitlines(), err.splitlines()


def _demo_summary() -> str:
    from skill_eval.model.project import load_project

    skills, sets, cases = load_project(ROOT / "configs" / "demo.yaml").counts()
    assert skills >= 2 and sets >= 2 and cases >= 10
    return f"Validated {skills} skills, {sets} eval sets, {cases} cases"


# The demo keeps one weak case on purpose: its only check is a not_regex, which the grader
# audit flags (an empty answer and an echo of the prompt both pass it).
DEMO_AUDITS = [f"examples/skills/release-notes/evals/evals.json:26: warning: case 'drops-tests': {flag}: "
               f"{WHY[flag]}" for flag in ("passes-on-empty", "passes-on-echo")]


def test_demo_config(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = validate(capsys, "configs/demo.yaml")
    assert (code, out, err) == (0, [*DEMO_AUDITS, _demo_summary() + "; 2 warnings"], [])


def test_default_suite_is_the_demo(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert validate(capsys) == (0, [*DEMO_AUDITS, _demo_summary() + "; 2 warnings"], [])


def test_good_suite(proj, capsys):
    assert validate(capsys, "good-skill.yaml") == (0, ["Validated 1 skill, 1 eval set, 2 cases"], [])


RUBRIC_ONLY = ("skills/rubric-only/evals/evals.json:4: case 'prose' of rubric-only has only rubric "
               "assertions and the suite has no judge: add deterministic 'checks' or a 'judge' to the suite")


def test_validate_refuses_what_run_refuses_with_the_same_message(proj, capsys):
    assert validate(capsys, "rubric-only.yaml") == (2, [
        "Validated 1 skill, 1 eval set, 1 case; 1 error"], [RUBRIC_ONLY])
    code = main(["run", "rubric-only.yaml"])
    out, err = capsys.readouterr()
    assert code == 2 and err.splitlines() == [RUBRIC_ONLY]


def test_an_invalid_json_schema_is_refused_before_any_run(proj, capsys):
    skill = proj / "skills" / "rubric-only"
    evals = skill / "evals" / "evals.json"
    evals.write_text('{"skill_name": "rubric-only", "evals": [{"id": "s", "prompt": "p",\n'
                     '  "checks": [{"type": "json_schema", "schema": {"type": "nope"}}]}]}\n')
    for command in ("validate", "run"):
        code = main([command, "rubric-only.yaml"])
        out, err = capsys.readouterr()
        assert code == 2, out + err
        assert "evals.json:2:14: evals[0].checks[0]: json_schema check: invalid JSON Schema at type" in err


def bad(proj: Path) -> dict[str, list[str]]:
    esc = proj / "skills" / "escape"
    return {
        "no-frontmatter.yaml": [
            "skills/no-frontmatter/SKILL.md:1: no frontmatter: SKILL.md must start with a '---' line, then "
            "'name:' and 'description:', then '---'"],
        "wrong-name.yaml": [
            "skills/wrong-name/SKILL.md:2:1: name 'right-name' does not match its folder 'wrong-name'; "
            "rename one so they are equal, or set skill_name_check: warn in the suite"],
        "bad-json.yaml": [
            "skills/bad-json/evals/evals.json:4:35: invalid JSON: Expecting property name enclosed in double "
            "quotes; fix the syntax there"],
        "dup-ids.yaml": [
            "skills/dup-ids/evals/evals.json:5:6: evals[1].id: duplicate case id 'same' (first used at "
            "evals[0].id); give each case its own id"],
        "escape.yaml": [
            f"skills/escape/evals/evals.json:4:48: evals[0].files[0]: file "
            f"'../good-skill/evals/files/input.txt' "
            f"uses '..' and would leave {esc}; keep fixtures inside it",
            f"skills/escape/evals/evals.json:6:50: evals[1].files[0]: file '/etc/hostname' is an absolute "
            f"path; give it relative to {esc}",
            f"skills/escape/evals/evals.json:8:49: evals[2].files[0]: file 'evals/files/link.txt' "
            f"({esc}/evals/files/link.txt) resolves to {proj.parent / 'outside.txt'}, outside {esc}; copy "
            f"the file inside instead of linking to it"],
        "bad-regex.yaml": [
            "skills/bad-regex/evals/evals.json:5:17: evals[0].checks[0]: regex pattern '(unclosed' does not "
            "compile: missing ) at position 9; fix the regular expression"],  # the grading engine's words
        "bad-check-type.yaml": [
            f"skills/bad-check-type/evals/evals.json:5:18: evals[0].checks[0].type: 'contians' is not one of "
            f"{CHECK_TYPES} (did you mean 'contains'?)"],
        "unknown-skill.yaml": [
            "unknown-skill.yaml:3: skills: no skill folder 'good-skil' under skills (did you mean "
            "'good-skill'?); fix the name or skills_dir"],
    }


SUMMARY = {
    "escape.yaml": "Validated 1 skill, 0 eval sets, 0 cases; 3 errors",
    "unknown-skill.yaml": "Validated 0 skills, 0 eval sets, 0 cases; 1 error",
}


@pytest.mark.parametrize("suite", ["no-frontmatter.yaml", "wrong-name.yaml", "bad-json.yaml", "dup-ids.yaml",
                                   "escape.yaml", "bad-regex.yaml", "bad-check-type.yaml",
                                   "unknown-skill.yaml"])
def test_bad_input_message(proj, capsys, suite):
    code, out, err = validate(capsys, suite)
    assert code == 2
    assert err == bad(proj)[suite]
    assert out == [SUMMARY.get(suite, "Validated 1 skill, 0 eval sets, 0 cases; 1 error")]


def test_every_problem_of_a_tree_is_reported_at_once_in_a_stable_order(proj, capsys):
    code, out, err = validate(capsys, "all.yaml")
    assert code == 2
    expected = bad(proj)
    # skills in name order; for each, its SKILL.md problems then its eval-set problems
    assert err == [*expected["bad-check-type.yaml"], *expected["bad-json.yaml"], *expected["bad-regex.yaml"],
                   *expected["dup-ids.yaml"], *expected["escape.yaml"], *expected["no-frontmatter.yaml"],
                   *expected["wrong-name.yaml"], RUBRIC_ONLY]
    assert out[-1] == "Validated 9 skills, 2 eval sets, 3 cases; 10 errors"
    assert validate(capsys, "all.yaml") == (code, out, err)


def test_several_suites_add_up(proj, capsys):
    code, out, err = validate(capsys, "good-skill.yaml", "bad-json.yaml", "rubric-only.yaml")
    assert code == 2
    assert err == [*bad(proj)["bad-json.yaml"], RUBRIC_ONLY]
    assert out[-1] == "Validated 3 skills, 2 eval sets, 3 cases; 2 errors"
    code, out, err = validate(capsys, "good-skill.yaml")
    assert code == 0 and err == [] and out[-1] == "Validated 1 skill, 1 eval set, 2 cases"


def test_config_errors_of_several_suites_are_all_reported(proj, capsys):
    (proj / "typo.yaml").write_text("suite: t\nskills_dir: skills\nskils: [good-skill]\n")
    (proj / "empty.yaml").write_text("")
    code, out, err = validate(capsys, "typo.yaml", "empty.yaml", "good-skill.yaml", "missing.yaml")
    assert code == 2
    assert [e.split(": ", 1)[0] for e in err] == ["typo.yaml:3:1", "empty.yaml", "missing.yaml"]
    assert err[1:] == ["empty.yaml: the file is empty; a suite needs at least 'suite: <name>'",
                       "missing.yaml: file not found; check the path"]
    assert out == ["Validated 1 skill, 1 eval set, 2 cases; 3 errors"]


@pytest.mark.slow
def test_bad_configs_from_test_config_all_exit_2_with_one_line_problems(capsys, monkeypatch):
    data = Path(__file__).parent / "data" / "test_config"
    monkeypatch.chdir(data)
    for suite in sorted(p.name for p in data.glob("*.yaml")):
        code, out, err = validate(capsys, suite)
        assert code == (0 if suite in ("full.yaml", "minimal.yaml") else 2), suite
        assert all(LINE.match(line) and line.startswith(suite) for line in err), err


# ---- the installed command, as a user runs it -------------------------------------------------

def _skill_eval() -> list[str]:
    exe = shutil.which("skill-eval")
    return [exe] if exe else [sys.executable, "-c", "import sys; from skill_eval.cli.main import main; "
                                                    "sys.exit(main())"]


def test_command_line_exit_code_and_no_traceback(tmp_path):
    (tmp_path / "bad.yaml").write_text("suite: x\nskills_dir: skills\nadapter: {builtin: demo, command: "
                                       "[x]}\niterations: !!python/object/apply:os.system ['touch PWNED']\n")
    proc = subprocess.run([*_skill_eval(), "validate", "bad.yaml"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        "bad.yaml:4:13: YAML error: tag !!python/object/apply:os.system is not allowed (only plain YAML is "
        "loaded; remove the tag)"]
    assert proc.stdout.splitlines() == ["Validated 0 skills, 0 eval sets, 0 cases; 1 error"]
    assert not (tmp_path / "PWNED").exists()


def test_help_lists_every_command_with_one_line():
    proc = subprocess.run([*_skill_eval(), "--help"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 0 and proc.stderr == ""
    listed = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"^    (\w+)\s{2,}(\S.*)$", line)
        if m:
            listed[m.group(1)] = m.group(2)
    assert listed == {c.name: c.help for c in COMMANDS}
    assert set(COMMANDS.names()) >= {"validate", "run", "status", "report", "gc", "inspect", "export"}


def test_cli_import_is_light():
    code = ("import sys, skill_eval.cli.main; "
            "print(','.join(sorted(m for m in ('yaml', 'jsonschema', 'doit', 'tabulate') if m in "
            "sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == ""


@pytest.mark.parametrize(("adapter", "message"), [
    ("  builtin: replay\n", "adapter: builtin 'replay' needs 'responses: "),
    ("  builtin: claude-code\n  options: {modle: x}\n",
     "adapter: unknown option 'modle' for builtin claude-code (did you mean 'model'?)"),
])
def test_adapter_problems_run_refuses_are_validate_errors(proj, capsys, adapter, message):
    (proj / "adapter-bad.yaml").write_text(f"suite: a\nskills_dir: skills\nskills: [good-skill]\n"
                                           f"adapter:\n{adapter}")
    for command in ("validate", "run"):
        code = main([command, "adapter-bad.yaml"])
        out, err = capsys.readouterr()
        assert code == 2, out + err
        assert err.splitlines()[0].startswith("adapter-bad.yaml: " + message), err
