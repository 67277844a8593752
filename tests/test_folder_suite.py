"""A Claude Code plugin's folder given where a suite file is expected (model/plugins/folder_suite.py):
run with ``claude plugin eval``'s defaults, or by the plugin's own skill-eval.yaml; ``init`` in a
plugin writes that file; ``env_preset: plugin-eval`` passes what plugin eval passes."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from skill_eval.cli.main import main
from skill_eval.errors import InvalidInput
from skill_eval.model.config import load_suite
from skill_eval.model.plugins.environment import preset_names
from skill_eval.store.redact import secret_env_names

PLUGIN = {
    ".claude-plugin/plugin.json": '{"name": "dojo"}',
    "skills/coach/SKILL.md": "---\nname: coach\ndescription: Coaching.\n---\nCoach.\n",
    "commands/coach.md": "Coach about $ARGUMENTS.\n",
    "evals/first/prompt.md": "---\nruns: 2\n---\n/dojo:coach my essay\n",
    "evals/first/graders/g.md": '---\ntype: regex\npattern: "ok"\n---\n',
}


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    for rel, text in PLUGIN.items():
        (tmp_path / "dojo" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "dojo" / rel).write_text(text)
    return tmp_path / "dojo"


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("given", [".", "evals"])
def test_a_plugin_folder_or_its_eval_folder_is_a_suite_with_plugin_evals_defaults(plugin, given):
    suite = load_suite(plugin / given)
    assert suite.name == "dojo" and suite.path == plugin.resolve() / "skill-eval.yaml"
    assert suite.plugin is not None and suite.plugin.root == plugin.resolve()
    assert suite.skills_dir == plugin.resolve() / "skills"
    assert suite.adapter.builtin == "claude-code" and suite.adapter.env_preset == "plugin-eval"
    assert suite.arms == ("with_skill", "without_skill") and suite.iterations == 3
    assert suite.judge is not None and suite.judge.model == "haiku"
    assert suite.store == plugin.resolve() / ".skill-eval" / "store"
    assert suite.results == plugin.resolve() / "evals" / "results" / "skill-eval"
    # Neither is given to the agent (the results are in the eval folder, left out already), nor
    # the suite file or its blessed baseline: writing them re-runs nothing.
    assert ".skill-eval/store" in suite.plugin.excluded
    assert {"skill-eval.yaml", "skill-eval.baseline.json"} <= set(suite.plugin.excluded_files)


def test_validate_and_status_take_the_folder(plugin, tmp_path, monkeypatch):
    # validate's preflight runs `claude --version` and looks for credentials passed to it.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "claude").write_text("#!/bin/sh\necho '2.1.337 (Claude Code)'\n")
    (tmp_path / "bin" / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-fake")
    code, out, err = _cli("validate", str(plugin))
    assert code == 0, err
    assert "1 skill, 1 eval set, 1 case" in out
    code, out, err = _cli("status", str(plugin))
    assert code == 0, err
    assert "dojo: 4 runs planned" in out  # the case's own runs: 2, in both arms


def test_a_folder_that_is_no_plugin_says_what_to_give(tmp_path):
    with pytest.raises(InvalidInput) as caught:
        load_suite(tmp_path)
    assert "is a folder; give the suite's YAML file" in caught.value.problems[0].message
    assert "Claude Code plugin's folder" in caught.value.problems[0].message


def test_init_in_a_plugin_writes_its_suite_and_no_placeholder_skill(plugin):
    before = sorted(p.relative_to(plugin) for p in plugin.rglob("*"))
    code, out, _ = _cli("init", str(plugin))
    assert code == 0 and "wrote" in out and f"skill-eval run {plugin}" in out
    after = sorted(p.relative_to(plugin) for p in plugin.rglob("*"))
    assert sorted(set(after) - set(before)) == [Path("skill-eval.yaml")]
    written = load_suite(plugin / "skill-eval.yaml")
    (plugin / "skill-eval.yaml").rename(plugin / "kept.yaml")
    default = load_suite(plugin)  # no suite file: the same suite
    fields = ("name", "skills_dir", "skills", "adapter", "judge", "arms", "iterations",
              "timeout_seconds", "store", "results")
    assert all(getattr(written, f) == getattr(default, f) for f in fields)
    assert written.plugin is not None and "skill-eval.yaml" in written.plugin.excluded_files


def test_the_plugins_own_suite_file_wins_over_the_defaults(plugin):
    own = "suite: mine\nplugin: .\nadapter: {builtin: demo}\niterations: 1\n"
    (plugin / "skill-eval.yaml").write_text(own)
    suite = load_suite(plugin)
    assert suite.name == "mine" and suite.adapter.builtin == "demo" and suite.iterations == 1


def test_the_plugin_eval_preset_passes_provider_and_eval_variables_only():
    environ = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "u", "CLAUDE_CODE_USE_BEDROCK": "1",
               "AWS_REGION": "r", "EVAL_X": "x", "HTTPS_PROXY": "p", "HOME": "/h", "GITHUB_TOKEN": "t",
               "CLAUDE_CONFIG_DIR": "c"}
    names = preset_names("plugin-eval", environ)
    assert names == ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "AWS_REGION", "CLAUDE_CODE_USE_BEDROCK",
                     "EVAL_X", "HTTPS_PROXY")
    assert preset_names(None, environ) == ()
    # Passed by name, never allow-listed as secrets: only the names that mark one are redacted.
    assert secret_env_names((), names) == ["ANTHROPIC_API_KEY"]
