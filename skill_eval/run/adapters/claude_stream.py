"""Claude Code's ``--output-format stream-json`` read: the steps (every tool call with its whole
input, subagents' marked, skill loads), the result event, and the session as ``claude plugin
eval``'s ``target: trace`` sees it (every stdout line that is JSON, re-encoded by
JSON.stringify, one per line), all from one read of the file (parse_claude_stream).

Adapters run as ``python -m ...``: keep this module's imports light.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_eval.intake.javascript.json_text import js_stringify
from skill_eval.run.adapters.shared.agentcli import Collected, json_values, skills_read_in
from skill_eval.run.adapters.shared.trajectory import CLAUDE_SHELL_TOOLS, SESSION_COMPLETE, tool_events

_READ_TOOLS = {"Read", "View", "NotebookRead", "Bash"}
_UNREAD = object()  # a session part not yet parsed


def _skill_from_input(data: Any) -> str | None:
    if not isinstance(data, dict):
        return None
    for key in ("skill", "command", "name"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            # "/pdf", "plugin:pdf" -> "pdf"
            return value.strip().lstrip("/").split(":")[-1].split()[0]
    return None


@dataclass(frozen=True)
class StreamRead:
    """All one pass over a stream-json file gives: the steps, the result event (None when the
    stream has none), the refused skills and, when asked for, the session."""

    got: Collected
    result: dict[str, Any] | None
    refused: frozenset[str]  # skills whose every Skill call the CLI answered with an error
    session: tuple[str, ...] = ()
    # js_stringify's failure on a line (a number past float range, nesting past the recursion
    # limit) fails the session's writing only: not the read, nor the turn-limit check.
    session_error: Exception | None = None

    def session_lines(self) -> list[str]:
        """The session, as ``session_lines`` reads it; raises what encoding a line of it raised."""
        if self.session_error is not None:
            raise self.session_error
        return list(self.session)


def parse_claude_stream(path: Path, *, session: bool = True) -> StreamRead:
    """Reads ``path`` once; ``session``: keep the session too."""
    got = Collected()
    result: dict[str, Any] | None = None
    calls: dict[str, str] = {}  # Skill tool_use id -> skill
    errored: dict[str, bool] = {}  # tool_use id -> its tool_result is an error
    kept: list[str] = []
    error: Exception | None = None
    for _lineno, line, ev in json_values(path, "claude"):
        if session and error is None:
            try:
                kept.extend(_session_entries(line, ev))
            except Exception as exc:  # raised where the session is asked for (StreamRead)
                error = exc
        if not isinstance(ev, dict):  # other JSON values carry no event: skip them
            continue
        _note_skill_calls(ev, calls, errored)
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
    names = set(calls.values())
    refused = frozenset(n for n in names if all(errored.get(i, False) for i, m in calls.items() if m == n))
    return StreamRead(got, result, refused, tuple(kept), error)


def _note_skill_calls(ev: dict[str, Any], calls: dict[str, str], errored: dict[str, bool]) -> None:
    """Records ``Skill`` calls and which tool results were errors, for the refused skills: those
    the CLI answered with an error at every call (turned off, e.g. by disable_bundled_skills;
    unknown; already running): asked for, never loaded."""
    message = ev.get("message") if isinstance(ev.get("message"), dict) else {}
    content = message.get("content") if isinstance(message.get("content"), list) else []
    for block in (b for b in content if isinstance(b, dict)):
        if block.get("type") == "tool_use" and block.get("name") == "Skill":
            name = _skill_from_input(block.get("input"))
            if name and isinstance(block.get("id"), str):
                calls[block["id"]] = name
        elif block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
            errored[block["tool_use_id"]] = block.get("is_error") is True


def _session_entries(line: str, value: Any) -> list[str]:
    """One stream line's part of the session. ``session_lines`` reads the file as text, where a
    lone CR ends a line too: a JSON line holding one (as whitespace) counts as its CR-split
    parts, each kept only when it is JSON by itself."""
    parts = [(line, value)] if "\r" not in line else [(p.strip(), _UNREAD) for p in line.split("\r")]
    out: list[str] = []
    for text, parsed in parts:
        if not text:
            continue
        try:
            out.append(js_stringify(json.loads(text) if parsed is _UNREAD else parsed))
        except ValueError:  # not JSON: skipped, as session_lines skips it
            continue
    return out


def session_lines(stream: Path) -> list[str]:
    """The session as plugin eval keeps it: each non-empty stdout line that parses as JSON,
    written again by JSON.stringify (so ``"type":"assistant"``, no spaces). The adapter takes
    the same lines from parse_claude_stream's one read, where a line that is not JSON fails."""
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


def write_session(lines: Sequence[str], target: Path | None) -> None:
    """The session at ``target`` (the request's ``session``), when one is asked for."""
    if target is None:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines), encoding="utf-8")
