"""The plugin the skills belong to, loaded whole in the with-skill arm (model/plugins/layout.py):
which suites have one, what the arm is given of it, and what its edits re-run. Run through a
protocol-v1 command adapter that logs each request and the workspace it got."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from skill_eval.cli.main import main
from skill_eval.errors import InvalidInput
from skill_eval.model.config import load_suite

ADAPTER = r'''import json, os, sys
req = json.loads(sys.stdin.read())
req["listing"] = sorted(os.path.relpath(os.path.join(d, f), ".") for d, _, fs in os.walk(".") for f in fs)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "requests.jsonl"), "a") as f:
    f.write(json.dumps(req) + "\n")
print(json.dumps({"output": "ok", "events": [], "usage": {}}))
'''
PLUGIN = {
    ".claude-plugin/plugin.json": '{"name": "p"}',
    "skills/s/SKILL.md": "---\nname: s\ndescription: S things.\n---\nDo s.\n",
    "commands/go.md": "---\ndescription: Go.\n---\nGo about $ARGUMENTS.\n",
    "agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nHelp.\n",
    "hooks/hooks.json": '{"hooks": {}}',
    "evals/one/prompt.md": "---\nruns: 1\n---\n/p:go now\n",
    "evals/one/graders/g.md": '---\ntype: regex\npattern: "ok"\n---\n',
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    _write(tmp_path / "plug", PLUGIN)
    adapter = f"{{command: [{json.dumps(sys.executable)}, adapter.py]}}"
    _write(tmp_path, {"adapter.py": ADAPTER, "suite.yaml": f"suite: p\nplugin: plug\nadapter: {adapter}\n"
                      "iterations: 1\njobs: 1\nstore: .store\nresults: results\n"})
    return tmp_path


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    return code, out.getvalue()


def _requests(root: Path) -> dict[str, dict[str, Any]]:
    log = root / "requests.jsonl"
    lines = log.read_text().splitlines() if log.is_file() else []
    return {r["mode"]: r for r in map(json.loads, lines)}


def test_the_with_arm_is_given_the_whole_plugin_and_the_without_arm_nothing_of_it(project):
    assert _cli("run", str(project / "suite.yaml"))[0] in (0, 1)
    got = _requests(project)
    with_arm, without = got["with_skill"], got["without_skill"]
    assert with_arm["plugin"] == {"name": "p", "path": "plugins/plug"}
    assert with_arm["skill"] == {"name": "s", "path": "plugins/plug/skills/s"}
    given = {p for p in with_arm["listing"] if p.startswith("plugins/")}
    assert given == {"plugins/plug/.claude-plugin/plugin.json", "plugins/plug/skills/s/SKILL.md",
                     "plugins/plug/commands/go.md", "plugins/plug/agents/helper.md",
                     "plugins/plug/hooks/hooks.json"}  # not the eval folder
    assert "plugin" not in without and without["skill"] is None
    assert not any(p.startswith(("plugins/", "skills/")) for p in without["listing"])


def test_an_edited_command_re_runs_the_with_arm_only_and_status_names_it(project):
    suite = str(project / "suite.yaml")
    _cli("run", suite)
    (project / "requests.jsonl").unlink()
    (project / "plug" / "commands" / "go.md").write_text("---\ndescription: Go.\n---\nGo faster.\n")
    _, said = _cli("status", suite)
    assert "agent:s/one/with_skill/default/1: plugin p: commands/go.md changed" in said
    assert "without_skill" not in said
    _cli("run", suite)
    assert set(_requests(project)) == {"with_skill"}


def test_an_edit_to_the_eval_folder_or_a_new_result_file_leaves_the_plugin_unchanged(project):
    suite = str(project / "suite.yaml")
    _cli("run", suite)
    (project / "requests.jsonl").unlink()
    (project / "plug" / "evals" / "notes.md").write_text("not part of the plugin given to the agent\n")
    _cli("run", suite)
    assert _requests(project) == {}


def _suite(tmp_path: Path, text: str) -> Path:
    _write(tmp_path / "plug", PLUGIN)
    (tmp_path / "suite.yaml").write_text(f"suite: p\nskills_dir: plug/skills\n{text}")
    return tmp_path / "suite.yaml"


def test_claude_code_finds_the_plugin_above_skills_dir_and_plugin_false_keeps_the_skill_alone(tmp_path):
    suite = _suite(tmp_path, "adapter: {builtin: claude-code}\n")
    (tmp_path / "plug" / "skills" / "s" / "evals").mkdir()
    found = load_suite(suite).plugin
    assert found is not None and found.name == "p" and found.root == (tmp_path / "plug").resolve()
    assert found.excluded == ("evals", "skills/s/evals")  # the agent sees no eval of either
    assert load_suite(_suite(tmp_path, "adapter: {builtin: claude-code}\nplugin: false\n")).plugin is None
    # Another adapter keeps the skill alone unless the suite names the plugin.
    assert load_suite(_suite(tmp_path, "adapter: {builtin: demo}\n")).plugin is None


def test_a_skills_folder_that_is_no_plugin_keeps_the_skill_alone(tmp_path):
    _write(tmp_path, {"skills/s/SKILL.md": PLUGIN["skills/s/SKILL.md"],
                      "suite.yaml": "suite: p\nadapter: {builtin: claude-code}\n"})
    assert load_suite(tmp_path / "suite.yaml").plugin is None


@pytest.mark.parametrize(("text", "says"), [
    ("adapter: {builtin: codex}\nplugin: plug\n", "the codex adapter cannot load a Claude Code plugin"),
    ("plugin: nowhere\n", "plugin: folder"),
    ("plugin: plug/commands\n", "is not a Claude Code plugin"),
])
def test_a_plugin_that_cannot_be_loaded_is_one_line_naming_the_fix(tmp_path, text, says):
    with pytest.raises(InvalidInput) as caught:
        load_suite(_suite(tmp_path, text))
    [problem] = caught.value.problems
    assert says in problem.message and "suite.yaml" in problem.format()
