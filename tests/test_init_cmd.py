"""`skill-eval init`: an empty folder becomes a suite that validates and runs offline at once,
and a second init changes nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from suitekit import main_in

from skill_eval.cli.main import main
from skill_eval.cli.subcommands.init import init_project
from skill_eval.model.evaldraft import MARK, draft_evals


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``skill-eval ARGS`` in-process from ``cwd`` (as a user in that folder would type it)."""
    code, out, err = main_in(cwd, *args)
    return subprocess.CompletedProcess(["skill-eval", *args], code, out, err)


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_init_validate_run_work_offline_first_try_in_an_empty_folder(tmp_path):
    empty = tmp_path / "my-project"
    empty.mkdir()
    init = _cli(empty, "init")
    assert init.returncode == 0, init.stderr
    assert "wrote: skill-eval.yaml" in init.stdout and "next:" in init.stdout
    validate = _cli(empty, "validate")  # no SUITE: the file init wrote is the default
    assert validate.returncode == 0, validate.stderr
    assert "1 eval set, 3 cases" in validate.stdout or "3 cases" in validate.stdout
    run = _cli(empty, "run", "skill-eval.yaml")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 errors" in run.stdout and "[default]: pass (" in run.stdout


def test_a_second_init_changes_nothing(tmp_path, capsys):
    assert main(["init", str(tmp_path)]) == 0
    before = _snapshot(tmp_path)
    capsys.readouterr()
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert _snapshot(tmp_path) == before
    assert "wrote:" not in out and "nothing to write" in out


def test_init_never_overwrites_a_file_the_user_has(tmp_path):
    (tmp_path / "adapter.py").write_text("# mine\n")
    done = init_project(tmp_path)
    assert (tmp_path / "adapter.py").read_text() == "# mine\n"
    assert [d.written for d in done if d.path.name == "adapter.py"] == [False]


def test_an_existing_skill_is_used_and_its_evals_are_drafted_from_its_skill_md(tmp_path):
    skill = tmp_path / "skills" / "commit-message"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: commit-message\ndescription: Writes Conventional Commits messages from a diff.\n---\n"
        "# Commit messages\n\n## Summary line\n\nImperative mood.\n\n## Breaking changes\n\nA footer.\n")
    before = (skill / "SKILL.md").read_bytes()
    init_project(tmp_path)
    assert (skill / "SKILL.md").read_bytes() == before
    drafted = json.loads((skill / "evals" / "evals.json").read_text())
    assert len(drafted["evals"]) == 3
    values = [c.get("value", c.get("pattern")) for case in drafted["evals"] for c in case["checks"]]
    assert "writes" not in values and "conventional" in values  # a word of the description, not a stop word
    assert "Summary line" in values and "Breaking changes" in values  # from its headings
    assert all(MARK in case["description"] for case in drafted["evals"])
    assert "skills: [\"commit-message\"]" in (tmp_path / "skill-eval.yaml").read_text()
    # Drafted checks pass on an echo of the drafted prompt: validate names them as drafts, one
    # line each, rather than lecturing on them as finished cases.
    from skill_eval.cli.commands import grader_audits
    from skill_eval.model.project import load_project

    warnings = [p.message for p in grader_audits(load_project(tmp_path / "skill-eval.yaml"))]
    assert warnings and all("is still the draft `skill-eval init` wrote" in w for w in warnings), warnings


def test_existing_evals_are_kept_as_they_are(tmp_path):
    evals = tmp_path / "skills" / "s" / "evals"
    evals.mkdir(parents=True)
    (evals.parent / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    (evals / "evals.json").write_text('{"evals": []}')
    init_project(tmp_path)
    assert (evals / "evals.json").read_text() == '{"evals": []}'
    assert not (evals / "files").exists()


_CLIS = {"claude-code": ("claude", "2.1.299 (Claude Code)", "ANTHROPIC_API_KEY"),
         "codex": ("codex", "codex-cli 0.171.0", "CODEX_API_KEY")}


@pytest.mark.parametrize("adapter", ["claude-code", "codex", "openai"])
def test_a_builtin_adapter_gets_a_suite_and_no_script(tmp_path, adapter, monkeypatch, capsys):
    # validate's preflight asks the agent CLI on PATH for its version and looks for the key the
    # suite passes: with both the drafted suite validates; without the CLI it is one line.
    bin_dir = tmp_path / "bin"
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    assert main(["init", str(tmp_path / "p"), "--adapter", adapter, "--skill", "notes"]) == 0
    suite = (tmp_path / "p" / "skill-eval.yaml").read_text()
    assert f"builtin: {adapter}" in suite and not (tmp_path / "p" / "adapter.py").exists()
    if adapter in _CLIS:
        name, version, key = _CLIS[adapter]
        monkeypatch.setenv(key, "sk-test-not-a-real-key")
        capsys.readouterr()
        assert main(["validate", str(tmp_path / "p" / "skill-eval.yaml")]) == 2
        assert name in capsys.readouterr().err
        bin_dir.mkdir()
        exe = bin_dir / name
        exe.write_text(f"#!/bin/sh\necho '{version}'\n")
        exe.chmod(0o755)
    assert main(["validate", str(tmp_path / "p" / "skill-eval.yaml")]) == 0


def test_a_bad_skill_name_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["init", str(tmp_path), "--skill", "My Skill"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "my-skill" in err[0]
    assert not any(tmp_path.iterdir())


def test_the_draft_of_a_skill_md_without_frontmatter_still_has_three_cases():
    drafted = draft_evals("x", "no frontmatter here\n")
    ids = [c["id"] for c in drafted["evals"]]
    assert ids == ["draft-main-task", "draft-with-input-file", "draft-edge-case"]
