"""Builtin adapter for Claude Code: ``python -m skill_eval.run.adapters.claude_code [options]``.

Reads a protocol-v1 request on stdin, runs ``claude -p --output-format stream-json --verbose``
in the workspace and answers ``{output, events, usage}`` on stdout.

- with_skill: the skill (copied by the runner to ``skills/<name>/``) is moved to
  ``.claude/skills/<name>/``, where Claude Code discovers project skills; a skill that belongs to
  a plugin (the request's ``plugin``) comes with the whole plugin, loaded with ``--plugin-dir``.
- without_skill: ``skills/`` is removed, so nothing skill-like is left in the workspace.
- Isolation: HOME (and CLAUDE_CONFIG_DIR) point inside the workspace, so the user's own
  ``~/.claude`` skills, settings and memory can neither shadow nor leak into either arm.

This module also holds the plumbing shared with the Codex adapter (workspace preparation,
running a CLI with a deadline, spotting SKILL.md reads).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.claude_flags import mcp_args, plugin_args, settings_args
from skill_eval.run.adapters.claude_stream import StreamRead, parse_claude_stream, write_session
from skill_eval.run.adapters.shared import bundled_skills
from skill_eval.run.adapters.shared.agentcli import (
    Collected,
    Finished,
    find_binary,
    isolated_env,
    last_line,
    model_for,
    number,
    prepare_skill,
    print_version,
    remove_installed,
    run_cli,
    workspace_of,
)
from skill_eval.run.adapters.shared.failure_causes import (
    CLAUDE_CONNECT_RETRIES,
    CLAUDE_DEFAULT_URL,
    NO_MODEL_REQUEST,
    ClaudeWatch,
    explain,
)
from skill_eval.run.adapters.shared.judge_prompt import JUDGE_SYSTEM, flatten, judge_main
from skill_eval.run.adapters.shared.protocol_io import (
    agent_version,
    fail,
    one_line,
    options_to_argv,
    read_request,
    run_entry,
    write_json,
)
from skill_eval.run.adapters.shared.trajectory import claude_stop

# --------------------------------------------------------------------------- Claude Code

MISSING = "claude CLI not found on PATH; install Claude Code or set adapter.command"
INSTALL_DIR = ".claude/skills"

# Read by skill_eval.run.adapters.resolve_adapter (see its docstring).
# 2: tokens as billed (the sum over result.modelUsage), split per model; a refused Skill call
# is no load. 3: every tool call with its whole input (input_json, subagent), the session kept
# (plugin eval's target: trace), the skill copy taken out after the run (target: files).
BUILTIN_VERSION = "3"
# CLAUDE_CODE_MAX_RETRIES: Claude Code retries every API error (a bad key too) ~10 times
# over ~3 minutes; a suite can lower that without listing it in its own env.
ENV = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_MAX_RETRIES")
OPTION_FLAGS = {
    "model": "--model",
    "permission_mode": "--permission-mode",
    "args": "--extra-arg",
    "claude_bin": "--claude-bin",
    "timeout": "--timeout",
    "base_url": "--base-url",
    "disable_bundled_skills": "--disable-bundled-skills",
}


def build_args(options: dict[str, Any], suite: Any = None) -> list[str]:
    """``adapter.options`` → this adapter's command-line flags."""
    return options_to_argv(options, OPTION_FLAGS, suite, "claude-code")


def identity_extra(options: dict[str, Any], suite: Any = None) -> dict[str, Any]:
    """The installed Claude Code version, for the run key."""
    return {"agent_version": agent_version(str(options.get("claude_bin") or "claude"))}


# result.modelUsage field -> our usage key (Anthropic's names, as result.usage spells them).
_MODEL_USAGE_KEYS = {
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
    "cacheReadInputTokens": "cache_read_input_tokens",
    "cacheCreationInputTokens": "cache_creation_input_tokens",
}


def _usage_from_result(result: dict[str, Any]) -> dict[str, float]:
    """The run's usage: tokens as billed (``modelUsage``, every request the CLI made, the one
    ``total_cost_usd`` is computed from), else the main conversation's ``usage``; cost; turns."""
    usage = _billed_tokens(result)
    if not usage:
        raw = result.get("usage") if isinstance(result.get("usage"), dict) else {}
        for key in _MODEL_USAGE_KEYS.values():
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


def _billed_tokens(result: dict[str, Any]) -> dict[str, float]:
    """Sums over ``result.modelUsage`` and the split per model (``model/<name>/<key>``).

    ``result.usage`` covers the main conversation's turns only: requests made on the agent's
    behalf (subagents a skill starts, side queries on a smaller model) are missing from it, while
    the cost beside it includes them. {} when the CLI reports no ``modelUsage`` (older versions).
    """
    per_model = result.get("modelUsage")
    if not isinstance(per_model, dict):
        return {}
    usage: dict[str, float] = {}
    for raw_name, entry in sorted(per_model.items()):
        if not isinstance(entry, dict):
            continue
        name = _model_name(str(raw_name), entry)
        for field, key in _MODEL_USAGE_KEYS.items():
            value = number(entry.get(field))
            if value is None:
                continue
            usage[key] = usage.get(key, 0) + value
            usage[f"model/{name}/{key}"] = usage.get(f"model/{name}/{key}", 0) + value
        cost = number(entry.get("costUSD"))
        if cost is not None:
            usage[f"model/{name}/cost_usd"] = usage.get(f"model/{name}/cost_usd", 0) + cost
    return usage


def _model_name(key: str, entry: dict[str, Any]) -> str:
    """A ``modelUsage`` key as the model's name: its ``canonicalModel``, else the key without a
    context suffix (``claude-opus-5[1m]`` -> ``claude-opus-5``, as Claude Code 2.1.245 writes it)."""
    canonical = entry.get("canonicalModel")
    if isinstance(canonical, str) and canonical.strip():
        return canonical.strip()
    return re.sub(r"\[[^\]]*\]$", "", key) or key


def run_claude(args: argparse.Namespace, prompt: str, workspace: Path, env: dict[str, str]) -> Collected:
    exe = find_binary(args.claude_bin, env, MISSING)
    argv = [exe, "-p", "--output-format", "stream-json", "--verbose"]
    if args.model:
        argv += ["--model", args.model]
    if args.permission_mode:
        argv += ["--permission-mode", args.permission_mode]
    if getattr(args, "disable_bundled_skills", False):
        argv += bundled_skills.claude_args(getattr(args, "tested_skill", None))
    servers = getattr(args, "mcp_servers", None) or []
    argv += settings_args(getattr(args, "settings", None) or {}, bool(args.permission_mode),
                          [t for s in servers for t in s.get("tools") or []])
    argv += mcp_args(servers)
    argv += plugin_args(getattr(args, "plugin", None))
    if getattr(args, "history", None):  # the transcript to resume; the prompt is the next turn
        argv += ["--resume", args.history]
    argv += list(args.extra_arg or [])
    # "--" ends the options, so neither a prompt starting with "-" nor a variadic extra flag
    # (e.g. --allowedTools A B) can swallow or misread the prompt.
    argv += ["--", prompt]
    target = getattr(args, "session", None)
    with tempfile.TemporaryDirectory(prefix="skill-eval-claude-") as tmp:
        watch = claude_watch(env, "judge" if args.judge else "adapter")
        done = run_cli(argv, workspace, env, args.timeout, Path(tmp), watch)
        explain("claude", done, args.timeout)
        if done.returncode != 0:
            read = _read_after_exit(done, target is not None)
        else:
            read = parse_claude_stream(done.stdout_path, session=target is not None)
        got, result = read.got, read.result
        write_session(read.session_lines(), target)
        for name in read.refused:
            got.forget_skill(name)
        if result is None:
            detail = last_line(done.stderr)
            fail("claude stream ended without a result event" + (f" (stderr: {detail})" if detail else ""))
    subtype = str(result.get("subtype") or "")
    text = result.get("result")
    stop = claude_stop(result)
    if (result.get("is_error") or subtype.startswith("error")) and stop != "max_turns":
        detail = one_line(text) if isinstance(text, str) and text else "no result text"
        fail(f"claude reported an error ({subtype or 'is_error'}): {detail}")
    got.output = text if isinstance(text, str) else ""
    got.usage = _usage_from_result(result)
    _record_stop(got, stop)
    if _no_model_request(result):
        answer = one_line(got.output, 200)
        got.events.append({"type": "unscorable", "name": f"{NO_MODEL_REQUEST}: the agent made no model "
                           f"request (0 turns, no tokens); the CLI answered itself: {answer!r}"})
    served = _served_model(result)
    if served:
        got.model = served
    return got


def _no_model_request(result: dict[str, Any]) -> bool:
    """The CLI answered without asking the model (an unknown slash command answered locally, a
    refused login): no tokens in ``usage`` nor ``modelUsage``, and no API time or no turn."""
    raw = result.get("usage") if isinstance(result.get("usage"), dict) else {}
    if any(number(raw.get(k)) for k in _MODEL_USAGE_KEYS.values()):
        return False
    if any(_billed_tokens(result).values()) or number(result.get("total_cost_usd")):
        return False
    return number(result.get("duration_api_ms")) == 0 or number(result.get("num_turns")) == 0


def _read_after_exit(done: Finished, session: bool) -> StreamRead:
    """The stream of a claude that exited non-zero: still the run's when it stopped at
    --max-turns (Claude Code exits 1 there; its result event says why), else the failure, told
    by the result's error text when there is one."""
    try:
        read: StreamRead | None = parse_claude_stream(done.stdout_path, session=session)
    except Exception:
        read = None
    result = read.result if read is not None else None
    if read is not None and result is not None and claude_stop(result) == "max_turns":
        return read
    detail = done.cause.message if done.cause is not None else last_line(done.stderr)
    if result and isinstance(result.get("result"), str) and result.get("is_error"):
        detail = one_line(result["result"])
    fail(f"claude exited with status {done.returncode}" + (f": {detail}" if detail else ""))


def _record_stop(got: Collected, stop: str | None) -> None:
    """Why the agent stopped, as the run's last step (``max_turns``: the run is unscorable)."""
    if stop:
        got.events.append({"type": "stop", "name": stop})


def claude_watch(env: dict[str, str], part: str = "adapter") -> ClaudeWatch:
    """The watcher for one run: the endpoint the CLI uses, and how many connection failures to
    accept (CLAUDE_CODE_MAX_RETRIES set: the CLI's own limit holds)."""
    own_limit = env.get("CLAUDE_CODE_MAX_RETRIES", "").strip()
    return ClaudeWatch(base_url=env.get("ANTHROPIC_BASE_URL") or CLAUDE_DEFAULT_URL,
                       connect_limit=None if own_limit.isdigit() else CLAUDE_CONNECT_RETRIES, part=part)


def _served_model(result: dict[str, Any]) -> str | None:
    """The model that did the work, from ``result.modelUsage`` (the init event's name may carry
    a context suffix such as ``[1m]``); with several, the one with the most output tokens."""
    usage = result.get("modelUsage")
    if not isinstance(usage, dict) or not usage:
        return None

    def output_tokens(name: str) -> float:
        entry = usage.get(name)
        value = number(entry.get("outputTokens")) if isinstance(entry, dict) else None
        return float(value or 0)

    top = max(sorted(usage), key=output_tokens)
    entry = usage.get(top)
    return _model_name(top, entry if isinstance(entry, dict) else {})


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m skill_eval.run.adapters.claude_code", description=__doc__)
    p.add_argument("--model", help="model alias or name passed to claude --model")
    p.add_argument("--permission-mode", help="passed to claude --permission-mode (e.g. acceptEdits)")
    p.add_argument("--extra-arg", action="append", default=[], help="extra claude argument (repeatable)")
    p.add_argument("--claude-bin", default="claude", help="claude executable (name on PATH or path)")
    p.add_argument("--timeout", type=float, default=None, help="stop claude after this many seconds")
    p.add_argument("--base-url", help="Messages-API endpoint (gateway, local server): ANTHROPIC_BASE_URL")
    p.add_argument("--disable-bundled-skills", action="store_true",
                   help="turn off the skills Claude Code ships with, in both arms (see docs/adapters.md)")
    p.add_argument("--print-version", action="store_true", help="print `claude --version` and exit")
    p.add_argument("--judge", action="store_true", help="serve a judge request instead of a run")
    return p.parse_args(argv)


def claude_env(workspace: Path, base_url: str | None) -> dict[str, str]:
    """The CLI's environment: isolated in the workspace (its config there too), at ``base_url``."""
    env = isolated_env(workspace)
    env["CLAUDE_CONFIG_DIR"] = str(Path(env["HOME"]) / ".claude")
    if base_url:
        env["ANTHROPIC_BASE_URL"] = base_url
    return env


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    if args.print_version:
        return print_version(args.claude_bin, dict(os.environ), MISSING)
    if args.judge:
        workspace = Path.cwd().resolve()
        env = claude_env(workspace, args.base_url)

        def chat(system: str, messages: list[dict[str, str]], model: str | None
                 ) -> tuple[str, dict[str, float]]:
            # One model request: the system text in place of Claude Code's, no tools, one turn.
            args.model = model or args.model
            args.extra_arg = [*(args.extra_arg or []), f"--system-prompt={system}", "--tools=",
                              "--max-turns=1"]
            got = run_claude(args, flatten(messages), workspace, env)
            return got.output, got.usage

        def complete(prompt: str, model: str | None) -> tuple[str, dict[str, float]]:
            # A verdict or vote: asked the same way, with the judge's own system text.
            return chat(JUDGE_SYSTEM, [{"role": "user", "content": prompt}], model)

        return judge_main(complete, chat=chat)
    request = read_request()
    prompt = request.get("prompt")
    if not isinstance(prompt, str):
        fail("request 'prompt' must be a string")
    args.model = model_for(request, args.model)
    workspace = workspace_of(request)
    args.plugin = _plugin_dir(request, workspace)
    installs = [] if args.plugin is not None else [INSTALL_DIR]  # a plugin's skill is loaded with it
    args.tested_skill = prepare_skill(request, workspace, installs)
    env = claude_env(workspace, args.base_url)
    args.settings = request.get("settings") if isinstance(request.get("settings"), dict) else {}
    env.update({str(k): str(v) for k, v in (args.settings.get("env") or {}).items()
                if str(k).startswith("EVAL_")})
    session = request.get("session")
    args.session = workspace / session if isinstance(session, str) and session else None
    servers = request.get("mcp_servers")
    args.mcp_servers = [s for s in servers if isinstance(s, dict)] if isinstance(servers, list) else []
    history = request.get("history")
    args.history = str(workspace / history) if isinstance(history, str) and history else None
    own = args.settings.get("timeout_seconds")
    if own is not None and (args.timeout is None or float(own) < args.timeout):
        args.timeout = float(own)
    try:
        got = run_claude(args, prompt, workspace, env)
    finally:
        remove_installed(workspace, installs, args.tested_skill)
    write_json(got.response())
    return 0


def _plugin_dir(request: dict[str, Any], workspace: Path) -> Path | None:
    """The request's ``plugin`` (``{name, path}``, with_skill only) as its folder in the workspace."""
    plugin = request.get("plugin")
    if plugin is None:
        return None
    if not isinstance(plugin, dict) or not isinstance(plugin.get("path"), str) or not plugin["path"]:
        fail("request 'plugin' must be an object with 'name' and 'path'")
    folder = (workspace / plugin["path"]).resolve()
    if not folder.is_relative_to(workspace) or not folder.is_dir():
        fail(f"plugin path {plugin['path']!r} is not a folder in the workspace")
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
