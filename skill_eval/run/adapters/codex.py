"""Builtin adapter for the OpenAI Codex CLI: ``python -m skill_eval.run.adapters.codex [options]``.

Reads a protocol-v1 request on stdin, runs ``codex exec --json`` in the workspace and answers
``{output, events, usage}`` on stdout.

- with_skill: the skill is copied once, where the running Codex reads it: ``.agents/skills/<name>/``
  (repository scope, Codex >= 0.80) or ``$CODEX_HOME/skills/<name>/`` (older versions). Codex
  lists every copy it finds, so two copies would put the description in the prompt twice. The
  runner's staging copy under ``skills/`` is removed.
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
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.codex_stream import parse_codex_stream
from skill_eval.run.adapters.shared import bundled_skills, codex_session_log
from skill_eval.run.adapters.shared.agentcli import (
    Collected,
    find_binary,
    isolated_env,
    last_line,
    model_for,
    prepare_skill,
    print_version,
    remove_installed,
    run_cli,
    workspace_of,
)
from skill_eval.run.adapters.shared.failure_causes import CODEX_DEFAULT_URL, CodexWatch, explain
from skill_eval.run.adapters.shared.judge_prompt import judge_main
from skill_eval.run.adapters.shared.protocol_io import (
    agent_version,
    fail,
    one_line,
    options_to_argv,
    read_request,
    run_entry,
    write_json,
)
from skill_eval.run.adapters.shared.trajectory import SESSION_COMPLETE, codex_session_steps

MISSING = "codex CLI not found on PATH; install Codex (npm i -g @openai/codex) or set adapter.command"
REPO_SKILLS = ".agents/skills"

# Read by skill_eval.run.resolve.resolve_adapter (see its docstring).
# 2: the skill installed once (Codex listed both copies); 3: skill loads from the session log too;
# 4: every tool call with its whole input (input_json), "session complete".
BUILTIN_VERSION = "4"
ENV = ("CODEX_API_KEY",)
OPTION_FLAGS = {
    "model": "--model",
    "sandbox": "--sandbox",
    "args": "--extra-arg",
    "codex_bin": "--codex-bin",
    "timeout": "--timeout",
    "skills_dirs": "--skills-dir",
    "skip_git_repo_check": "!--no-skip-git-repo-check",
    "base_url": "--base-url",
    "env_key": "--env-key",
    "disable_bundled_skills": "--disable-bundled-skills",
}
# The custom model provider the base_url option defines (Codex reads no OPENAI_BASE_URL, and the
# isolated CODEX_HOME means the user's config.toml is never read).
PROVIDER = "skill_eval"
# First version known to read repository-scope skills from .agents/skills.
_REPO_SKILLS_SINCE = (0, 80)


def build_args(options: dict[str, Any], suite: Any = None) -> list[str]:
    """``adapter.options`` → this adapter's command-line flags."""
    return options_to_argv(options, OPTION_FLAGS, suite, "codex")


def identity_extra(options: dict[str, Any], suite: Any = None) -> dict[str, Any]:
    """The installed Codex CLI version, for the run key."""
    return {"agent_version": agent_version(str(options.get("codex_bin") or "codex"))}


# item type -> tool name reported as a tool_call event (None: not a tool call)
def run_codex(args: argparse.Namespace, prompt: str, workspace: Path, env: dict[str, str]) -> Collected:
    exe = find_binary(args.codex_bin, env, MISSING)
    argv = [exe, "exec", "--json"]
    if args.skip_git_repo_check:
        argv.append("--skip-git-repo-check")
    if args.model:
        argv += ["--model", args.model]
    if args.sandbox:
        argv += ["--sandbox", args.sandbox]
    argv += provider_args(args.base_url, args.env_key)
    argv += bundled_skills.codex_args() if getattr(args, "disable_bundled_skills", False) else []
    argv += list(args.extra_arg or [])
    argv += ["--", prompt]
    with tempfile.TemporaryDirectory(prefix="skill-eval-codex-") as tmp:
        watch = CodexWatch(args.env_key or ENV[0], args.base_url or CODEX_DEFAULT_URL,
                           part="judge" if args.judge else "adapter")
        done = run_cli(argv, workspace, env, args.timeout, Path(tmp), watch)
        explain("codex", done, args.timeout)
        if done.returncode != 0:
            detail = done.cause.message if done.cause is not None else last_line(done.stderr)
            if done.cause is None:
                try:
                    partial = parse_codex_stream(done.stdout_path)
                    detail = partial.failed or partial.last_error or detail
                except Exception:
                    pass
            fail(f"codex exited with status {done.returncode}" + (f": {one_line(detail)}" if detail else ""))
        stream = parse_codex_stream(done.stdout_path)
        stderr_tail = last_line(done.stderr)
        for line in done.stderr.splitlines():
            if line.startswith("WARNING:"):  # e.g. "Refusing to create helper binaries under temporary dir"
                stream.warn(line.removeprefix("WARNING:").strip())
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
    if not got.model:
        got.model = _session_model(env, stream.thread_id) or args.model
    if not any(e["type"] == "tool_call" for e in got.events):  # 0.1xx: the steps are in the log
        got.add_steps(codex_session_steps(env.get("CODEX_HOME"), stream.thread_id))
    for name in codex_session_log.session_skill_reads(env, stream.thread_id):
        got.skill_loaded(name)
    got.events.append(dict(SESSION_COMPLETE))
    for text in stream.warnings:
        got.events.append({"type": "warning", "name": text})
    return got


def provider_args(base_url: str | None, env_key: str | None) -> list[str]:
    """``-c`` flags that define and select a custom Responses-API provider at ``base_url``."""
    if not base_url:
        return []
    key = env_key or ENV[0]
    table = f'{{name="skill-eval", base_url={_toml(base_url)}, env_key={_toml(key)}, wire_api="responses"}}'
    return ["-c", f"model_provider={PROVIDER}", "-c", f"model_providers.{PROVIDER}={table}"]


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _session_model(env: dict[str, str], thread_id: str | None) -> str | None:
    """The model Codex used, from its session log (its --json stream does not name it)."""
    home = env.get("CODEX_HOME")
    if not home or not thread_id:
        return None
    import json

    for path in sorted(Path(home, "sessions").glob(f"**/rollout-*{thread_id}.jsonl")):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if '"turn_context"' not in line:
                    continue
                try:
                    payload = json.loads(line).get("payload")
                except ValueError:
                    continue
                if isinstance(payload, dict) and isinstance(payload.get("model"), str):
                    return payload["model"]
    return None


def codex_version(exe: str, env: dict[str, str]) -> tuple[int, ...] | None:
    """``codex --version`` as numbers ("codex-cli 0.171.0" -> (0, 171, 0)), None if unknown."""
    import re
    import subprocess

    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", done.stdout)
    return tuple(int(g) for g in m.groups() if g is not None) if m and done.returncode == 0 else None


def skill_dirs(args: argparse.Namespace, env: dict[str, str]) -> list[str]:
    """Where to install the skill: once, where the running Codex reads it."""
    if args.skills_dir:
        return list(args.skills_dir)
    home_skills = str(Path(env["CODEX_HOME"]) / "skills")
    exe = args.codex_bin if os.sep in args.codex_bin else shutil.which(args.codex_bin, path=env.get("PATH"))
    version = codex_version(exe, env) if exe else None
    if version is None:
        return [REPO_SKILLS, home_skills]  # unknown: both, as before
    return [REPO_SKILLS] if version[:2] >= _REPO_SKILLS_SINCE else [home_skills]


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
        help="where to install the skill, relative to the workspace (repeatable; default: where "
        "the running Codex reads skills, .agents/skills since 0.80)",
    )
    p.add_argument(
        "--no-skip-git-repo-check",
        dest="skip_git_repo_check",
        action="store_false",
        help="do not pass --skip-git-repo-check (the workspace is not a git repository)",
    )
    p.add_argument("--base-url", help="a Responses-API endpoint (gateway, local server): defines a "
                   "custom model provider through -c flags")
    p.add_argument("--env-key", help="the environment variable holding the key for --base-url "
                   "(default CODEX_API_KEY; allow-list another in the suite's env)")
    p.add_argument("--disable-bundled-skills", action="store_true", help="turn off Codex's own skills")
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
    dirs = skill_dirs(args, env)
    installed = prepare_skill(request, workspace, dirs)
    try:
        got = run_codex(args, prompt, workspace, env)
    finally:  # the skill copy is the adapter's plumbing, no file the run created
        remove_installed(workspace, dirs, installed)
    write_json(got.response())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
