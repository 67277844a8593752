"""Eval-set readers: each dialect from tests/data/test_evalsets/, and each kind of bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skill_eval.cli.subcommands.inspect import format_inspect, inspect_path
from skill_eval.errors import InvalidInput
from skill_eval.model.evalsets import READERS, find_evalsets, load_evalset, read_evalset

DATA = Path(__file__).parent / "data" / "test_evalsets"


def messages(evalset) -> list[str]:
    return [p.format() for p in evalset.problems]


def errors(evalset) -> list[str]:
    return [p.format() for p in evalset.problems if p.is_error]


def warnings(evalset) -> list[str]:
    return [p.format() for p in evalset.problems if not p.is_error]


# --- each dialect -------------------------------------------------------------------------------

def test_native_reads_checks_rubric_and_fixtures():
    root = DATA / "demo-skill"
    es = load_evalset(root / "evals" / "evals.json", root)
    assert es.format == "native" and es.skill_name == "demo-skill" and not es.problems
    first, typed = es.cases
    assert first.id == "1" and first.line == 4
    assert [f.rel for f in first.fixtures] == ["evals/files/input.csv"]
    assert first.fixtures[0].source == (root / "evals/files/input.csv").resolve()
    assert [c.id for c in first.checks] == ["contains-1", "no-error", "contains-2"]
    assert [r.text for r in first.rubric] == ["The summary names both columns"]
    assert typed.id == "typed"
    assert [(c.id, c.type) for c in typed.checks] == [("greets", "contains"), ("no-banned", "not_regex")]
    assert typed.checks[1].params == {"pattern": "Goodbye|Farewell"}
    assert typed.rubric[0].id == "polite" and typed.rubric[0].text == "The greeting is polite"


def test_skill_creator_expectations_become_rubric_without_repeats():
    root = DATA / "creator-skill"
    es = load_evalset(root / "evals" / "evals.json", root)
    assert es.format == "skill_creator"
    assert [len(c.rubric) for c in es.cases] == [2, 1]
    assert all(not c.checks for c in es.cases)


def test_skill_forge_weighted_assertions_and_should_trigger():
    root = DATA / "forge-skill"
    es = load_evalset(root / "evals" / "evals.json", root)
    assert es.format == "skill_forge"
    basic, negative = es.cases
    assert basic.id == "7" and basic.should_trigger is True and negative.should_trigger is False
    assert basic.rubric[0].id == "has-steps" and basic.rubric[0].weight == 2.0
    assert basic.checks[0].type == "regex"


def test_harness_yaml_manifest():
    manifest = DATA / "harness-repo" / "evals" / "shared-benchmark.yaml"
    es = read_evalset(manifest, DATA / "harness-repo")
    assert es.format == "harness" and not errors(es)
    assert [c.id for c in es.cases] == ["pos-basic", "trig-yes", "holdout-private"]
    basic, trig, hidden = es.cases
    assert basic.split == "tune" and basic.expected_output == "Find the problem.\nPropose a fix."
    assert [f.rel for f in basic.fixtures] == ["fixtures/draft.html"]
    types = {c.id: c for c in basic.checks}
    assert types["strict"].case_sensitive is True and types["finds-it"].case_sensitive is False
    assert types["oracle"].type == "script"
    assert types["oracle"].params == {"command": ["python3", "oracles/check.py", "{output_dir}"],
                                      "timeout_seconds": 10, "cwd": "evals", "run_layout": True}
    assert [r.text for r in basic.rubric] == ["Actionable", "Specific"]
    assert not any(r.required for r in basic.rubric)  # judge assertions are soft unless they say so
    # A trigger case asks whether the skill loads for the user's request inside the wrapper.
    assert trig.kind == "trigger" and trig.should_trigger is True and trig.prompt.startswith("audit this")
    assert hidden.prompt.startswith("Summarise") and hidden.split == "holdout"
    text = "\n".join(warnings(es))
    assert "prompt_ref: file 'prompts/not-supplied.txt' not found" in text and "case skipped" in text
    assert "ablation" in text
    assert "trigger case(s) carry answer assertions" in text
    assert basic.line == 7


def test_harness_missing_tune_prompt_ref_is_an_error(tmp_path):
    (tmp_path / "evals").mkdir()
    manifest = tmp_path / "evals" / "shared-benchmark.json"
    manifest.write_text(json.dumps({"skill_name": "x", "harness": {}, "cases": [
        {"id": "a", "split": "tune", "prompt_ref": "prompts/a.txt", "assertions": []}]}))
    es = read_evalset(manifest, tmp_path)
    assert not es.cases
    assert any("prompts/a.txt" in m and "not found" in m for m in errors(es))


@pytest.mark.parametrize("name, count", [("trigger-queries.json", 2), ("trigger-lists.json", 3),
                                         ("trigger-cases.yaml", 2)])
def test_trigger_sets(name, count):
    root = DATA / "triggers-skill"
    es = load_evalset(root / "evals" / name, root)
    assert es.format == "triggers" and len(es.triggers) == count and not es.tasks
    assert all(c.kind == "trigger" and isinstance(c.should_trigger, bool) for c in es.cases)
    assert es.cases[0].should_trigger is True and es.cases[-1].should_trigger is False


def test_required_veto_cases():
    root = DATA / "triggers-skill"
    es = load_evalset(root / "evals" / "cases.json", root)
    assert es.format == "required_veto"
    (case,) = es.cases
    assert [r.id for r in case.rubric] == ["required-confirmed_conflict", "veto-silent_choice"]


def test_forced_format_and_unknown_format():
    root = DATA / "creator-skill"
    assert load_evalset(root / "evals" / "evals.json", root, format="native").format == "native"
    with pytest.raises(InvalidInput) as exc:
        load_evalset(root / "evals" / "evals.json", root, format="natve")
    assert "did you mean 'native'" in str(exc.value)
    assert set(READERS.names()) >= {"native", "skill_creator", "skill_forge", "harness", "triggers"}


def test_find_evalsets_skips_fixtures():
    found = [p.name for p in find_evalsets(DATA / "triggers-skill")]
    assert found == ["cases.json", "trigger-cases.yaml", "trigger-lists.json", "trigger-queries.json"]
    assert [p.name for p in find_evalsets(DATA / "demo-skill")] == ["evals.json"]


def test_find_evalsets_beside_the_skill():
    assert [p.name for p in find_evalsets(DATA / "harness-repo" / "demo")] == ["shared-benchmark.yaml"]


def test_inspect_folder_and_skill_without_evals(tmp_path):
    result = inspect_path(DATA / "triggers-skill")
    assert isinstance(result, list) and {r["format"] for r in result} == {"triggers", "required_veto"}
    assert all(r["readable"] for r in result)
    (tmp_path / "SKILL.md").write_text("---\nname: x\ndescription: y\n---\n")
    assert inspect_path(tmp_path) == []
    assert "no eval sets found" in format_inspect([], str(tmp_path))
    one = inspect_path(DATA / "demo-skill" / "evals" / "evals.json")
    assert one["cases"] == 2 and one["checks"] == 5 and one["rubric"] == 2 and one["readable"]
    assert "native, 2 cases" in format_inspect(one)


# --- bad inputs ---------------------------------------------------------------------------------

def skill(tmp_path: Path, evals: object, name: str = "s") -> tuple[Path, Path]:
    root = tmp_path / name
    (root / "evals").mkdir(parents=True)
    (root / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n")
    path = root / "evals" / "evals.json"
    path.write_text(json.dumps(evals, indent=2) if not isinstance(evals, str) else evals)
    return root, path


def native(*cases: dict, name: str = "s") -> dict:
    return {"skill_name": name, "evals": list(cases)}


def test_invalid_json_names_line_and_column(tmp_path):
    root, path = skill(tmp_path, '{\n  "skill_name": "s",\n  "evals": [\n    {"id": 1,}\n  ]\n}\n')
    with pytest.raises(InvalidInput) as exc:
        load_evalset(path, root)
    (problem,) = exc.value.problems
    assert problem.line == 4 and problem.column is not None and "invalid JSON" in problem.message


def test_not_an_eval_set_is_refused(tmp_path):
    root, path = skill(tmp_path, {"name": "pkg", "dependencies": {}})
    with pytest.raises(InvalidInput) as exc:
        load_evalset(path, root)
    assert "not an eval set" in str(exc.value)
    with pytest.raises(InvalidInput, match="not read"):
        load_evalset(root / "SKILL.md", root)


def test_duplicate_ids_and_missing_prompt(tmp_path):
    root, path = skill(tmp_path, native({"id": 1, "prompt": "a"}, {"id": "1", "prompt": "b"}, {"id": 2}))
    es = read_evalset(path, root)
    text = "\n".join(errors(es))
    assert "duplicate case id '1'" in text and "prompt is required" in text
    with pytest.raises(InvalidInput):
        load_evalset(path, root)


@pytest.mark.parametrize("rel, words", [("../outside.txt", "'..'"), ("/etc/passwd", "absolute path"),
                                        ("nope.txt", "not found")])
def test_fixture_paths_refused(tmp_path, rel, words):
    root, path = skill(tmp_path, native({"id": 1, "prompt": "a", "files": [rel]}))
    (tmp_path / "outside.txt").write_text("x")
    es = read_evalset(path, root)
    (msg,) = errors(es)
    assert words in msg and rel in msg and ":" in msg.split(" ")[0]


def test_symlink_leaving_the_root_is_refused(tmp_path):
    root, path = skill(tmp_path, native({"id": 1, "prompt": "a", "files": ["link.txt"]}))
    (tmp_path / "secret.txt").write_text("x")
    try:
        os.symlink(tmp_path / "secret.txt", root / "link.txt")
    except OSError:
        pytest.skip("symlinks not available here")
    (msg,) = errors(read_evalset(path, root))
    assert "outside" in msg and "link.txt" in msg


def test_bad_regex_and_unknown_check_type(tmp_path):
    root, path = skill(tmp_path, native(
        {"id": 1, "prompt": "a", "checks": [{"type": "regex", "pattern": "(unclosed"},
                                            {"type": "contain", "value": "x"}]},
        {"id": 2, "prompt": "b", "assertions": [{"name": "n", "type": "contans_any", "values": ["x"]}]}))
    text = "\n".join(errors(read_evalset(path, root)))
    assert "'(unclosed'" in text and "does not compile" in text
    assert "did you mean 'contains'" in text
    assert "did you mean 'contains_any'" in text


def test_duplicate_check_ids(tmp_path):
    root, path = skill(tmp_path, native({"id": 1, "prompt": "a", "checks": [
        {"id": "c", "type": "contains", "value": "x"}, {"id": "c", "type": "contains", "value": "y"}]}))
    assert any("duplicate check id 'c'" in m for m in errors(read_evalset(path, root)))


def test_skill_name_mismatch_and_unknown_field_warn(tmp_path):
    root, path = skill(tmp_path, {"skill_name": "other", "evals": [{"id": 1, "prompt": "a", "promt": "x"}]})
    es = read_evalset(path, root)
    text = "\n".join(warnings(es))
    assert "skill_name 'other' does not match the skill folder name 's'" in text
    assert "field 'promt' is not understood" in text and "did you mean 'prompt'" in text
    assert not errors(es)
    assert len(load_evalset(path, root).cases) == 1  # warnings alone do not block


def test_problem_lines_point_at_the_case(tmp_path):
    root, path = skill(tmp_path, native({"id": 1, "prompt": "a"}, {"id": 1, "prompt": "b"}))
    (problem,) = [p for p in read_evalset(path, root).problems if p.is_error]
    assert problem.line == 9  # the second "id" line of the indented JSON


def test_other_shapes_in_the_wild(tmp_path):
    root, path = skill(tmp_path, {"skill_name": "s", "test_cases": [{
        "id": 1, "prompt": "a", "must_have": ["a+"], "must_not_have": ["b"],
        "anti_expectations": ["It apologises"],
        "assertions": [{"name": "any", "type": "content_includes_any", "values": ["x", "y"]}]}]})
    (case,) = load_evalset(path, root).cases
    assert [(c.id, c.type) for c in case.checks] == [("any", "contains_any"), ("must_have-1", "regex"),
                                                     ("must_not_have-1", "not_regex")]
    assert case.rubric[0].text == "The output must NOT satisfy: It apologises"


def test_invalid_yaml_and_missing_file(tmp_path):
    bad = tmp_path / "evals.yaml"
    bad.write_text("evals:\n  - id: 1\n    prompt: [unclosed\n")
    with pytest.raises(InvalidInput) as exc:
        read_evalset(bad, tmp_path)
    assert exc.value.problems[0].line is not None and "YAML" in exc.value.problems[0].message
    result = inspect_path(tmp_path / "missing.json")
    assert result["readable"] is False and "not found" in result["problems"][0]


def test_reading_checks_does_not_revalidate_earlier_cases(tmp_path, monkeypatch):
    # Validation must stay linear in cases (issue 14): each case's checks are validated alone,
    # never inside a document padded with every earlier case.
    from skill_eval.model.evalsets import assertions

    sizes: list[int] = []
    real = assertions.schema_problems

    def spy(name, instance, *args, **kwargs):
        sizes.append(len(instance["evals"]))
        return real(name, instance, *args, **kwargs)

    monkeypatch.setattr(assertions, "schema_problems", spy)
    check = {"type": "contains", "value": "x"}
    cases = [{"id": f"c{i}", "prompt": "p", "checks": [check]} for i in range(50)]
    path = tmp_path / "evals" / "evals.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"evals": cases}))
    evalset = read_evalset(path, tmp_path)
    assert len(evalset.cases) == 50 and not evalset.problems
    assert sizes == [1] * 50


def _contract(name_starts: str) -> list[str]:
    import tomllib

    config = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    return next(c["modules"] for c in config["tool"]["importlinter"]["contracts"]
                if c["name"].startswith(name_starts))


def test_every_registered_reader_is_in_the_independence_contract():
    # import-linter cannot read the registry: a dialect left out of the contract could import
    # another without anything failing, so this holds the two lists together.
    listed = _contract("Eval-set dialect readers")
    for part in READERS:
        parents = [part.module.rsplit(".", n)[0] for n in range(part.module.count(".") - 2)]
        assert any(m in listed for m in parents), \
            f"reader {part.name!r} ({part.module}) is not in pyproject.toml's independence contract"

