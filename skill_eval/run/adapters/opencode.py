"""Builtin adapter for OpenCode: ``python -m skill_eval.run.adapters.opencode [options]``.

Reads a protocol-v1 request on stdin, runs ``opencode run --format json [--model P/M] PROMPT``
in the workspace and answers ``{output, events, usage}`` on stdout.

- with_skill: the skill is copied to ``.opencode/skills/<name>/`` (project skills; ``skills_dir``
  chooses ``.agents/skills`` or ``.claude/skills``, which OpenCode reads too), taken out after.
- without_skill: ``skills/`` is removed.
- Isolation: HOME and every XDG folder point inside the workspace, so the user's OpenCode config,
  AGENTS.md, skills, auth and sessions (and ~/.claude's, which OpenCode also reads) are not seen;
  model-list fetches, auto-update, sharing, LSP downloads and default plugins are off.
- ``base_url``: a chat-completions provider (``@ai-sdk/openai-compatible``) named ``skilleval``
  with ``options.baseURL`` and the key from ``env_key`` (default OPENAI_API_KEY), written to the
  fresh home's ``~/.config/opencode/opencode.json``; the run's model is that provider's.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_eval.model.builtins.catalog import OPENCODE_CLI as AGENT_CLI
from skill_eval.run.adapters.shared.agentcli import (
    Collected,
    find_binary,
    isolated_env,
    last_line,
    run_cli,
)
from skill_eval.run.adapters.shared.cli_version import cli_version
from skill_eval.run.adapters.shared.failure_causes import explain
from skill_eval.run.adapters.shared.headless import serve_request
from skill_eval.run.adapters.shared.opencode_events import parse_opencode_events
from skill_eval.run.adapters.shared.protocol_io import (
    AdapterFatal,
    fail,
    one_line,
    options_to_argv,
    run_entry,
)
from skill_eval.run.adapters.shared.trajectory import SESSION_COMPLETE

MISSING = "opencode CLI not found on PATH; install OpenCode (npm i -g opencode-ai) or set adapter.command"
INSTALL_DIR = ".opencode/skills"
# Read by skill_eval.run.resolve.resolve_adapter (see its docstring).
BUILTIN_VERSION = "1"
ENV = ("OPENAI_API_KEY",)
OPTION_FLAGS = {
    "model": "--model",
    "args": "--extra-arg",
    "opencode_bin": "--opencode-bin",
    "timeout": "--timeout",
    "base_url": "--base-url",
    "env_key": "--env-key",
    "skills_dir": "--skills-dir",
}
PROVIDER = "skilleval"
# What OpenCode would fetch or install from the network on its own; none of it is the agent's work.
QUIET = ("OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_SHARE",
         "OPENCODE_DISABLE_LSP_DOWNLOAD", "OPENCODE_DISABLE_DEFAULT_PLUGINS")


def build_args(options: dict[str, Any], suite: Any = None) -> list[str]:
    """``adapter.options`` → this adapter's command-line flags."""
    return options_to_argv(options, OPTION_FLAGS, suite, "opencode")


def identity_extra(options: dict[str, Any], suite: Any = None) -> dict[str, Any]:
    """The installed OpenCode version, for the run key."""
    return {"agent_version": cli_version(str(options.get("opencode_bin") or "opencode"), AGENT_CLI)}


def opencode_env(workspace: Path, args: argparse.Namespace) -> dict[str, str]:
    """A fresh home (HOME and XDG folders) with OpenCode's config: the provider at ``base_url``."""
    env = isolated_env(workspace)
    home = Path(env["HOME"])
    for var, rel in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                     ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
        env[var] = str(home / rel)
    for var in ("OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "OPENCODE_CONFIG_CONTENT"):
        env.pop(var, None)  # a config of the user's own, named by the environment
    env.update({var: "1" for var in QUIET})
    config: dict[str, Any] = {"$schema": "https://opencode.ai/config.json", "autoupdate": False,
                              "share": "disabled"}
    if args.base_url:
        if not args.model:
            fail("opencode with base_url needs a model: set adapter options model (or the suite's models)")
        key = args.env_key or ENV[0]
        if not env.get(key):
            raise AdapterFatal(f"opencode: {key} is not set: allow-list it in the suite's env (the key for "
                               "base_url; env_key names another variable)")
        config["provider"] = {PROVIDER: {
            "npm": "@ai-sdk/openai-compatible", "name": "skill-eval",
            "options": {"baseURL": args.base_url, "apiKey": "{env:" + key + "}"},
            "models": {args.model: {"name": args.model}}}}
        config["model"] = f"{PROVIDER}/{args.model}"
    folder = home / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "opencode.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return env


def run_opencode(args: argparse.Namespace, prompt: str, workspace: Path, env: dict[str, str]) -> Collected:
    exe = find_binary(args.opencode_bin, env, MISSING)
    argv = [exe, "run", "--format", "json"]
    if args.model and not args.base_url:
        argv += ["--model", args.model]
    argv += list(args.extra_arg or [])
    argv += ["--", prompt]
    with tempfile.TemporaryDirectory(prefix="skill-eval-opencode-") as tmp:
        done = run_cli(argv, workspace, env, args.timeout, Path(tmp))
        explain("opencode", done, args.timeout)
        try:
            run = parse_opencode_events(done.stdout_path)
        except Exception:
            run = None
    if done.returncode != 0 or run is None or run.errors or run.steps == 0:
        detail = "; ".join(run.errors) if run is not None and run.errors else last_line(done.stderr)
        if any(w in detail for w in ("401", "403", "Unauthorized", "invalid api key", "Incorrect API key")):
            raise AdapterFatal(f"opencode: the key was refused: {one_line(detail)}")
        said = f": {one_line(detail)}" if detail else ""
        if done.returncode != 0:
            fail(f"opencode exited with status {done.returncode}{said}")
        fail(f"opencode reported an error: {one_line(detail or 'no step finished')}")
    got = run.got
    # With base_url the provider is ours and has no price: OpenCode's cost 0 is not a cost.
    if run.cost is not None and not args.base_url:
        got.usage["cost_usd"] = run.cost
    got.model = args.model.split("/", 1)[-1] if args.model else None
    if run.stop:
        got.events.append({"type": "stop", "name": run.stop})
    got.events.append(dict(SESSION_COMPLETE))
    return got


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m skill_eval.run.adapters.opencode", description=__doc__)
    p.add_argument("--model", help="provider/model for opencode --model; with --base-url, the model's id")
    p.add_argument("--extra-arg", action="append", default=[],
                   help="extra opencode run argument (repeatable)")
    p.add_argument("--opencode-bin", default="opencode", help="opencode executable (name on PATH or path)")
    p.add_argument("--timeout", type=float, default=None, help="stop opencode after this many seconds")
    p.add_argument("--base-url", help="a chat-completions endpoint: defines the provider 'skilleval'")
    p.add_argument("--env-key", help="the variable holding the key for --base-url (default OPENAI_API_KEY; "
                   "allow-list another in the suite's env)")
    p.add_argument("--skills-dir", default=INSTALL_DIR, help="where to install the skill, relative to the "
                   "workspace (default .opencode/skills)")
    p.add_argument("--print-version", action="store_true", help="print `opencode --version` and exit")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    return serve_request(args, args.opencode_bin, MISSING, opencode_env, run_opencode)


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
