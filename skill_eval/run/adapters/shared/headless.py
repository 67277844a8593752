"""What the headless agent CLIs (gemini, opencode, vibe) share: one protocol request served (the
version query, the request read, the skill installed for the run and removed after it, the
response written; each builtin supplies its own environment and run), and a tool call recorded."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from skill_eval.run.adapters.shared.agentcli import (
    Collected,
    model_for,
    prepare_skill,
    print_version,
    remove_installed,
    skills_read_in,
    workspace_of,
)
from skill_eval.run.adapters.shared.protocol_io import fail, read_request, write_json
from skill_eval.run.adapters.shared.trajectory import tool_events


class Answer(Protocol):
    def response(self) -> dict[str, Any]: ...


def serve_request(args: argparse.Namespace, binary: str, missing: str,
                  make_env: Callable[[Path, argparse.Namespace], dict[str, str]],
                  run: Callable[[argparse.Namespace, str, Path, dict[str, str]], Answer]) -> int:
    """``--print-version``, or read one request, run it with the skill installed in
    ``args.skills_dir`` (when the arm has one) and write the response."""
    if args.print_version:
        return print_version(binary, dict(os.environ), missing)
    request = read_request()
    prompt = request.get("prompt")
    if not isinstance(prompt, str):
        fail("request 'prompt' must be a string")
    args.model = model_for(request, args.model)
    workspace = workspace_of(request)
    installed = prepare_skill(request, workspace, [args.skills_dir])
    env = make_env(workspace, args)
    try:
        got = run(args, prompt, workspace, env)
    finally:  # the skill copy is the adapter's plumbing, no file the run created
        remove_installed(workspace, [args.skills_dir], installed)
    write_json(got.response())
    return 0


def record_tool_call(got: Collected, name: str, data: Any, completed: bool, skill_tool: str,
                     shell_tools: frozenset[str]) -> None:
    """One tool call of a CLI whose skill tool takes ``{"name": ...}`` (opencode, vibe): kept as
    steps; a completed skill-tool call, or a SKILL.md path in any string input, is a skill load."""
    got.add_steps(tool_events(name, data, shell=name in shell_tools))
    if name == skill_tool and completed and isinstance(data, dict):
        got.skill_loaded(str(data.get("name") or ""))
    elif isinstance(data, dict):
        for value in data.values():
            for skill in skills_read_in(value if isinstance(value, str) else ""):
                got.skill_loaded(skill)
