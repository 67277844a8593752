"""A typo'd adapter script is the suite's problem: `validate` and `run` both print one line naming
the suite file, the line and the path as written (never a temporary workspace's path)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skill_eval.cli.main import main
from skill_eval.cli.subcommands.init import init_project

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def typo(tmp_path, monkeypatch) -> Path:
    init_project(tmp_path)
    suite = tmp_path / "skill-eval.yaml"
    suite.write_text(suite.read_text().replace("[python3, adapter.py]", "[python3, adaptr.py]"))
    monkeypatch.chdir(tmp_path)
    return suite


def _line_of(suite: Path, text: str) -> int:
    return next(i for i, line in enumerate(suite.read_text().splitlines(), 1) if text in line)


def test_validate_names_the_suite_file_the_line_and_the_script_as_written(typo, capsys):
    assert main(["validate", "skill-eval.yaml"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"skill-eval.yaml:{_line_of(typo, 'adaptr.py')}:22: adapter.command: script 'adaptr.py' "
                   f"not found (looked for {typo.parent.resolve() / 'adaptr.py'}); fix the path (relative "
                   "paths start from the suite's folder)"]


@pytest.mark.slow
def test_run_says_the_same_once_and_runs_nothing(typo):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "skill_eval.cli.main", "run", "skill-eval.yaml"]
    done = subprocess.run(argv, cwd=typo.parent,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skill-eval.yaml:") and "'adaptr.py'" in lines[0]
    assert "skill-eval-ws-" not in done.stderr + done.stdout


@pytest.mark.parametrize("command", ["[python3, -m, json.tool]", "[python3, -c, 'print(1)']",
                                     "[sh, -c, 'echo {}']", "[python3, adapter.py]"])
def test_modules_code_and_existing_scripts_are_not_refused(typo, command, capsys):
    text = typo.read_text().replace("[python3, adaptr.py]", command)
    typo.write_text(text)
    main(["validate", "skill-eval.yaml"])
    assert "not found" not in capsys.readouterr().err


def test_a_missing_executable_path_is_refused_too(typo, capsys):
    typo.write_text(typo.read_text().replace("[python3, adaptr.py]", "[./bin/agent]"))
    assert main(["validate", "skill-eval.yaml"]) == 2
    assert "adapter.command: './bin/agent' not found" in capsys.readouterr().err
