"""Builtin adapter for the OpenAI Codex CLI: ``python -m skill_eval.run.adapters.codex [options]``.

Reads a protocol-v1 request on stdin, runs ``codex exec --json`` in the workspace and answers
``{output, events, usage}`` on stdout.

- with_skill: the skill is copied to ``.agents/skills/<name>/`` (repository scope in current
  Codex) and ``$CODEX_HOME/skills/<name>/`` (the location older Codex versions read); the
  runner's staging copy under ``skills/`` is removed. Codex keeps one skill per name.
- without_skill: ``skills/`` is removed.
- Isolation: HOME and CODEX_HOME point inside the workspace, so the user's own config, skills,
  AGENTS.md and sessions are not used. Authenticate with ``CODEX_API_KEY`` (allow-list it in the
  suite's ``env``); the saved login of ``codex login`` is deliberately not visible.

Stream: the documented ``--json`` JSONL events (``thread.started``, ``turn.started``,
``item.started|updated|completed``, ``turn.completed`` with usage, ``turn.failed``, ``error``);
item types ``agent_message`` (``assistant_message`` and ``item_type`` in early versions),
``command_execution``, ``file_change``, ``mcp_tool_call``, ``web_search``, ``reasoning``,
``todo_list``. The pre-0.44 ``{"id", "msg": {...}}`` shape is read too. Unknown JSON lines are
ignored; a line that is not JSON is an error naming its line number.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_eval.run.adapters._common import (
    agent_version,
    fail,
    one_line,
    options_to_argv,
    read_request,
    run_entry,
    write_json,
)
from skill_eval.run.adapters.agentcli import (
    Collected,
    find_binary,
    isolated_env,
    json_lines,
    last_line,
    model_for,
    number,
    prepare_skill,
    print_version,
    run_cli,
    skills_read_in,
    workspace_of,
)
from skill_eval.run.adapters.judge_prompt import judge_main

MISSING = "codex CLI not found on PATH; install Codex (npm i -g @openai/codex) or set adapter.command"
REPO_SKILLS = ".agents/skills"

# Read by skill_eval.run.adapters.resolve_adapter (see its docstring).
BUILTIN_VERSION = "1"
ENV = ("CODEX_API_KEY",)
OPTION_FLAGS = {
    "model": "--model",
    "sandbox": "--sandbox",
    "args": "--extra-arg",
    "codex_bin": "--codex-bin",
    "timeout": "--timeout",
    "skills_dirs": "--skills-dir",
    "skip_git_repo_check": "!--no-skip-git-repo-check",
}


def build_args(options: dict[str, Any], suite: Any = None) -> list[str]:
    """``adapter.options`` → this adapter's command-line flags."""
    return options_to_argv(options, OPTION_FLAGS, suite, "codex")


def identity_extra(options: dict[str, Any], suite: Any = None) -> dict[str, Any]:
    """The installed Codex CLI version, for the run key."""
    return {"agent_version": agent_version(str(options.get("codex_bin") or "codex"))}


# item type -> tool name reported as a tool_call event (None: not a tool call)
_TOOL_ITEMS = {
    "command_execution": "command_execution",
    "file_change": "file_change",
    "mcp_tool_call": "mcp_tool_call",
    "web_search": "web_search",
}
_MESSAGE_ITEMS = {"agent_message", "assistant_message"}
_USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")


def _command_text(command: Any) -> str:
    if isinstance(command, list):
        return " ".join(str(c) for c in command)
    return command if isinstance(command, str) else ""


class _Stream:
    def __init__(self) -> None:
        self.got = Collected()
        self.seen_items: set[str] = set()
        self.turns_completed = 0
        self.failed: str | None = None
        self.last_error: str | None = None
        self.last_message: str | None = None

    def _add_usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        for key in _USAGE_KEYS:
            value = number(usage.get(key))
            if value is not None:
                self.got.usage[key] = self.got.usage.get(key, 0) + value

    def item(self, item: dict[str, Any], completed: bool) -> None:
        kind = item.get("type") or item.get("item_type")
        item_id = item.get("id")
        if kind in _MESSAGE_ITEMS:
            if completed and isinstance(item.get("text"), str):
                self.last_message = item["text"]
            return
        tool = _TOOL_ITEMS.get(str(kind))
        if tool is None:
            return
        key = str(item_id) if item_id is not None else None
        first_sight = (key is None and completed) or (key is not None and key not in self.seen_items)
        if key is not None:
            self.seen_items.add(key)
        if first_sight:
            if kind == "mcp_tool_call" and item.get("tool"):
                tool = f"mcp:{item.get('server') or '?'}/{item['tool']}"
            self.got.tool_call(tool)
        if kind == "command_execution":
            for name in skills_read_in(_command_text(item.get("command"))):
                self.got.skill_loaded(name)

    def legacy(self, msg: dict[str, Any]) -> None:
        """The pre-0.44 ``{"id": ..., "msg": {"type": ...}}`` event shape."""
        kind = msg.get("type")
        if kind == "agent_message" and isinstance(msg.get("message"), str):
            self.last_message = msg["message"]
        elif kind == "exec_command_begin":
            self.got.tool_call("command_execution")
            for name in skills_read_in(_command_text(msg.get("command"))):
                self.got.skill_loaded(name)
        elif kind == "patch_apply_begin":
            self.got.tool_call("file_change")
        elif kind == "mcp_tool_call_begin":
            self.got.tool_call("mcp_tool_call")
        elif kind == "token_count":
            info = msg.get("info") if isinstance(msg.get("info"), dict) else msg
            total = info.get("total_token_usage") if isinstance(info.get("total_token_usage"), dict) else info
            self.got.usage = {}
            self._add_usage(total)
        elif kind == "task_complete":
            self.turns_completed += 1
            if isinstance(msg.get("last_agent_message"), str):
                self.last_message = msg["last_agent_message"]
        elif kind in ("error", "stream_error") and isinstance(msg.get("message"), str):
            self.last_error = msg["message"]

    def event(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if isinstance(ev.get("model"), str) and not self.got.model:
            self.got.model = ev["model"]
        if kind in ("item.started", "item.updated", "item.completed"):
            if isinstance(ev.get("item"), dict):
                self.item(ev["item"], kind == "item.completed")
        elif kind == "turn.completed":
            self.turns_completed += 1
            self._add_usage(ev.get("usage"))
        elif kind == "turn.failed":
            error = ev.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            self.failed = str(message or "turn failed")
        elif kind == "error":
            self.last_error = str(ev.get("message") or "error")
        elif kind is None and isinstance(ev.get("msg"), dict):
            self.legacy(ev["msg"])


def parse_codex_stream(path: Path) -> _Stream:
    stream = _Stream()
    for _lineno, ev in json_lines(path, "codex"):
        stream.event(ev)
    return stream


def run_codex(args: argparse.Namespace, prompt: str, workspace: Path, env: dict[str, str]) -> Collected:
    exe = find_binary(args.codex_bin, env, MISSING)
    argv = [exe, "exec", "--json"]
    if args.skip_git_repo_check:
        argv.append("--skip-git-repo-check")
    if args.model:
        argv += ["--model", args.model]
    if args.sandbox:
        argv += ["--sandbox", args.sandbox]
    argv += list(args.extra_arg or [])
    argv += ["--", prompt]
    with tempfile.TemporaryDirectory(prefix="skill-eval-codex-") as tmp:
        done = run_cli(argv, workspace, env, args.timeout, Path(tmp))
        if done.timed_out:
            fail(f"codex did not finish within {args.timeout:g} s and was stopped")
        if done.returncode != 0:
            detail = last_line(done.stderr)
            try:
                partial = parse_codex_stream(done.stdout_path)
                detail = partial.failed or partial.last_error or detail
            except Exception:
                pass
            fail(f"codex exited with status {done.returncode}" + (f": {one_line(detail)}" if detail else ""))
        stream = parse_codex_stream(done.stdout_path)
        stderr_tail = last_line(done.stderr)
    if stream.failed is not None:
        fail(f"codex turn failed: {one_line(stream.failed)}")
    if stream.turns_completed == 0:
        if stream.last_error:
            fail(f"codex reported an error: {one_line(stream.last_error)}")
        fail(
            "codex stream ended without turn.completed" + (f" (stderr: {stderr_tail})" if stderr_tail else "")
        )
    got = stream.got
    got.output = stream.last_message or ""
    got.usage["num_turns"] = stream.turns_completed
    if not got.model and args.model:
        got.model = args.model
    return got


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m skill_eval.run.adapters.codex", description=__doc__)
    p.add_argument("--model", help="passed to codex exec --model")
    p.add_argument("--sandbox", help="passed to codex exec --sandbox (read-only, workspace-write, ...)")
    p.add_argument("--extra-arg", action="append", default=[], help="extra codex exec argument (repeatable)")
    p.add_argument("--codex-bin", default="codex", help="codex executable (name on PATH or path)")
    p.add_argument("--timeout", type=float, default=None, help="stop codex after this many seconds")
    p.add_argument(
        "--skills-dir",
        action="append",
        default=None,
        help="where to install the skill, relative to the workspace (repeatable; "
        "default: .agents/skills and $CODEX_HOME/skills)",
    )
    p.add_argument(
        "--no-skip-git-repo-check",
        dest="skip_git_repo_check",
        action="store_false",
        help="do not pass --skip-git-repo-check (the workspace is not a git repository)",
    )
    p.add_argument("--print-version", action="store_true", help="print `codex --version` and exit")
    p.add_argument("--judge", action="store_true", help="serve a judge request instead of a run")
    return p.parse_args(argv)


def codex_env(workspace: Path) -> dict[str, str]:
    env = isolated_env(workspace)
    codex_home = Path(env["HOME"]) / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    env["CODEX_HOME"] = str(codex_home)
    return env


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    if args.print_version:
        return print_version(args.codex_bin, dict(os.environ), MISSING)
    if args.judge:
        workspace = Path.cwd().resolve()
        env = codex_env(workspace)

        def complete(prompt: str, model: str | None) -> tuple[str, dict[str, float]]:
            args.model = model or args.model
            got = run_codex(args, prompt, workspace, env)
            return got.output, got.usage

        return judge_main(complete)
    request = read_request()
    prompt = request.get("prompt")
    if not isinstance(prompt, str):
        fail("request 'prompt' must be a string")
    args.model = model_for(request, args.model)
    workspace = workspace_of(request)
    env = codex_env(workspace)
    dirs = args.skills_dir or [REPO_SKILLS, str(Path(env["CODEX_HOME"]) / "skills")]
    prepare_skill(request, workspace, dirs)
    got = run_codex(args, prompt, workspace, env)
    write_json(got.response())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
