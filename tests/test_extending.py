"""Extending skill-eval is one module and one registration: a toy part of each kind, added in a
temporary registry, is seen by everything that lists such parts (issue 57)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from skill_eval.cli.main import main

DATA = Path(__file__).parent / "data" / "test_extending"


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
