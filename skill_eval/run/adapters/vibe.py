"""Builtin adapter for Mistral Vibe: ``python -m skill_eval.run.adapters.vibe [options]``.

Reads a protocol-v1 request on stdin, runs ``vibe -p PROMPT --output json --trust --output-dir D``
in the workspace and answers ``{output, events, usage}`` on stdout (tokens and cost from
``D/export.json``).

- with_skill: the skill is copied to ``.vibe/skills/<name>/`` (project skills, read only in a
  trusted folder: hence ``--trust``, for this invocation only), taken out after the run.
- without_skill: ``skills/`` is removed.
- Isolation: HOME and VIBE_HOME point inside the workspace (``~/.vibe``: config, .env, skills,
  agents, sessions, trusted folders), the system keyring is off (``PYTHON_KEYRING_BACKEND``), and
  the config turns off telemetry, update checks and auto-update.
- ``base_url``: a provider ``skilleval`` with ``api_base`` and ``api_key_env_var`` (``env_key``,
  default MISTRAL_API_KEY) and the run's model under it, in ``$VIBE_HOME/config.toml``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skill_eval.model.builtins.catalog import VIBE_CLI as AGENT_CLI
from skill_eval.run.adapters.shared.agentcli import (
    Collected,
    find_binary,
    isolated_env,
    last_line,
    run_cli,
)
from skill_eval.run.adapters.shared.cli_version import cli_version
from skill_eval.run.adapters.shared.failure_causes import NO_MODEL_REQUEST, explain
from skill_eval.run.adapters.shared.headless import serve_request
from skill_eval.run.adapters.shared.protocol_io import (
    AdapterFatal,
    fail,
    one_line,
    options_to_argv,
    run_entry,
)
from skill_eval.run.adapters.shared.trajectory import SESSION_COMPLETE
from skill_eval.run.adapters.shared.vibe_output import (
    TURN_LIMIT,
    export_failure,
    export_usage,
    parse_vibe_output,
    read_export,
)

MISSING = ("vibe CLI not found on PATH; install Mistral Vibe (pip install mistral-vibe, Python >= 3.12) "
           "or set adapter options vibe_bin")
INSTALL_DIR = ".vibe/skills"
# Read by skill_eval.run.resolve.resolve_adapter (see its docstring).
BUILTIN_VERSION = "1"
ENV = ("MISTRAL_API_KEY",)
OPTION_FLAGS = {
    "model": "--model",
    "agent": "--agent",
    "args": "--extra-arg",
    "vibe_bin": "--vibe-bin",
    "timeout": "--timeout",
    "base_url": "--base-url",
    "env_key": "--env-key",
    "skills_dir": "--skills-dir",
    "disable_bundled_skills": "--disable-bundled-skills",
}
PROVIDER = "skilleval"
BUNDLED_SKILLS = ("vibe", "skill-creator")  # vibe/core/skills/builtins/


def build_args(options: dict[str, Any], suite: Any = None) -> list[str]:
    """``adapter.options`` → this adapter's command-line flags."""
    return options_to_argv(options, OPTION_FLAGS, suite, "vibe")


def identity_extra(options: dict[str, Any], suite: Any = None) -> dict[str, Any]:
    """The installed Vibe version, for the run key."""
    return {"agent_version": cli_version(str(options.get("vibe_bin") or "vibe"), AGENT_CLI)}


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def vibe_config(args: argparse.Namespace) -> str:
    lines = ["enable_telemetry = false", "enable_update_checks = false", "enable_auto_update = false"]
    if args.disable_bundled_skills:
        lines.append("disabled_skills = [" + ", ".join(_toml(s) for s in BUNDLED_SKILLS) + "]")
    if args.base_url:
        lines += [f"active_model = {_toml(args.model)}", "", "[[providers]]", f"name = {_toml(PROVIDER)}",
                  f"api_base = {_toml(args.base_url)}", f"api_key_env_var = {_toml(args.env_key or ENV[0])}",
                  'api_style = "openai"', "", "[[models]]", f"name = {_toml(args.model)}",
                  f"provider = {_toml(PROVIDER)}", f"alias = {_toml(args.model)}"]
    elif args.model:
        lines.insert(0, f"active_model = {_toml(args.model)}")
    return "\n".join(lines) + "\n"


def vibe_env(workspace: Path, args: argparse.Namespace) -> dict[str, str]:
    env = isolated_env(workspace)
    vibe_home = Path(env["HOME"]) / ".vibe"
    vibe_home.mkdir(parents=True, exist_ok=True)
    env["VIBE_HOME"] = str(vibe_home)
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"  # no key from the user's keyring
    if args.base_url and not args.model:
        fail("vibe with base_url needs a model: set adapter options model (or the suite's models)")
    key = args.env_key or ENV[0]
    if not env.get(key):
        raise AdapterFatal(f"vibe: {key} is not set: allow-list it in the suite's env"
                           + (" (env_key names the variable)" if args.base_url else ""))
    (vibe_home / "config.toml").write_text(vibe_config(args), encoding="utf-8")
    return env


def run_vibe(args: argparse.Namespace, prompt: str, workspace: Path, env: dict[str, str]) -> Collected:
    exe = find_binary(args.vibe_bin, env, MISSING)
    with tempfile.TemporaryDirectory(prefix="skill-eval-vibe-") as tmp:
        out_dir = Path(tmp) / "export"
        argv = [exe, "-p", prompt, "--output", "json", "--trust", "--output-dir", str(out_dir)]
        if args.agent:
            argv += ["--agent", args.agent]
        argv += list(args.extra_arg or [])
        done = run_cli(argv, workspace, env, args.timeout, Path(tmp))
        explain("vibe", done, args.timeout)
        export = read_export(out_dir / "export.json")
        why = export_failure(export)
        at_limit = export.get("outcome") == TURN_LIMIT
        if (done.returncode != 0 and not at_limit) or why:
            detail = why or last_line(done.stderr)
            if any(w in detail for w in ("401", "403", "Unauthorized", "API key")):
                raise AdapterFatal(f"vibe: the key was refused: {one_line(detail)}")
            fail(f"vibe exited with status {done.returncode}" + (f": {detail}" if detail else ""))
        got = parse_vibe_output(done.stdout_path)
    # With base_url the provider and its model are ours, priced at 0: Vibe's cost is no cost then.
    got.usage = export_usage(export, priced=not args.base_url)
    got.model = args.model
    if not got.usage.get("input_tokens") and not got.usage.get("output_tokens") and not at_limit:
        got.events.append({"type": "unscorable", "name": f"{NO_MODEL_REQUEST}: Mistral Vibe made no model "
                           f"request (no tokens); it answered itself: {one_line(got.output, 200)!r}"})
    stop = TURN_LIMIT if at_limit else export.get("stop_reason")
    if stop:
        got.events.append({"type": "stop", "name": str(stop)})
    got.events.append(dict(SESSION_COMPLETE))
    return got


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m skill_eval.run.adapters.vibe", description=__doc__)
    p.add_argument("--model", help="the model (Vibe's active_model; with --base-url, its id there)")
    p.add_argument("--agent", help="passed to vibe --agent (ask, accept-edits, auto-approve, ...)")
    p.add_argument("--extra-arg", action="append", default=[], help="extra vibe argument (repeatable)")
    p.add_argument("--vibe-bin", default="vibe", help="vibe executable (name on PATH or path)")
    p.add_argument("--timeout", type=float, default=None, help="stop vibe after this many seconds")
    p.add_argument("--base-url", help="a chat-completions endpoint: the provider 'skilleval'")
    p.add_argument("--env-key", help="the variable holding the key (default MISTRAL_API_KEY; allow-list "
                   "another in the suite's env)")
    p.add_argument("--skills-dir", default=INSTALL_DIR, help="where to install the skill, relative to the "
                   "workspace (default .vibe/skills; .agents/skills works too)")
    p.add_argument("--disable-bundled-skills", action="store_true",
                   help="turn off the skills Vibe ships with (vibe, skill-creator), in both arms")
    p.add_argument("--print-version", action="store_true", help="print `vibe --version` and exit")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    return serve_request(args, args.vibe_bin, MISSING, vibe_env, run_vibe)


def main(argv: Sequence[str] | None = None) -> int:
    return run_entry(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
