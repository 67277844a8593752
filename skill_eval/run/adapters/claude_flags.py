"""A request's case settings and mocked MCP servers as Claude Code's own flags (the builtin
claude-code adapter): ``--max-turns``, ``--permission-mode dontAsk`` with ``--allowedTools`` /
``--disallowedTools``, ``--append-system-prompt``, and ``--mcp-config`` with
``--strict-mcp-config`` so the mocked servers are the session's only MCP servers; and the plugin
a with-skill run loads whole, ``--plugin-dir``, as ``claude plugin eval`` loads it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def settings_args(settings: dict[str, Any], ask_set: bool = False,
                  mock_tools: Sequence[str] = ()) -> list[str]:
    """A request's ``settings`` (docs/protocol.md) as Claude Code's own flags. Tool lists are one
    ``=``-joined argument each, so a variadic flag cannot swallow what follows. ``mock_tools``
    (the mocked MCP servers' tools) are granted too: a mocked tool needs no grant in plugin eval."""
    out: list[str] = []
    if settings.get("max_turns") is not None:
        out += ["--max-turns", str(int(settings["max_turns"]))]
    # Never ask: a tool outside the grants is refused, as in plugin eval's child sessions.
    if "allowed_tools" in settings and not ask_set:
        out += ["--permission-mode", "dontAsk"]
    granted = [*(settings.get("allowed_tools") or []), *mock_tools]
    if granted:
        out.append("--allowedTools=" + ",".join(granted))
    if settings.get("disallowed_tools"):
        out.append("--disallowedTools=" + ",".join(settings["disallowed_tools"]))
    if settings.get("append_system_prompt"):
        out.append("--append-system-prompt=" + str(settings["append_system_prompt"]))
    return out


def mcp_args(servers: Sequence[dict[str, Any]]) -> list[str]:
    """The request's ``mcp_servers`` (mocked servers) as the session's only MCP servers."""
    if not servers:
        return []
    config = {"mcpServers": {
        str(s["name"]): {"type": "stdio", "command": str(s["command"]),
                         "args": [str(a) for a in s.get("args") or []],
                         "env": {str(k): str(v) for k, v in (s.get("env") or {}).items()}}
        for s in servers}}
    return ["--mcp-config=" + json.dumps(config), "--strict-mcp-config"]


def plugin_args(folder: Path | None) -> list[str]:
    """The request's plugin (its copy in the workspace) loaded for this session only: its
    commands, agents, hooks, skills and MCP servers (the declared servers stay unstarted:
    ``--strict-mcp-config`` keeps to the mocked ones, as plugin eval's default ``--mocks record``)."""
    return ["--plugin-dir", str(folder)] if folder is not None else []
