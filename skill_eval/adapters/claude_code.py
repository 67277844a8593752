"""Builtin adapter for Claude Code: ``python -m skill_eval.adapters.claude_code [options]``.

Reads a protocol-v1 request on stdin, runs ``claude -p --output-format stream-json --verbose``
in the workspace and answers ``{output, events, usage}`` on stdout.

- with_skill: the skill (copied by the runner to ``skills/<name>/``) is moved to
  ``.claude/skills/<name>/``, where Claude Code discovers project skills.
- without_skill: ``skills/`` is removed, so nothing skill-like is left in the workspace.
- Isolation: HOME (and CLAUDE_CONFIG_DIR) point inside the workspace, so the user's own
  ``~/.claude`` skills, settings and memory can neither shadow nor leak into either variant.

This module also holds the plumbing shared with the Codex adapter (workspace preparation,
running a CLI with a deadline, spotting SKILL.md reads).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_eval.adapters._common import (
    agent_version,
    fail,
    one_line,
    options_to_argv,
    read_request,
    run_entry,
    write_json,
)
from skill_eval.adapters.judge_prompt import judge_main

# --------------------------------------------------------------------------- shared plumbing

# A path that names some skill's SKILL.md, e.g. ".claude/skills/pdf/SKILL.md",
# "/ws/.agents/skills/pdf/SKILL.md", "cat 'skills/pdf/SKILL.md'".
_SKILL_MD = re.compile(r"(?:^|[\\/\s'\"=:(])skills[\\/]([A-Za-z0-9._-]+)[\\/]SKILL\.md\b")


def skills_read_in(text: str) -> list[str]:
    """Names of the skills whose SKILL.md is named in ``text`` (a path or a shell command)."""
    return [m.group(1) for m in _SKILL_MD.finditer(text or "")]


@dataclass
class Collected:
    """What a parsed agent stream produced."""

    output: str = ""
    model: str | None = None
    events: list[dict[str, str]] = field(default_factory=list)
    usage: dict[str, float] = field(default_factory=dict)
    _skills: set[str] = field(default_factory=set)

    def tool_call(self, name: str) -> None:
        self.events.append({"type": "tool_call", "name": str(name)})

    def skill_loaded(self, name: str) -> None:
        if name and name not in self._skills:
            self._skills.add(name)
            self.events.append({"type": "skill_loaded", "name": name})

    def response(self) -> dict[str, Any]:
        events = ([{"type": "model", "name": self.model}] if self.model else []) + self.events
        usage = {
            k: v for k, v in self.usage.items() if isinstance(v, int | float) and not isinstance(v, bool)
        }
        return {"output": self.output, "events": events, "usage": usage}


def workspace_of(request: dict[str, Any]) -> Path:
    ws = request.get("workspace")
    path = Path(ws) if isinstance(ws, str) and ws else Path.cwd()
    if not path.is_dir():
        fail(f"workspace {path} is not a directory")
    return path.resolve()


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
        return True
    except ValueError:
        return False


def prepare_skill(request: dict[str, Any], workspace: Path, install_dirs: Sequence[str]) -> str | None:
    """Install the request's skill where the agent discovers it; clean up in without_skill mode.

    ``install_dirs`` are workspace-relative (or absolute) folders; the skill is copied into
    ``<dir>/<name>/`` for each, and the runner's copy under ``skills/`` is removed so the agent
    sees the skill only where it would in real use. Returns the skill name (or None).
    """
    mode = request.get("mode")
    if mode not in ("with_skill", "without_skill"):
        fail(f"request 'mode' must be with_skill or without_skill, not {mode!r}")
    staged = workspace / "skills"
    skill = request.get("skill")
    if mode == "without_skill" or not skill:
        if mode == "with_skill":
            fail("with_skill request has no 'skill'")
        if staged.is_dir() and not staged.is_symlink():
            shutil.rmtree(staged)
        return None
    if not isinstance(skill, dict) or not isinstance(skill.get("name"), str) or not skill["name"]:
        fail("request 'skill' must be an object with 'name' and 'path'")
    name = skill["name"]
    if "/" in name or "\\" in name or name in (".", ".."):
        fail(f"skill name {name!r} is not a plain folder name")
    src = (workspace / str(skill.get("path") or f"skills/{name}")).resolve()
    if not _inside(src, workspace):
        fail(f"skill path {skill.get('path')!r} is outside the workspace")
    if not (src / "SKILL.md").is_file():
        fail(f"skill folder {skill.get('path')!r} has no SKILL.md")
    for d in install_dirs:
        dest = Path(d) if os.path.isabs(d) else workspace / d
        dest = dest / name
        if dest.resolve() == src:
            continue
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(src, dest, symlinks=True)
    if _inside(src, staged.resolve()) and staged.is_dir():
        shutil.rmtree(staged)
    return name


def isolated_env(workspace: Path) -> dict[str, str]:
    """The child's environment: ours, with HOME forced inside the workspace."""
    env = dict(os.environ)
    home = env.get("HOME")
    if not home or not _inside(Path(home), workspace):
        home = str(workspace / "home")
    Path(home).mkdir(parents=True, exist_ok=True)
    env["HOME"] = home
    return env


def find_binary(binary: str, env: dict[str, str], missing_message: str) -> str:
    if os.sep in binary or (os.altsep and os.altsep in binary):
        if os.path.isfile(binary) and os.access(binary, os.X_OK):
            return binary
        fail(f"{missing_message} ({binary} is not an executable file)")
    found = shutil.which(binary, path=env.get("PATH", os.defpath))
    if not found:
        fail(missing_message)
    return found


@dataclass
class Finished:
    returncode: int
    stdout_path: Path
    stderr: str
    timed_out: bool


def _kill_tree(proc: subprocess.Popen[bytes], own_group: bool) -> None:
    """Stop the agent and whatever it started.

    When we lead our own process group (the runner starts adapters that way), the agent shares
    it, so that the runner's group kill also reaches the agent; here we signal the group while
    ignoring the signal ourselves. Otherwise the agent has its own session and we kill that.
    """
    try:
        if own_group:
            previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
            try:
                os.killpg(os.getpgid(0), signal.SIGTERM)
            finally:
                signal.signal(signal.SIGTERM, previous)
        else:
            os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass
    try:
        if not own_group:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def run_cli(
    argv: Sequence[str], cwd: Path, env: dict[str, str], timeout: float | None, tmp: Path
) -> Finished:
    """Run ``argv`` with stdout/stderr in files under ``tmp`` (not memory), within ``timeout``.

    stdin is /dev/null: both CLIs would otherwise add piped stdin to the prompt as context.
    """
    out_path, err_path = tmp / "stdout", tmp / "stderr"
    own_group = os.name == "posix" and os.getpgid(0) == os.getpid()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=not own_group and os.name == "posix",
            )
        except OSError as exc:
            fail(f"could not start {argv[0]}: {exc}")
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_tree(proc, own_group)
        except BaseException:
            _kill_tree(proc, own_group)
            raise
    stderr = err_path.read_bytes()[-65536:].decode("utf-8", "replace")
    return Finished(proc.returncode, out_path, stderr, timed_out)


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return one_line(lines[-1]) if lines else ""


def json_lines(path: Path, agent: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each JSON-object line; a line that is not JSON fails."""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                fail(f"{agent} stream line {lineno} is not valid JSON ({exc.msg}): {one_line(line, 120)!r}")
            if isinstance(obj, dict):  # other JSON values carry no event: skip them
                yield lineno, obj


def number(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def model_for(request: dict[str, Any], option: str | None) -> str | None:
    """The suite's model for this run wins; "default" (or none) falls back to the option."""
    model = request.get("model")
    if isinstance(model, str) and model.strip() and model.strip() != "default":
        return model.strip()
    return option or None


def print_version(binary: str, env: dict[str, str], missing: str) -> int:
    exe = find_binary(binary, env, missing)
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        fail(f"{binary} --version failed: {exc}")
    if done.returncode != 0:
        fail(f"{binary} --version exited with status {done.returncode}: {last_line(done.stderr)}")
    print(done.stdout.strip())
    return 0


# --------------------------------------------------------------------------- Claude Code

MISSING = "claude CLI not found on PATH; install Claude Code or set adapter.command"
INSTALL_DIR = ".claude/skills"

# Read by skill_eval.adapters.resolve_adapter (see its docstring).
BUILTIN_VERSION = "1"
ENV = ("ANTHROPIC_API_KEY",)
OPTION_FLAGS = {
    "model": "--model",
    "permission_mode": "--permission-mode",
    "args": "--extra-arg",
    "claude_bin": "--claude-bin",
    "timeout": "--timeout",
}


def build_args(options: dict[str, Any], suite: Any = None) -> list[str]:
    """``adapter.options`` → this adapter's command-line flags."""
    return options_to_argv(options, OPTION_FLAGS, suite, "claude-code")


def identity_extra(options: dict[str, Any], suite: Any = None) -> dict[str, Any]:
    """The installed Claude Code version, for the run key."""
    return {"agent_version": agent_version(str(options.get("claude_bin") or "claude"))}


_READ_TOOLS = {"Read", "View", "NotebookRead", "Bash"}


def _skill_from_input(data: Any) -> str | None:
    if not isinstance(data, dict):
        return None
    for key in ("skill", "command", "name"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            # "/pdf", "plugin:pdf" -> "pdf"
            return value.strip().lstrip("/").split(":")[-1].split()[0]
    return None


def parse_claude_stream(path: Path) -> tuple[Collected, dict[str, Any] | None]:
    got = Collected()
    result: dict[str, Any] | None = None
    for _lineno, ev in json_lines(path, "claude"):
        kind = ev.get("type")
        if kind == "system" and ev.get("subtype") == "init":
            if isinstance(ev.get("model"), str):
                got.model = ev["model"]
        elif kind == "assistant":
            message = ev.get("message") if isinstance(ev.get("message"), dict) else {}
            if got.model is None and isinstance(message.get("model"), str):
                got.model = message["model"]
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict) or block.get("type") != "tool_use":
                    continue
                tool = str(block.get("name") or "unknown")
                data = block.get("input")
                if tool == "Skill":
                    name = _skill_from_input(data)
                    if name:
                        got.skill_loaded(name)
                    else:
                        got.tool_call(tool)
                    continue
                got.tool_call(tool)
                if tool in _READ_TOOLS and isinstance(data, dict):
                    for key in ("file_path", "path", "notebook_path", "command"):
                        if isinstance(data.get(key), str):
                            for name in skills_read_in(data[key]):
                                got.skill_loaded(name)
        elif kind == "result":
            result = ev
    return got, result


def _usage_from_result(result: dict[str, Any]) -> dict[str, float]:
    usage: dict[str, float] = {}
    raw = result.get("usage") if isinstance(result.get("usage"), dict) else {}
    for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
        value = number(raw.get(key))
        if value is not None:
            usage[key] = value
    cost = number(result.get("total_cost_usd"))
    if cost is None:
        cost = number(result.get("cost_usd"))
    if cost is not None:
        usage["cost_usd"] = cost
    turns = number(result.get("num_turns"))
    if turns is not None:
        usage["num_turns"] = turns
    return usage


def run_claude(args: argparse.Namespace, prompt: str, workspace: Path, env: dict[str, str]) -> Collected:
    exe = find_binary(args.claude_bin, env, MISSING)
    argv = [exe, "-p", "--output-format", "stream-json", "--verbose"]
    if args.model:
        argv += ["--model", args.model]
    if args.permission_mode:
        argv += ["--permission-mode", args.permission_mode]
    argv += list(args.extra_arg or [])
    # "--" ends the options, so neither a prompt starting with "-" nor a variadic extra flag
    # (e.g. --allowedTools A B) can swallow or misread the prompt.
    argv += ["--", prompt]
    with tempfile.TemporaryDirectory(prefix="skill-eval-claude-") as tmp:
        done = run_cli(argv, workspace, env, args.timeout, Path(tmp))
        if done.timed_out:
            fail(f"claude did not finish within {args.timeout:g} s and was stopped")
        if done.returncode != 0:
            detail = last_line(done.stderr)
            try:
                _, result = parse_claude_stream(done.stdout_path)
            except Exception:
                result = None
            if result and isinstance(result.get("result"), str) and result.get("is_error"):
                detail = one_line(result["result"])
            fail(f"claude exited with status {done.returncode}" + (f": {detail}" if detail else ""))
        got, result = parse_claude_stream(done.stdout_path)
        if result is None:
            detail = last_line(done.stderr)
            fail("claude stream ended without a result event" + (f" (stderr: {detail})" if detail else ""))
    subtype = str(result.get("subtype") or "")
    text = result.get("result")
    if result.get("is_error") or subtype.startswith("error"):
        detail = one_line(text) if isinstance(text, str) and text else "no result text"
        fail(f"claude reported an error ({subtype or 'is_error'}): {detail}")
    got.output = text if isinstance(text, str) else ""
    got.usage = _usage_from_result(result)
    return got


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m skill_eval.adapters.claude_code", description=__doc__)
    p.add_argument("--model", help="model alias or name passed to claude --model")
    p.add_argument("--permission-mode", help="passed to claude --permission-mode (e.g. acceptEdits)")
    p.add_argument("--extra-arg", action="append", default=[], help="extra claude argument (repeatable)")
    p.add_argument("--claude-bin", default="claude", help="claude executable (name on PATH or path)")
    p.add_argument("--timeout", type=float, default=None, help="stop claude after this many seconds")
    p.add_argument("--print-version", action="store_true", help="print `claude --version` and exit")
    p.add_argument("--judge", action="store_true", help="serve a judge request instead of a run")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    if args.print_version:
        return print_version(args.claude_bin, dict(os.environ), MISSING)
    if args.judge:
        workspace = Path.cwd().resolve()
        env = isolated_env(workspace)
        env["CLAUDE_CONFIG_DIR"] = str(Path(env["HOME"]) / ".claude")

        def complete(prompt: str, model: str | None) -> tuple[str, dict[str, float]]:
            args.model = model or args.model
            got = run_claude(args, prompt, workspace, env)
            return got.output, got.usage

        return judge_main(complete)
    request = read_request()
    prompt = request.get("prompt")
    if not isinstance(prompt, str):
        fail("request 'prompt' must be a string")
    args.model = model_for(request, args.model)
    workspace = workspace_of(request)
    prepare_skill(request, workspace, [INSTALL_DIR])
    env = isolated_env(workspace)
    env["CLAUDE_CONFIG_DIR"] = str(Path(env["HOME"]) / ".claude")
    got = run_claude(args, prompt, workspace, env)
    write_json(got.response())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
