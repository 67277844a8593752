"""Extending skill-eval is one module and one registration: toy parts, each added in a temporary
registry, are seen by everything that lists such parts (issue 57)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_eval.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "test_extending"


# --- A toy check type: tests/data/test_extending/check/toy_check.py, one CHECK_TYPES registration


def _toy_check_suite(root: Path, checks: list[dict]) -> Path:
    skill = root / "skills" / "toy"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: toy\ndescription: Answers at length when asked.\n---\n"
                                    "Answer in full sentences.\n")
    cases = [{"id": "c1", "prompt": "Explain the plan.", "checks": checks}]
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": "toy", "evals": cases}, indent=2))
    (root / "responses").mkdir()
    answers = {"with_skill": ["The plan has three careful steps."], "without_skill": ["Plan."]}
    (root / "responses" / "toy.json").write_text(json.dumps({"skill": "toy", "cases": {"c1": answers}}))
    suite = root / "suite.yaml"
    suite.write_text("suite: toy\nskills_dir: skills\nskills: [\"*\"]\nadapter:\n  builtin: demo\n"
                     "models: [default]\niterations: 1\nvariants: [with_skill, without_skill]\n"
                     "store: .store\nresults: results\n")
    return suite


@pytest.fixture
def toy_check(monkeypatch):  # noqa: ANN201
    monkeypatch.syspath_prepend(str(DATA / "check"))
    import toy_check

    return toy_check.WORD_COUNT


def test_a_toy_check_type_validates_grades_and_is_documented(tmp_path, capsys, toy_check):
    from skill_eval.grade.checks import CHECK_TYPES, check_problem
    from skill_eval.intake.schemas_io import load_schema
    from skill_eval.model.cases import Check

    suite = _toy_check_suite(tmp_path, [{"id": "long", "type": "word_count_at_least", "min": 4}])
    assert main(["validate", str(suite)]) == 2  # unknown before it is registered
    assert "'word_count_at_least' is not one of" in capsys.readouterr().err
    with CHECK_TYPES.temporarily(toy_check):
        assert main(["validate", str(suite)]) == 0, capsys.readouterr()
        capsys.readouterr()
        # A run grades with it: the with-skill answer has 6 words, the without-skill one 1.
        main(["run", str(suite)])
        capsys.readouterr()
        folder = tmp_path / "results" / "toy"
        grades = {arm: json.loads(next(folder.rglob(f"{arm}/grading.json")).read_text())
                  for arm in ("with_skill", "without_skill")}
        results = {arm: [c for c in g["checks"] if c["id"] == "long"] for arm, g in grades.items()}
        assert [c["passed"] for c in results["with_skill"]] == [True]
        assert [c["passed"] for c in results["without_skill"]] == [False]
        assert "1 words" in results["without_skill"][0]["evidence"]
        # Its docs entry is generated, from its descriptor's words.
        page = _generator().checks_page()
        assert "## `word_count_at_least`" in page and "at least `min` words" in page
        # The schema the model validates with holds it, and the builtins' part is the file's.
        schema = load_schema("evals")
        assert "word_count_at_least" in schema["$defs"]["check"]["properties"]["type"]["enum"]
        assert schema["$defs"]["word_count_at_least"] == toy_check.schema()
        # Bad parameters are refused at their place, with the line.
        evals = tmp_path / "skills" / "toy" / "evals" / "evals.json"
        evals.write_text(evals.read_text().replace('"min": 4', '"min": "four"'))
        assert main(["validate", str(suite)]) == 2
        err = capsys.readouterr().err
        assert "evals.json:" in err and "evals[0].checks[0].min: must be an integer" in err
        assert check_problem(Check("long", "word_count_at_least", params={"min": 4})) is None
    file_schema = json.loads((ROOT / "schemas" / "evals.schema.json").read_text())
    assert load_schema("evals") == file_schema  # gone with the block: the checked-in file again
    assert "word_count_at_least" not in _generator().checks_page()
    assert check_problem(Check("long", "word_count_at_least")) == "unknown check type 'word_count_at_least'"
    evals.write_text(evals.read_text().replace('"min": "four"', '"min": 4'))
    assert main(["validate", str(suite)]) == 2  # the fast pre-check was compiled again too
    assert "'word_count_at_least' is not one of" in capsys.readouterr().err


def _generator():  # noqa: ANN202
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "docs" / "gen_reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- A toy eval-set reader: tests/data/test_extending/reader/toy_dialect.py, one READERS registration


@pytest.fixture
def toy_reader(monkeypatch):  # noqa: ANN201
    from skill_eval.model.evalsets import Reader

    monkeypatch.syspath_prepend(str(DATA / "reader"))
    return Reader("toy", "toy_dialect", "toy questions")


def _toy_reader_suite(root: Path) -> Path:
    skill = root / "skills" / "toy"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: toy\ndescription: Answers toy questions.\n---\nAnswer.\n")
    questions = [{"ask": "What colour is the sky?", "answer_has": "blue"},
                 {"ask": "Name a fruit.", "answer_has": "apple"}]
    (skill / "evals" / "questions.json").write_text(json.dumps({"skill": "toy", "toy_questions": questions}))
    suite = root / "suite.yaml"
    suite.write_text("suite: toy\nskills_dir: skills\nskills: [\"*\"]\nadapter:\n  builtin: demo\n"
                     "models: [default]\niterations: 1\nstore: .store\nresults: results\n")
    return suite


def test_a_toy_reader_is_detected_inspected_and_read_by_validate_and_status(tmp_path, capsys, toy_reader):
    from skill_eval.model.evalsets import READERS

    suite = _toy_reader_suite(tmp_path)
    questions = tmp_path / "skills" / "toy" / "evals" / "questions.json"
    assert main(["inspect", str(questions)]) == 2  # no reader claims it yet
    capsys.readouterr()
    with READERS.temporarily(toy_reader):
        with pytest.raises(SystemExit):
            main(["inspect", "--help"])
        assert "toy (toy questions)" in " ".join(capsys.readouterr().out.split())
        assert main(["inspect", str(questions)]) == 0
        out = capsys.readouterr().out
        assert "toy" in out and "2 cases" in out
        assert main(["inspect", "--json", "--format", "toy", str(questions)]) == 0
        assert json.loads(capsys.readouterr().out)["format"] == "toy"
        assert main(["validate", str(suite)]) == 0
        assert "Validated 1 skill, 1 eval set, 2 cases" in capsys.readouterr().out
        assert main(["status", str(suite)]) == 0
        out = capsys.readouterr().out
        assert "agent:toy/q2/without_skill/default/1: never run" in out
        assert "toy: 4 runs planned, 4 to run" in out
    assert main(["inspect", "--format", "toy", str(questions)]) == 2
    assert "unknown eval-set format 'toy'" in capsys.readouterr().out
