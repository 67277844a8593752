"""Where an agent CLI is (run/agentcli/locate.py), as the user's shell finds it: on PATH, links
followed, a script's interpreter; and what the sandbox mounts for it, nothing beside it. The
layouts are the installers': Claude Code's native installer (``~/.local/bin/claude`` ->
``~/.local/share/claude/versions/<v>``, one executable) and npm under nvm (a ``bin/`` link into
``lib/node_modules``, run by ``#!/usr/bin/env node`` with nvm's node)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from realcli import Project

from skill_eval.run import sandbox
from skill_eval.run.agentcli.locate import locate, mounts
from skill_eval.run.resolve import resolve_adapter


def native_install(home: Path, version: str, body: str) -> Path:
    """Claude Code as its native installer lays it out under ``home``; the link on PATH."""
    exe = home / ".local" / "share" / "claude" / "versions" / version
    exe.parent.mkdir(parents=True)
    exe.write_text(body)
    exe.chmod(0o755)
    link = home / ".local" / "bin" / "claude"
    link.parent.mkdir(parents=True)
    link.symlink_to(Path("..") / "share" / "claude" / "versions" / version)
    return link


def test_a_native_install_mounts_its_link_and_its_version_file_only(tmp_path):
    home = tmp_path / "home"
    link = native_install(home, "2.1.300", "#!/bin/sh\necho '2.1.300 (Claude Code)'\n")
    (home / ".local" / "share" / "claude" / "secret").write_text("s")
    found = locate("claude", f"{home / '.local' / 'bin'}:/usr/bin:/bin")
    target = home / ".local" / "share" / "claude" / "versions" / "2.1.300"
    assert found.exe == link and found.target == target.resolve() and found.links == (link,)
    assert found.interpreter == Path("/bin/sh")
    assert mounts(found) == [link, target.resolve(), Path("/bin/sh"), Path("/bin/sh").resolve()] or \
        mounts(found)[:2] == [link, target.resolve()]
    needed = set(sandbox.needed_paths([], mounts(found)))
    assert {link, target.resolve()} <= needed
    assert not any(p in needed for p in (home, home / ".local", home / ".local" / "share" / "claude"))


def test_an_nvm_npm_install_mounts_its_tree_and_nvms_node(tmp_path):
    prefix = tmp_path / "home" / ".nvm" / "versions" / "node" / "v22.0.0"
    script = prefix / "lib" / "node_modules" / "@openai" / "codex" / "bin" / "codex.js"
    script.parent.mkdir(parents=True)
    script.write_text("#!/usr/bin/env node\nconsole.log('codex-cli 0.171.0')\n")
    script.chmod(0o755)
    node = prefix / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text("#!/bin/sh\n")
    node.chmod(0o755)
    (prefix / "bin" / "codex").symlink_to(Path("..") / "lib" / "node_modules" / "@openai" / "codex" / "bin"
                                          / "codex.js")
    found = locate("codex", f"{prefix / 'bin'}:/usr/bin:/bin")
    assert found.target == script and found.interpreter == node
    needed = set(sandbox.needed_paths([], mounts(found)))
    assert prefix / "lib" / "node_modules" in needed and node in needed
    assert prefix not in needed and prefix / "bin" not in needed


def test_not_found_says_where_it_looked(tmp_path):
    found = locate("claude", f"{tmp_path}:/nowhere")
    assert found.exe is None and found.looked_in == (str(tmp_path), "/nowhere") and mounts(found) == []
    given = locate(str(tmp_path / "claude"))
    assert given.exe is None and given.looked_in == (str(tmp_path / "claude"),)


def test_a_bash_grant_mounts_the_cli_found_on_path_without_claude_bin(tmp_path, monkeypatch):
    home = tmp_path / "home"
    link = native_install(home, "2.1.300", "#!/bin/sh\necho '2.1.300 (Claude Code)'\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{link.parent}:/usr/bin:/bin")
    project = Project(tmp_path / "p", "  builtin: claude-code\n")
    project.suite.write_text(project.suite.read_text() + "allow_tools: [Bash]\n")
    from skill_eval.model.config import load_suite

    resolved = resolve_adapter(load_suite(project.suite))
    assert resolved.sandbox == "bwrap"
    assert {str(link), str(link.resolve())} <= set(resolved.readable)
    assert str(home) not in resolved.readable


# A native-installer claude that answers a run with whether it could read a planted file.
FAKE_NATIVE = """#!{python}
import json, sys
if sys.argv[1:] == ["--version"]:
    print("2.1.300 (Claude Code)")
    sys.exit(0)
def readable(path):
    try:
        open(path).read()
        return "READ"
    except OSError:
        return "HIDDEN"
seen = {{p: readable(p) for p in {planted!r}}}
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
                   "result": json.dumps(seen), "usage": {{"input_tokens": 5, "output_tokens": 2}},
                   "total_cost_usd": 0.01}}))
"""


@pytest.mark.e2e  # bubblewrap
def test_a_native_install_runs_in_the_sandbox_and_home_stays_hidden(tmp_path, monkeypatch, capsys):
    try:
        sandbox.require()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot run here: {exc}")
    home = tmp_path / "home"
    planted = [home / "secret.txt", home / ".local" / "share" / "claude" / "secret.txt",
               home / ".local" / "bin" / "secret.txt"]
    link = native_install(home, "2.1.300", FAKE_NATIVE.format(python=sys.executable,
                                                             planted=[str(p) for p in planted]))
    for p in planted:
        p.write_text("secret")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{link.parent}:/usr/bin:/bin")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    project = Project(tmp_path / "p", "  builtin: claude-code\n")
    project.suite.write_text(project.suite.read_text() + "allow_tools: [Bash]\n")
    code, out, _ = project.run(capsys)
    assert "CLI not found" not in out and "2 runs executed, 0 errors" in out, out
    runs = project.responses()
    assert len(runs) == 2 and all(m["limits"]["sandbox"]["kind"] == "bwrap" for m, _ in runs)
    for _, resp in runs:
        assert json.loads(resp["output"]) == {str(p): "HIDDEN" for p in planted}
    assert os.access(planted[0], os.R_OK)  # readable outside the sandbox: the sandbox hid it
