"""The frictions a newcomer met (issue 23), each pinned: plurals, float noise in JSON, where
`report --format html` writes, re-grade reasons naming checks, `status --explain` comparing, and
every --help option documented in README."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from skill_eval.cli.commandline.command import COMMANDS
from skill_eval.cli.main import _parser, command_in, main
from skill_eval.cli.subcommands.init import init_project
from skill_eval.review.comparison.benchmark import _cost_lift

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def proj(tmp_path, monkeypatch) -> Path:
    init_project(tmp_path, skill="notes")
    suite = tmp_path / "skill-eval.yaml"
    suite.write_text(suite.read_text().replace("iterations: 3", "iterations: 1"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _edit_evals(root: Path, edit) -> None:  # noqa: ANN001
    path = root / "skills" / "notes" / "evals" / "evals.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, indent=2))


def test_counts_of_one_are_singular(proj, capsys):
    assert main(["validate"]) == 0
    # The drafted placeholders pass on an echo of their prompts, and the grader audit (issue 21)
    # says so until the user writes real checks: that is the next thing to edit.
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == "Validated 1 skill, 1 eval set, 3 cases; 2 warnings"
    assert all("passes-on-echo" in line for line in lines[:-1])
    _edit_evals(proj, lambda d: d["evals"][0].update(assertions=["It is short"]))
    assert main(["inspect", "skills/notes/evals/evals.json"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "3 cases, 0 trigger queries, 6 checks, 1 rubric item " in head


def test_token_measurements_carry_no_float_noise():
    arms = {"with_skill": {"tokens_per_run": 100.1 - 0.1, "cost_usd_per_run": 0.1 + 0.2},
                "without_skill": {"tokens_per_run": 123.0, "cost_usd_per_run": 0.3}}
    lift = _cost_lift(0.5, arms)
    assert lift["extra_tokens_per_run"] == -23.0  # not -23.000000000000007
    assert lift["extra_cost_usd_per_run"] == 0.0
    assert json.dumps(lift) == '{"extra_tokens_per_run": -23.0, "extra_cost_usd_per_run": 0.0}'


@pytest.mark.slow
def test_report_html_without_out_writes_the_page_and_prints_its_path(proj, capsys):
    assert main(["run", "skill-eval.yaml"]) == 0
    page = proj / "results" / "index.html"
    page.unlink()
    capsys.readouterr()
    assert main(["report", "skill-eval.yaml", "--format", "html"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == "wrote results/index.html" and page.read_text().lower().startswith("<!doctype html")


@pytest.mark.slow
def test_regrade_reasons_name_the_checks_that_changed(proj, capsys):
    assert main(["run", "skill-eval.yaml"]) == 0

    def edit(d) -> None:  # noqa: ANN001
        d["evals"][0]["checks"][0]["value"] = "other words"
        d["evals"][0]["checks"].append({"id": "fresh", "type": "contains", "value": "x"})
        d["evals"][2]["checks"].pop()
    _edit_evals(proj, edit)
    capsys.readouterr()
    assert main(["status", "skill-eval.yaml"]) == 0
    out = capsys.readouterr().out
    assert "re-grade  grade:notes/draft-main-task/with_skill/default/1: check mentions-notes changed; " \
           "check fresh added" in out
    assert "grade:notes/draft-edge-case/without_skill/default/1: check no-frontmatter-leak removed" in out
    assert "checks, rubric or judge changed" not in out


@pytest.mark.slow
def test_status_explain_shows_the_stored_material_beside_the_current(proj, capsys):
    assert main(["run", "skill-eval.yaml"]) == 0
    _edit_evals(proj, lambda d: d["evals"][0].update(prompt="A new prompt."))
    capsys.readouterr()
    task = "agent:notes/draft-main-task/with_skill/default/1"
    assert main(["status", "skill-eval.yaml", "--explain", task]) == 0
    compared = json.loads(capsys.readouterr().out)["compared"]
    assert compared["differs"] == ["prompt"]
    prompt, model = compared["fields"]["prompt"], compared["fields"]["model"]
    assert prompt["differs"] is True and prompt["stored"] != prompt["current"]
    assert model == {"stored": "default", "current": "default", "differs": False}


def _readme_commands() -> dict[str, str]:
    """README's Commands block, as {command: its lines}."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Commands", 1)[1].split("```", 2)[1]
    out: dict[str, str] = {}
    current = "skill-eval"
    for line in block.splitlines():
        found = re.match(r"skill-eval (\w+)", line)
        if found:
            current = found.group(1)
        out[current] = out.get(current, "") + line + "\n"
    return out


def test_every_option_in_help_is_in_the_readme():
    commands = _readme_commands()
    missing = []
    for registered in COMMANDS:  # every command the registry holds, each parser as it is built
        name = registered.name
        parser = _parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        documented = commands.get(name, "")
        assert name in commands, f"skill-eval {name} is not in README's Commands"
        for action in sub.choices[name]._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help") and not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])",
                                                                   documented):
                    missing.append(f"{name} {flag}")
    assert "--version" in (ROOT / "README.md").read_text()
    assert missing == [], f"in --help but not in README's Commands: {missing}"


@pytest.mark.parametrize("argv", [
    ["run"], ["run", "s.yaml", "-j", "3", "--force", "--only", "a/*"], ["status", "--json", "s.yaml"],
    ["validate"], ["validate", "a.yaml", "b.yaml"], ["report", "--format", "html"], ["inspect", "x.json"],
    ["gc", "a.yaml", "--dry-run"], ["export", "s.yaml", "--format", "agentskills"], ["init", "d"],
    ["plan", "--lift", "0.1"], ["compare", "--against", "baseline"], ["bless"], ["doit", "s.yaml", "list"],
    ["--version"], [],
])
def test_a_command_line_parses_as_with_every_command_built(argv):
    """The parser builds only the named command's options; what it reads must not change."""
    assert _parser(command_in(argv)).parse_args(argv) == _parser().parse_args(argv)


def test_each_commands_help_is_the_same_when_only_it_is_built(capsys):
    for name in COMMANDS.names():
        texts = []
        for parser in (_parser(), _parser(command_in([name]))):
            with pytest.raises(SystemExit):
                parser.parse_args([name, "--help"])
            texts.append(capsys.readouterr().out)
        assert texts[0] == texts[1] and "usage: skill-eval " + name in texts[0]
    assert command_in(["-x", "rnu"]) is None and command_in(["--version", "status"]) == "status"
    assert command_in(["-h", "run"]) is None  # the top-level help lists every command
