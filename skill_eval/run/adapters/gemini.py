"""Builtin adapter for Gemini CLI: ``python -m skill_eval.run.adapters.gemini [options]``.

Reads a protocol-v1 request on stdin, runs ``gemini -p PROMPT --output-format stream-json
--skip-trust`` in the workspace and answers ``{output, events, usage}`` on stdout.

- with_skill: the skill is copied to ``.gemini/skills/<name>/`` (workspace skills, where Gemini
  CLI discovers them; ``skills_dir`` chooses ``.agents/skills``), taken out again after the run.
- without_skill: ``skills/`` is removed.
- Isolation: HOME points inside the workspace, with a fresh ``~/.gemini/settings.json`` that
  selects API-key auth (``GEMINI_API_KEY``) and turns off telemetry and update checks; the system
  settings paths point into that home too, so neither the user's nor the machine's settings,
  GEMINI.md memory, extensions or skills are read.
- Consent: in ``-p`` mode Gemini CLI's default policy withholds ``activate_skill`` (interactively
  it asks the user). The adapter writes a policy (``~/.gemini/policies/skill-eval.toml``) that
  allows it, so the model loads a skill as it would once a user consents; ``allow_activate_skill:
  false`` leaves the CLI's headless default (the model can still read SKILL.md with ``read_file``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_eval.model.builtins.catalog import GEMINI_CLI as AGENT_CLI
from skill_eval.run.adapters.shared.agentcli import (
    Collected,
    find_binary,
    isolated_env,
    last_line,
    run_cli,
)
from skill_eval.run.adapters.shared.cli_version import cli_version
from skill_eval.run.adapters.shared.failure_causes import NO_MODEL_REQUEST, explain
from skill_eval.run.adapters.shared.gemini_stream import parse_gemini_stream
from skill_eval.run.adapters.shared.headless import serve_request
from skill_eval.run.adapters.shared.protocol_io import (
    AdapterFatal,
    fail,
    one_line,
    options_to_argv,
    run_entry,
)
from skill_eval.run.adapters.shared.trajectory import SESSION_COMPLETE

MISSING = ("gemini CLI not found on PATH; install Gemini CLI (npm i -g @google/gemini-cli) or set "
           "adapter.command")
INSTALL_DIR = ".gemini/skills"
# Read by skill_eval.run.resolve.resolve_adapter (see its docstring).
BUILTIN_VERSION = "1"
ENV = ("GEMINI_API_KEY",)
OPTION_FLAGS = {
    "model": "--model",
    "approval_mode": "--approval-mode",
    "args": "--extra-arg",
    "gemini_bin": "--gemini-bin",
    "timeout": "--timeout",
    "base_url": "--base-url",
    "env_key": "--env-key",
    "skills_dir": "--skills-dir",
    "allow_activate_skill": "!--no-activate-skill",
    "disable_bundled_skills": "--disable-bundled-skills",
}
# Gemini CLI's own skills (bundle/builtin/), disabled by disable_bundled_skills.
BUNDLED_SKILLS = ("skill-creator", "antigravity-support")
POLICY = '[[rule]]\ntoolName = "activate_skill"\ndecision = "allow"\npriority = 900\n'
_AUTH_WORDS = ("API key not valid", "API_KEY_INVALID", "PERMISSION_DENIED", "status 401", "status 403")


def build_args(options: dict[str, Any], suite: Any = None) -> list[str]:
    """``adapter.options`` → this adapter's command-line flags."""
    return options_to_argv(options, OPTION_FLAGS, suite, "gemini")


def identity_extra(options: dict[str, Any], suite: Any = None) -> dict[str, Any]:
    """The installed Gemini CLI version, for the run key."""
    return {"agent_version": cli_version(str(options.get("gemini_bin") or "gemini"), AGENT_CLI)}


def gemini_env(workspace: Path, args: argparse.Namespace) -> dict[str, str]:
    """A fresh home with Gemini CLI's settings (API-key auth, nothing phoning home), the policy
    allowing activate_skill unless switched off, the endpoint and the key where the CLI reads them."""
    env = isolated_env(workspace)
    home = Path(env["HOME"]) / ".gemini"
    home.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }
    if args.disable_bundled_skills:
        settings["skills"] = {"disabled": list(BUNDLED_SKILLS)}
    (home / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    if args.activate_skill:
        (home / "policies").mkdir(exist_ok=True)
        (home / "policies" / "skill-eval.toml").write_text(POLICY, encoding="utf-8")
    # The machine's settings files (/etc/gemini-cli/...) are not this run's: point them home.
    env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = str(home / "system-settings.json")
    env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"] = str(home / "system-defaults.json")
    if args.base_url:
        env["GOOGLE_GEMINI_BASE_URL"] = args.base_url
    if args.env_key and args.env_key != ENV[0]:
        if not env.get(args.env_key):
            raise AdapterFatal(f"gemini: {args.env_key} is not set (adapter option env_key): allow-list it "
                               "in the suite's env and set it")
        env[ENV[0]] = env[args.env_key]
    return env


def run_gemini(args: argparse.Namespace, prompt: str, workspace: Path, env: dict[str, str]) -> Collected:
    exe = find_binary(args.gemini_bin, env, MISSING)
    if not env.get(ENV[0]):
        raise AdapterFatal("gemini: GEMINI_API_KEY is not set: allow-list it in the suite's env (or name "
                           "another variable with the adapter option env_key)")
    argv = [exe, "-p", prompt, "--output-format", "stream-json", "--skip-trust"]
    if args.model:
        argv += ["--model", args.model]
    if args.approval_mode:
        argv += ["--approval-mode", args.approval_mode]
    argv += list(args.extra_arg or [])
    with tempfile.TemporaryDirectory(prefix="skill-eval-gemini-") as tmp:
        done = run_cli(argv, workspace, env, args.timeout, Path(tmp))
        explain("gemini", done, args.timeout)
        try:
            read = parse_gemini_stream(done.stdout_path)
        except Exception:
            read = None
        if done.returncode != 0 or read is None or read.result is None:
            detail = "; ".join(read.errors) if read is not None and read.errors else last_line(done.stderr)
            if any(w in detail for w in _AUTH_WORDS):
                raise AdapterFatal(f"gemini: the key was refused: {one_line(detail)}: check GEMINI_API_KEY")
            fail(f"gemini exited with status {done.returncode}" + (f": {one_line(detail)}" if detail else ""))
    status = read.result.get("status")
    if status not in (None, "success"):
        error = read.result.get("error")
        detail = error.get("message") if isinstance(error, dict) else error or "; ".join(read.errors)
        fail(f"gemini reported {status}" + (f": {one_line(str(detail))}" if detail else ""))
    got = read.got
    got.model = got.model or args.model
    got.events.append(dict(SESSION_COMPLETE))
    stats = read.result.get("stats") if isinstance(read.result.get("stats"), dict) else {}
    if not stats.get("models") and not stats.get("total_tokens"):
        got.events.append({"type": "unscorable", "name": f"{NO_MODEL_REQUEST}: Gemini CLI made no model "
                           f"request (no tokens); it answered itself: {one_line(got.output, 200)!r}"})
    return got


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m skill_eval.run.adapters.gemini", description=__doc__)
    p.add_argument("--model", help="passed to gemini --model (default: the CLI's own, 'auto')")
    p.add_argument("--approval-mode",
                   help="passed to gemini --approval-mode (default, auto_edit, yolo, plan)")
    p.add_argument("--extra-arg", action="append", default=[], help="extra gemini argument (repeatable)")
    p.add_argument("--gemini-bin", default="gemini", help="gemini executable (name on PATH or path)")
    p.add_argument("--timeout", type=float, default=None, help="stop gemini after this many seconds")
    p.add_argument("--base-url", help="a Gemini-API endpoint (gateway, local server): GOOGLE_GEMINI_BASE_URL")
    p.add_argument("--env-key", help="the environment variable holding the key (default GEMINI_API_KEY; "
                   "allow-list another in the suite's env)")
    p.add_argument("--skills-dir", default=INSTALL_DIR, help="where to install the skill, relative to the "
                   "workspace (default .gemini/skills; .agents/skills is Gemini's alias)")
    p.add_argument("--no-activate-skill", dest="activate_skill", action="store_false",
                   help="leave Gemini CLI's headless policy, which withholds activate_skill")
    p.add_argument("--disable-bundled-skills", action="store_true",
                   help="turn off the skills Gemini CLI ships with (skill-creator, ...), in both arms")
    p.add_argument("--print-version", action="store_true", help="print `gemini --version` and exit")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    return serve_request(args, args.gemini_bin, MISSING, gemini_env, run_gemini)


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
