"""Extending skill-eval is one module and one registration: toy parts added in a temporary
registry are seen by validate, status, init, the CLI's choices and help, the fast path and the
schema checks (issue 57)."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest
from adapterlists import contract_gaps, schema_drift
from suitekit import main_in

from skill_eval.cli.main import main
from skill_eval.engine.fastpath import fingerprint
from skill_eval.model.builtins import ADAPTERS, AdapterDescriptor
from skill_eval.model.builtins.clidesc import AgentCli
from skill_eval.model.config import load_suite

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


@pytest.fixture
def toy_regex_check(monkeypatch):  # noqa: ANN201
    monkeypatch.syspath_prepend(str(DATA / "check"))
    import toy_check

    return toy_check.LINES_MATCHING


def test_a_toy_check_type_s_regex_parameter_is_compiled_and_judged_by_validate(tmp_path, capsys,
                                                                              toy_regex_check):
    from skill_eval.grade.checks import CHECK_TYPES
    from skill_eval.model.evalsets.regexparams import regex_params

    check = {"id": "steps", "type": "lines_matching", "pattern": "(a+)+$", "min": 1}
    suite = _toy_check_suite(tmp_path, [check])
    evals = tmp_path / "skills" / "toy" / "evals" / "evals.json"
    with CHECK_TYPES.temporarily(toy_regex_check):
        # Its schema marks `pattern` as a Python regex: validate warns on a risky one, as for regex.
        assert main(["validate", str(suite)]) == 0
        out = capsys.readouterr().out
        assert ("warning: evals[0].checks[0]: lines_matching pattern '(a+)+$' repeats a group that holds "
                "a repetition") in out
        # ... and refuses one that does not compile, at its place.
        evals.write_text(evals.read_text().replace('"(a+)+$"', '"(("'))
        assert main(["validate", str(suite)]) == 2
        err = capsys.readouterr().err
        assert "evals.json:" in err and "lines_matching pattern '((' does not compile" in err
    assert "lines_matching" not in regex_params()  # gone with the block


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


# ---- a toy builtin adapter ------------------------------------------------------------------
# One module (tests/data/test_extending/adapter/skill_eval_toy.py, a protocol-v1 program that asks
# its agent CLI, the toy-agent script beside it) and one registration: TOY below.

TOY_DIR = Path(__file__).parent / "data" / "test_extending" / "adapter"
TOY = AdapterDescriptor(
    "toy", "skill_eval_toy",
    cli=AgentCli(product="Toy", binary="toy-agent", bin_option="toy_bin", oldest="1.0",
                 install="copy toy-agent onto PATH", upgrade="copy a newer toy-agent",
                 keys=("TOY_API_KEY",)),
    init_block="  builtin: toy                      # `toy-agent` on PATH\n  env: [TOY_API_KEY]")


@pytest.fixture
def toy_project(tmp_path, monkeypatch):
    """A suite on the toy builtin, its CLI copied into the project (so a test may edit it) and
    found on PATH, as a user's agent CLI is: no argument names it, only the descriptor does."""
    monkeypatch.syspath_prepend(str(TOY_DIR))  # resolve imports the program to read its version
    monkeypatch.setenv("TOY_API_KEY", "toy-key")
    root = tmp_path / "proj"
    monkeypatch.setenv("PATH", f"{root}{os.pathsep}{os.environ['PATH']}")
    skill = root / "skills" / "greet"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\nGreet.\n")
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": "greet", "evals": [
        {"id": "hello", "prompt": "Say hello.",
         "checks": [{"id": "arm", "type": "contains", "value": "with_skill"}]}]}))
    shutil.copy2(TOY_DIR / "toy-agent", root / "toy-agent")
    (root / "suite.yaml").write_text(
        "suite: toy\nskills_dir: skills\nadapter:\n  builtin: toy\n  env: [TOY_API_KEY]\n"
        "iterations: 1\ntimeout_seconds: 30\n"
        "store: .skill-eval/store\nresults: results\n")
    return root


def _toy_calls(root: Path) -> int:
    log = root / "calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_a_toy_adapter_is_valid_only_while_registered(toy_project):
    with ADAPTERS.temporarily(TOY):
        code, out, err = main_in(toy_project, "validate", "suite.yaml")
        assert code == 0, out + err
    code, out, err = main_in(toy_project, "validate", "suite.yaml")
    assert code == 2 and "unknown builtin 'toy'" in err


def test_a_toy_adapter_is_what_an_unknown_name_is_closest_to(toy_project):
    suite = toy_project / "suite.yaml"
    suite.write_text(suite.read_text().replace("builtin: toy", "builtin: toi"))
    with ADAPTERS.temporarily(TOY):
        code, out, err = main_in(toy_project, "validate", "suite.yaml")
    assert code == 2 and "unknown builtin 'toi' (did you mean 'toy'?)" in err


def test_a_toy_adapter_cli_is_preflighted_from_its_descriptor(toy_project, monkeypatch):
    monkeypatch.delenv("TOY_API_KEY")
    with ADAPTERS.temporarily(TOY):
        code, out, err = main_in(toy_project, "validate", "suite.yaml")
    assert code == 2 and "no credentials for Toy: TOY_API_KEY is not set" in err


def test_a_toy_adapter_runs_and_its_cli_is_watched_by_the_fast_path(toy_project):
    with ADAPTERS.temporarily(TOY):
        code, out, err = main_in(toy_project, "status", "suite.yaml")
        assert code == 0 and "2 to run" in out, out + err
        code, out, err = main_in(toy_project, "run", "suite.yaml")
        assert code == 0 and _toy_calls(toy_project) == 2, out + err
        assert main_in(toy_project, "run", "suite.yaml")[1].startswith("Up to date")
        agent = toy_project / "toy-agent"  # an upgrade in place, same version
        agent.write_text(agent.read_text() + "# upgraded\n")
        code, out, err = main_in(toy_project, "run", "suite.yaml")
        assert code == 0 and not out.startswith("Up to date"), out  # the fast path looked closer
        assert _toy_calls(toy_project) == 2  # and the keys, which did not change, decided


def test_a_toy_adapter_cli_is_in_the_fingerprint(toy_project):
    agent = toy_project / "toy-agent"
    with ADAPTERS.temporarily(TOY):
        suite = load_suite(toy_project / "suite.yaml")
        before = fingerprint(suite, {}, []).common
        agent.write_text(agent.read_text() + "# upgraded\n")
        assert fingerprint(suite, {}, []).common != before


def test_a_toy_adapter_is_offered_by_init(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["init", "--help"])
    assert "toy" not in capsys.readouterr().out
    with ADAPTERS.temporarily(TOY):
        with pytest.raises(SystemExit):
            main(["init", "--help"])
        assert "openai,toy}" in capsys.readouterr().out
        assert main(["init", str(tmp_path / "p"), "--adapter", "toy"]) == 0
    assert "  builtin: toy " in (tmp_path / "p" / "skill-eval.yaml").read_text()
    with pytest.raises(SystemExit) as exc:
        main(["init", str(tmp_path / "q"), "--adapter", "toy"])
    assert exc.value.code == 2 and "invalid choice: 'toy'" in capsys.readouterr().err


def test_a_toy_adapter_left_out_of_the_schema_or_the_contracts_fails_the_checks():
    assert schema_drift() == [] and contract_gaps() == []
    inside = AdapterDescriptor("toy2", "skill_eval.run.adapters.toy2")
    with ADAPTERS.temporarily(TOY, inside):
        assert "toy, toy2" in schema_drift()[0]
        assert [gap.split(" is not in")[0] for gap in contract_gaps()] == [inside.module] * 2


# ---- a report format ---------------------------------------------------------------------------

@pytest.fixture
def toy_format(monkeypatch):  # noqa: ANN201
    monkeypatch.syspath_prepend(str(DATA / "format"))
    from toy_format import TOY

    return TOY


@pytest.fixture(scope="module")
def ran_suite(tmp_path_factory) -> Path:
    """The one-case demo suite, run once (its results in the store for `report`)."""
    root = tmp_path_factory.mktemp("format") / "suite"
    shutil.copytree(DATA / "format" / "suite", root)
    assert main(["run", str(root / "suite.yaml")]) == 0
    return root


def test_a_toy_report_format_is_offered_by_report_and_writes_its_file(toy_format, ran_suite, capsys):
    from skill_eval.review.render import FORMATS

    suite = str(ran_suite / "suite.yaml")
    capsys.readouterr()
    with FORMATS.temporarily(toy_format):
        with pytest.raises(SystemExit):
            main(["report", "--help"])
        helped = capsys.readouterr().out
        assert "toy" in helped.split("--format {", 1)[1].split("}", 1)[0].split(",")
        assert "toy: one line per skill: its verdict" in " ".join(helped.split())
        assert main(["report", suite, "--format", "toy"]) == 0
        written = ran_suite / "results" / "toy-verdicts.txt"  # to_stdout=False: the results folder
        assert written.read_text() == "tidy (default): pass\n"
        assert capsys.readouterr().out.strip().endswith("toy-verdicts.txt")
    with FORMATS.temporarily(dataclasses.replace(toy_format, to_stdout=True)):
        assert main(["report", suite, "--format", "toy"]) == 0
        assert capsys.readouterr().out == "tidy (default): pass\n"  # its descriptor says stdout
    assert "toy" not in FORMATS


def test_a_toy_report_format_unknown_or_gone_is_refused_with_the_closest_name(toy_format, ran_suite,
                                                                               capsys):
    from skill_eval.review.render import FORMATS

    suite = str(ran_suite / "suite.yaml")
    with FORMATS.temporarily(toy_format):
        with pytest.raises(SystemExit) as refused:
            main(["report", suite, "--format", "tyo"])
        assert refused.value.code == 2
        assert "unknown report format 'tyo' (did you mean 'toy'?)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as gone:
        main(["report", suite, "--format", "toy"])
    assert gone.value.code == 2 and "unknown report format 'toy'" in capsys.readouterr().err


# ---- a command ---------------------------------------------------------------------------------

def test_a_toy_command_is_listed_in_help_and_runs(monkeypatch, capsys):
    from skill_eval.cli.commandline.command import COMMANDS

    monkeypatch.syspath_prepend(str(DATA / "command"))
    from toy_command import TOY

    with COMMANDS.temporarily(TOY):
        with pytest.raises(SystemExit):
            main(["--help"])
        assert "say WORD back (a toy command)" in capsys.readouterr().out
        with pytest.raises(SystemExit):
            main(["echo-word", "--help"])
        assert "--loud" in capsys.readouterr().out
        assert main(["echo-word", "hello", "--loud"]) == 0
        assert capsys.readouterr().out == "HELLO\n"
    with pytest.raises(SystemExit) as gone:
        main(["echo-word", "hello"])
    assert gone.value.code == 2
