"""Claude Code's ``--output-format stream-json`` read: the steps (every tool call with its whole
input, subagents' marked, skill loads), the result event, and the session as ``claude plugin
eval``'s ``target: trace`` sees it (every stdout line that is JSON, re-encoded by
JSON.stringify, one per line).

Adapters run as ``python -m ...``: keep this module's imports light.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skill_eval.intake.javascript.json_text import js_stringify
from skill_eval.run.adapters.shared.agentcli import Collected, json_lines, skills_read_in
from skill_eval.run.adapters.shared.trajectory import CLAUDE_SHELL_TOOLS, SESSION_COMPLETE, tool_events

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
            inside = ev.get("parent_tool_use_id") is not None  # a subagent's message
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict) or block.get("type") != "tool_use":
                    continue
                tool = str(block.get("name") or "")
                data = block.get("input")
                got.events.extend(tool_events(tool or "unknown", data, tool in CLAUDE_SHELL_TOOLS, inside))
                if tool == "Skill":
                    name = _skill_from_input(data)
                    if name:
                        got.skill_loaded(name)
                    continue
                if tool in _READ_TOOLS and isinstance(data, dict):
                    for key in ("file_path", "path", "notebook_path", "command"):
                        if isinstance(data.get(key), str):
                            for name in skills_read_in(data[key]):
                                got.skill_loaded(name)
        elif kind == "result":
            result = ev
    got.events.append(dict(SESSION_COMPLETE))
    return got, result


def refused_skill_calls(path: Path) -> set[str]:
    """Skills whose every ``Skill`` call the CLI answered with an error (turned off, e.g. by
    disable_bundled_skills; unknown; already running): asked for, never loaded."""
    calls: dict[str, str] = {}  # tool_use id -> skill
    errored: dict[str, bool] = {}  # tool_use id -> its tool_result is an error
    for _lineno, ev in json_lines(path, "claude"):
        message = ev.get("message") if isinstance(ev.get("message"), dict) else {}
        content = message.get("content") if isinstance(message.get("content"), list) else []
        for block in (b for b in content if isinstance(b, dict)):
            if block.get("type") == "tool_use" and block.get("name") == "Skill":
                name = _skill_from_input(block.get("input"))
                if name and isinstance(block.get("id"), str):
                    calls[block["id"]] = name
            elif block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                errored[block["tool_use_id"]] = block.get("is_error") is True
    names = set(calls.values())
    return {n for n in names if all(errored.get(i, False) for i, m in calls.items() if m == n)}


def session_lines(stream: Path) -> list[str]:
    """The session as plugin eval keeps it: each non-empty stdout line that parses as JSON,
    written again by JSON.stringify (so ``"type":"assistant"``, no spaces)."""
    out: list[str] = []
    with open(stream, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(js_stringify(json.loads(line)))
            except ValueError:
                continue
    return out


def write_session(stream: Path, target: Path | None) -> None:
    """The session at ``target`` (the request's ``session``), when one is asked for."""
    if target is None:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(session_lines(stream)), encoding="utf-8")
