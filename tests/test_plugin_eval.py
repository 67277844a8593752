"""`claude plugin eval` suites: read as they are (cases, prompts, graders mapped to checks and rubric
items, the unmappable named), inspected with counts, and written back by `export --format plugin-eval`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_eval.cli.main import main
from skill_eval.model.evalsets import read_evalset
from skill_eval.model.project import load_project
from skill_eval.model.runsettings import RunSettings
from skill_eval.review.exports.plugin_eval import export_cases

SHARED = Path(__file__).resolve().parents[2] / "shared" / "realworld-plugin-evals"
# repository folder, suite path, cases, graders: the table of the shared PROVENANCE.md
SUITES = [("zainthedev__skills", "plugins/dojo/evals", 3, 17), ("IniZio__groundwork", "evals", 6, 6),
          ("jimador__brigade", "evals", 11, 27), ("xsyetopz__dotclaude", "evals", 15, 31)]


def _shared(repo: str, rel: str) -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the shared real plugin-eval suites are not on this machine")
    return SHARED / repo / rel


def _same(a, b) -> None:  # noqa: ANN001
    first, again = (sorted(s.cases, key=lambda c: c.id) for s in (a, b))  # folders are named by case
    assert [c.id for c in first] == [c.id for c in again]
    for x, y in zip(first, again, strict=True):
        assert (x.prompt.strip(), x.checks_json(), x.rubric_json()) == (y.prompt.strip(), y.checks_json(),
                                                                        y.rubric_json()), x.id


@pytest.mark.parametrize(("repo", "rel", "cases", "graders"), SUITES, ids=[s[0] for s in SUITES])
def test_every_shared_suite_is_read_with_its_cases_and_graders(repo, rel, cases, graders, capsys):
    root = _shared(repo, "")
    assert main(["inspect", str(root), "--json"]) == 0
    [found] = json.loads(capsys.readouterr().out)
    assert found["format"] == "plugin_eval" and found["path"].endswith(rel)
    assert (found["cases"], found["graders"]) == (cases, graders)
    # Run settings, scaffolds and history files are the cases' own settings now, not "not used".
    assert not [p for p in found["problems"] if "not used" in p or "is not run" in p]
    # Every grader is a check, a rubric item, or named as not graded: none is dropped.
    assert found["checks"] + found["rubric"] + len(found["unmapped"]) == graders
    assert all(" is not graded by skill-eval: " in p for u in found["unmapped"]
               for p in found["problems"] if u.split(" (")[0].split("/")[1] in p and "not graded" in p)


@pytest.mark.slow
@pytest.mark.parametrize(("repo", "rel", "cases", "graders"), SUITES, ids=[s[0] for s in SUITES])
def test_every_shared_suite_round_trips_through_export(repo, rel, cases, graders, tmp_path):
    first = read_evalset(_shared(repo, rel))
    n, skipped = export_cases(first.cases, first.skill_name or "skill", tmp_path / "evals")
    assert n == cases and skipped == []
    again = read_evalset(tmp_path / "evals")
    _same(first, again)
    assert again.unmapped == ()  # only what was mapped is written; it maps again exactly


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


PLUGIN = {
    ".claude-plugin/plugin.json": '{"name": "notes"}',
    "skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha things.\n---\nDo alpha.\n",
    "skills/beta/SKILL.md": "---\nname: beta\ndescription: Beta things.\n---\nDo beta.\n",
    "evals/group/uses-beta/prompt.md": "---\nname: uses-beta\nruns: 2\n---\n\nWrite the beta notes.\n",
    "evals/group/uses-beta/graders/fired.md":
        "---\ntype: tool_used\ntool: Skill\n"
        "input_match: '\"skill\"\\s*:\\s*\"(?:notes:)?beta\"'\n---\nprose\n",
    "evals/group/uses-beta/graders/heading.md": "---\ntype: regex\npattern: '^# Notes'\nflags: im\n---\n",
    "evals/group/uses-beta/graders/good.md": "---\ntype: llm\nweight: 2\n---\nPASS if the notes are short.\n",
    "evals/plain/case.yaml": (
        'schema_version: "1.1"\nname: plain\nexecution:\n  prompt: Say hello.\n'
        "context:\n  add_dirs: [resources]\ngraders:\n"
        "  - {name: no-bye, type: regex, pattern: bye, match: not_contains}\n"
        "  - {name: ran-tests, type: tool_used, tool: Bash, input_match: 'npm test', min: 1}\n"
        "  - {name: like-ref, type: baseline, baseline_file: ref.jsonl, criteria: as good}\n"),
    "evals/plain/resources/data.txt": "hello data\n",
    "evals/plain/ref.jsonl": '{"type":"assistant","text":"hello"}\n',
    "evals/fixtures/not-a-case.txt": "x\n",
}


def test_graders_map_to_checks_and_rubric_and_the_rest_is_named(tmp_path):
    _write(tmp_path, PLUGIN)
    es = read_evalset(tmp_path / "evals")
    cases = {c.id: c for c in es.cases}
    assert sorted(cases) == ["plain", "uses-beta"]
    beta = cases["uses-beta"]
    assert beta.prompt == "Write the beta notes."
    checks = {c.id: c for c in beta.checks}
    # graded with plugin eval's own semantics: the options as written, JavaScript patterns
    assert checks["fired"].type == "plugin_tool_used"
    assert checks["fired"].params == {"tool": "Skill", "input_match": '"skill"\\s*:\\s*"(?:notes:)?beta"'}
    assert checks["fired"].arms == ("with_skill",)  # plugin eval leaves it out of the without-arm
    assert checks["heading"].type == "plugin_regex"
    assert checks["heading"].params == {"pattern": "^# Notes", "flags": "im"}
    assert [(r.id, r.weight) for r in beta.rubric] == [("good", 2.0)]
    plain = cases["plain"]
    assert plain.prompt == "Say hello."
    assert [(c.id, c.type) for c in plain.checks] == [("no-bye", "plugin_regex"),
                                                      ("ran-tests", "plugin_tool_used")]
    assert plain.checks[0].params == {"pattern": "bye", "match": "not_contains"}
    assert plain.checks[1].params == {"tool": "Bash", "input_match": "npm test"}
    assert [(f.rel, f.source.read_text()) for f in plain.fixtures] == [("resources/data.txt", "hello data\n")]
    assert es.unmapped == ()
    # llm and baseline graders: three judge votes each; baseline with its reference transcript.
    assert [(r.id, r.votes, r.focus) for r in beta.rubric] == [("good", 3, "last_message")]
    [ref] = plain.rubric
    assert (ref.id, ref.votes, ref.focus, ref.reference_file) == ("like-ref", 3, "trace", "ref.jsonl")
    assert ref.reference == '{"type":"assistant","text":"hello"}\n'
    problems = [p.format() for p in es.problems]
    assert beta.settings is not None and beta.settings.runs == 2  # the case's own run settings
    # It sets nothing, yet runs under plugin eval's tool grants (FORMAT.md §7.3).
    assert plain.settings == RunSettings(gated=True)
    assert not any("not used" in p for p in problems)


def test_a_missing_baseline_file_is_a_load_error_naming_the_grader(tmp_path):
    _write(tmp_path, {"evals/c/prompt.md": "---\nname: c\n---\nHi\n",
                      "evals/c/graders/like.md":
                          "---\ntype: baseline\nbaseline_file: gone.jsonl\n---\nAs good.\n"})
    es = read_evalset(tmp_path / "evals")
    [err] = [p for p in es.problems if p.is_error]
    assert err.file.endswith("c/graders/like.md") and "'like'" in err.message and "gone.jsonl" in err.message


def test_llm_focus_values_map_and_a_file_focus_must_stay_in_the_workspace(tmp_path):
    graders = {"a": "focus: trace", "b": "focus: files", "c": "focus: mock_calls",
               "d": "focus: {source: file, path: out/r.md}", "e": "focus: {source: file, path: ../x}"}
    _write(tmp_path, {"evals/c/prompt.md": "---\nname: c\n---\nHi\n",
                      **{f"evals/c/graders/{k}.md": f"---\ntype: llm\n{v}\n---\nGood.\n"
                         for k, v in graders.items()}})
    es = read_evalset(tmp_path / "evals")
    [case] = es.cases
    assert [(r.id, r.focus) for r in case.rubric] == [("a", "trace"), ("b", "files"), ("c", "mock_calls"),
                                                      ("d", "file:out/r.md")]
    [err] = [p for p in es.problems if p.is_error]
    assert err.file.endswith("graders/e.md") and "leaves the run's workspace" in err.message


def test_an_unknown_prompt_md_key_is_an_error_naming_the_file(tmp_path):
    _write(tmp_path, {"evals/c/prompt.md": "---\nname: c\nrunz: 2\n---\nHi\n",
                      "evals/c/graders/g.md": "---\ntype: regex\npattern: x\n---\n"})
    es = read_evalset(tmp_path / "evals")
    [err] = [p for p in es.problems if p.is_error]
    assert err.file.endswith("c/prompt.md") and err.line == 3 and "runz" in err.message


def test_the_plugins_skills_are_the_skills_under_test(tmp_path):
    _write(tmp_path, PLUGIN)
    (tmp_path / "suite.yaml").write_text("suite: p\nskills_dir: skills\nskills: ['*']\n"
                                         "adapter: {builtin: demo}\nstore: .store\nresults: results\n")
    project = load_project(tmp_path / "suite.yaml", use_cache=False)
    by_skill = {se.skill.name: [c.id for c in se.cases] for se in project.skills}
    # The case naming beta in its skill-fired grader is beta's; the one naming none, the first skill's.
    assert by_skill == {"alpha": ["plain"], "beta": ["uses-beta"]}
    assert not project.errors


def test_export_writes_native_checks_as_graders_and_names_the_rest(tmp_path, capsys):
    _write(tmp_path, {"skills/s/SKILL.md": "---\nname: s\ndescription: S.\n---\n",
                      "skills/s/evals/files/in.txt": "x\n",
                      "skills/s/evals/evals.json": json.dumps({"evals": [{
                          "id": "one", "prompt": "Do (it).", "files": ["evals/files/in.txt"],
                          "assertions": ["It is polite"],
                          "checks": [{"id": "has", "type": "contains", "value": "a.b (c)"},
                                     {"id": "fast", "type": "max_seconds", "limit": 5}]}]}),
                      "suite.yaml": "suite: s\nskills_dir: skills\nadapter: {builtin: demo}\nstore: .s\n"
                                    "results: results\n"})
    assert main(["export", str(tmp_path / "suite.yaml"), "--format", "plugin-eval", "--out",
                 str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "not written: one/fast: a max_seconds check has no plugin eval grader" in out
    back = read_evalset(tmp_path / "out" / "s" / "evals")
    [case] = back.cases
    assert case.checks[0].type == "plugin_regex" and case.checks[0].params["pattern"] == r"a\.b \(c\)"
    assert [r.text for r in case.rubric] == ["It is polite"]
    assert [f.rel for f in case.fixtures] == ["evals/files/in.txt"]


def test_a_skills_evals_folder_with_a_prompt_md_fixture_is_not_a_plugin_suite(tmp_path):
    _write(tmp_path, {"skills/s/SKILL.md": "---\nname: s\ndescription: S.\n---\n",
                      "skills/s/evals/evals.json": json.dumps({"evals": [{"id": "a", "prompt": "p",
                                                                          "checks": [{"type": "contains",
                                                                                      "value": "x"}]}]}),
                      "skills/s/evals/files/doc/prompt.md": "a fixture that happens to be named prompt.md\n"})
    from skill_eval.model.evalsets import find_evalsets

    assert find_evalsets(tmp_path / "skills" / "s") == [tmp_path / "skills" / "s" / "evals" / "evals.json"]


@pytest.mark.parametrize("target", ["{source: file, path: ../../etc/passwd}",
                                    "{source: file, path: /etc/hosts}"])
def test_a_grader_reading_a_file_outside_the_workspace_is_refused_at_validate(tmp_path, target, capsys):
    _write(tmp_path, {".claude-plugin/plugin.json": '{"name": "p"}',
                      "skills/a/SKILL.md": "---\nname: a\ndescription: A.\n---\nx\n",
                      "evals/c1/prompt.md": "---\nname: c1\n---\nSay hi.\n",
                      "evals/c1/graders/ok.md": "---\ntype: regex\npattern: hi\n---\n",
                      "evals/c1/graders/leak.md": f"---\ntype: regex\npattern: root\ntarget: {target}\n---\n",
                      "suite.yaml": "suite: p\nskills_dir: skills\nskills: ['*']\nadapter: {builtin: demo}\n"
                                    "store: .s\nresults: r\n"})
    assert main(["validate", str(tmp_path / "suite.yaml")]) == 2
    err = capsys.readouterr().err
    [line] = [ln for ln in err.splitlines() if "leak" in ln]
    assert "evals/c1/graders/leak.md:1: " in line and "leaves the run's workspace" in line
    assert "REDACTED" not in err and target.split("path: ")[1].rstrip("}") in line


def _graders(tmp_path: Path, graders: dict[str, str]) -> dict[str, object]:
    files = {".claude-plugin/plugin.json": '{"name": "p"}',
             "skills/s/SKILL.md": "---\nname: s\ndescription: S.\n---\n",
             "evals/c/prompt.md": "Go.\n"}
    files.update({f"evals/c/graders/{name}.md": f"---\n{front}\n---\n" for name, front in graders.items()})
    _write(tmp_path, files)
    es = read_evalset(tmp_path / "evals")
    [case] = es.cases
    return {c.id: c for c in case.checks}


def test_weights_and_the_plugin_fired_indicators_of_section_8_are_carried_on_the_checks(tmp_path):
    checks = _graders(tmp_path, {
        "heavy": "type: regex\npattern: x\nweight: 3",
        "fired": "type: tool_used\ntool: Skill\nweight: 10",
        "wo": "type: regex\npattern: y\narm: with-only",
        "forced": "type: tool_used\ntool: Skill\nmin: 0\nmax: 0\narm: both"})
    assert checks["heavy"].weight == 3.0 and not checks["heavy"].indicator and checks["heavy"].arms is None
    for name in ("fired", "wo"):  # graded in the with-arm only, reported with scored: false
        assert checks[name].indicator and checks[name].arms == ("with_skill",) and not checks[name].required
    assert checks["fired"].weight == 10.0
    assert not checks["forced"].indicator and checks["forced"].arms is None and checks["forced"].required
    assert checks["heavy"].to_json()["weight"] == 3.0 and checks["wo"].to_json()["indicator"] is True


def test_when_every_grader_is_an_indicator_all_are_scored_in_both_arms(tmp_path):
    # The real command grades the with-only grader in the without-arm too, then (tests/data/plugin_scores).
    checks = _graders(tmp_path, {"fired": "type: tool_used\ntool: Skill",
                                 "wo": "type: regex\npattern: y\narm: with-only"})
    assert all(not c.indicator and c.arms is None and c.required for c in checks.values())


@pytest.mark.parametrize("weight", ["0", "-1", "heavy", "true"])
def test_a_weight_that_is_not_a_number_above_0_is_an_error_naming_the_grader(tmp_path, weight):
    _graders(tmp_path, {"g": f"type: regex\npattern: x\nweight: {weight}"})
    es = read_evalset(tmp_path / "evals")
    [err] = [p for p in es.problems if p.is_error]
    assert err.file.endswith("c/graders/g.md") and "weight" in err.message and "above 0" in err.message


def test_a_checks_grade_key_material_is_unchanged_without_weight_or_indicator(tmp_path):
    checks = _graders(tmp_path, {"plain": "type: regex\npattern: x"})
    assert set(checks["plain"].to_json()) == {"id", "type", "required", "case_sensitive", "params"}


def test_export_writes_weights_and_indicators_back_and_they_read_the_same(tmp_path):
    checks = _graders(tmp_path / "in", {"heavy": "type: regex\npattern: x\nweight: 3",
                                        "wo": "type: regex\npattern: y\narm: with-only",
                                        "fired": "type: tool_used\ntool: Skill\n"
                                                 "input_match: '\"skill\"\\s*:\\s*\"s\"'"})
    [case] = read_evalset(tmp_path / "in" / "evals").cases
    export_cases([case], "s", tmp_path / "out" / "evals")
    [again] = read_evalset(tmp_path / "out" / "evals").cases
    assert {c.id: c for c in again.checks} == checks


GRADER = "---\ntype: regex\npattern: x\n---\n"


def _errors(tmp_path: Path) -> list[str]:
    return [p.format() for p in read_evalset(tmp_path / "evals").problems if p.is_error]


@pytest.mark.parametrize("what", ["add_dirs", "baseline_file"])
def test_a_link_out_of_the_case_is_refused_as_native_fixtures_refuse_it(tmp_path, what):
    # issue 54: the linked file reached the agent (add_dirs) or the judge (baseline_file).
    (tmp_path / "secret.txt").write_text("token\n")
    _write(tmp_path, {"evals/c/case.yaml": 'schema_version: "1.1"\nexecution: {prompt: Go.}\n'
                      "context: {add_dirs: [res]}\ngraders:\n  - {name: g, type: regex, pattern: x}\n"
                      "  - {name: ref, type: baseline, baseline_file: ref.jsonl, criteria: same}\n",
                      "evals/c/res/ok.txt": "ok\n", "evals/c/ref.jsonl": "{}\n"})
    linked = tmp_path / "evals/c" / ("res/leak.txt" if what == "add_dirs" else "ref.jsonl")
    linked.unlink(missing_ok=True)
    linked.symlink_to(tmp_path / "secret.txt")
    [err] = _errors(tmp_path)
    assert "c/case.yaml" in err and "outside" in err and str(tmp_path / "secret.txt") in err
    assert ("res/leak.txt" if what == "add_dirs" else "'ref.jsonl'") in err


@pytest.mark.parametrize(("file", "content"), [
    ("prompt.md", b"Go \xff\n"), ("case.yaml", b'schema_version: "1.1"\nexecution: {prompt: "\xfe"}\n'),
    ("graders/g.md", b"---\ntype: regex\npattern: \xff\n---\n")])
def test_a_file_that_is_not_utf8_is_one_error_naming_it(tmp_path, file, content):
    _write(tmp_path, {"evals/c/prompt.md": "Go.\n", "evals/c/graders/g.md": GRADER})
    (tmp_path / "evals/c" / file).write_bytes(content)
    [err] = _errors(tmp_path)
    assert f"evals/c/{file}: is not UTF-8 text (byte 0x" in err and "save it as UTF-8" in err


def test_graders_that_are_not_a_list_or_a_grader_that_is_a_folder_is_one_error(tmp_path):
    _write(tmp_path, {"evals/c/case.yaml": 'schema_version: "1.1"\nexecution: {prompt: Go.}\ngraders: 5\n',
                      "evals/d/prompt.md": "Go.\n", "evals/d/graders/ok.md": GRADER})
    (tmp_path / "evals/d/graders/x.md").mkdir()
    errors = _errors(tmp_path)
    assert any("c/case.yaml:3: graders: must be a list of graders, got int" in e for e in errors), errors
    assert any("d/graders/x.md: is a folder, not a file" in e for e in errors), errors


@pytest.mark.parametrize("bound", ['min: "0"', 'max: "0"', "max: 0.0", "min: -1", "max: 1.5", "max: true"])
def test_a_tool_used_bound_of_the_wrong_type_is_refused_not_defaulted(tmp_path, bound):
    # issue 54: max: "0" became the default, turning "never call Bash" into "call it at least once".
    _write(tmp_path, {"evals/c/prompt.md": "Go.\n",
                      "evals/c/graders/never.md": f"---\ntype: tool_used\ntool: Bash\n{bound}\n---\n"})
    es = read_evalset(tmp_path / "evals")
    [err] = [p.format() for p in es.problems if p.is_error]
    assert "c/graders/never.md:1: grader 'never' (tool_used): " + bound.split(":")[0] in err
    assert "whole number 0 or more" in err and not es.cases[0].checks


@pytest.mark.parametrize("grader", ["type: tool_used\ntool: Bash\ninput_match: [npm, test]",
                                    "type: tool_order\nbefore: {tool: Read, input_match: 5}\nafter: Bash"])
def test_an_input_match_that_is_not_a_string_is_refused_not_dropped(tmp_path, grader):
    _write(tmp_path, {"evals/c/prompt.md": "Go.\n", "evals/c/graders/g.md": f"---\n{grader}\n---\n"})
    [err] = _errors(tmp_path)
    assert "grader 'g'" in err and "input_match: must be a string" in err


def test_a_count_of_thousands_of_digits_is_one_error(tmp_path):
    count = "9" * 5000
    _write(tmp_path, {"evals/c/prompt.md": "Go.\n",
                      "evals/c/graders/g.md": f"---\ntype: regex\npattern: x\nmatch: count:{count}\n---\n"})
    [err] = _errors(tmp_path)
    assert "grader 'g'" in err and "5,000 digits" in err


def test_a_glob_with_many_wildcards_is_flagged_like_a_risky_regex(tmp_path):
    _write(tmp_path, {"evals/c/prompt.md": "Go.\n",
                      "evals/c/graders/ok.md": "---\ntype: file_exists\npath: '**/*.md'\n---\n",
                      "evals/c/graders/slow.md": f"---\ntype: file_exists\npath: '{'*a' * 8}*b'\n---\n"})
    es = read_evalset(tmp_path / "evals")
    [warning] = [p.format() for p in es.problems]
    assert "graders/slow.md" in warning and "9 wildcards" in warning and len(es.cases[0].checks) == 2
