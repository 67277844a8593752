"""Extending skill-eval is one module and one registration: toy parts added in a temporary
registry are seen by validate, status, init, the CLI's choices and help, the fast path and the
schema checks (issue 57)."""

from __future__ import annotations

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
