"""An agent's steps as protocol events, for the review page and trace checks: every tool call
(``tool_call`` with its name and a bounded preview of its input), every shell command
(``command`` with its argv, right after the tool call that ran it), and why the agent stopped
(``stop``). Previews are cut here and redacted by the runner and the store, like all events.

Codex >= 0.1xx runs shell commands from a JavaScript ``exec`` tool and its ``--json`` stream no
longer reports them as items; its session log (``$CODEX_HOME/sessions/**/rollout-*.jsonl``)
still holds every call, so its steps are read from there when the stream has none.

Adapters run as ``python -m ...``: keep this module's imports light.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from skill_eval.intake.javascript.json_text import js_stringify
from skill_eval.run.adapters.shared.codex_session_log import session_calls

PREVIEW_CHARS = 400
# Said by an adapter that reports every step of the session (claude-code, codex): a run with no
# tool_call event then made no call, where another adapter's silence says nothing.
SESSION_COMPLETE = {"type": "session", "name": "complete"}
# Tools whose input is a shell command line: the call is reported with a ``command`` event.
_SHELL_KEYS = ("command", "cmd")
CLAUDE_SHELL_TOOLS = frozenset({"Bash"})
_CODEX_SHELL_TOOLS = frozenset({"shell", "shell_command", "exec_command", "local_shell", "container.exec"})
# A nested call in Codex's code mode: tools.exec_command({cmd: "..."}) (also 'command:').
_NESTED = re.compile(r"""exec_command\(\s*\{\s*(?:cmd|command)\s*:\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def preview(data: Any) -> str:
    """A tool input as one bounded line (JSON for structures)."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 3] + "..."


def argv_of(command: Any) -> list[str] | None:
    """A command as argv: a list as given, a string split like a shell would (kept whole when
    it cannot be split, e.g. an unbalanced quote)."""
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        return list(command)
    if not isinstance(command, str) or not command.strip():
        return None
    try:
        return shlex.split(command) or None
    except ValueError:
        return [command]


def _unwrapped(argv: list[str]) -> list[str]:
    """``bash -lc 'ls inputs'`` -> ``ls inputs``: the command the agent asked for, not the shell
    its CLI wraps every command in."""
    if len(argv) == 3 and Path(argv[0]).name in ("bash", "sh", "zsh", "dash") and argv[1] in ("-c", "-lc"):
        return argv_of(argv[2]) or argv
    return argv


def codex_item_events(tool: str, item: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of a tool item in Codex's --json stream (command_execution, file_change, ...)."""
    data = {k: item[k] for k in ("command", "changes", "query", "arguments", "server", "tool") if k in item}
    kind = item.get("type") or item.get("item_type")  # item_type: early versions
    return tool_events(tool, data or None, shell=kind == "command_execution")


def tool_events(name: str, data: Any, shell: bool, subagent: bool = False) -> list[dict[str, Any]]:
    """The events of one tool call: the call (its input as a preview for the page and whole as
    ``input_json``, JSON.stringify's text, which plugin eval's ``input_match`` reads), and its
    command when it is a shell tool."""
    events: list[dict[str, Any]] = [{"type": "tool_call", "name": name,
                                     "input_json": js_stringify(data) if data is not None else ""}]
    if subagent:
        events[0]["subagent"] = True
    if data not in (None, "", {}):
        events[0]["input"] = preview(data)
    if shell and isinstance(data, dict):
        argv = next((argv_of(data[k]) for k in _SHELL_KEYS if k in data), None)
        if argv:
            events.append({"type": "command", "argv": _unwrapped(argv)})
    return events


def claude_stop(result: dict[str, Any]) -> str | None:
    """Why Claude Code stopped: ``max_turns`` at its turn limit, else the model's stop reason."""
    subtype = str(result.get("subtype") or "")
    if subtype == "error_max_turns" or result.get("terminal_reason") == "max_turns":
        return "max_turns"
    reason = result.get("stop_reason") or result.get("terminal_reason")
    return str(reason) if reason else None


def _codex_call(payload: dict[str, Any]) -> list[dict[str, Any]]:
    kind, name = payload.get("type"), str(payload.get("name") or payload.get("type") or "tool")
    if kind == "custom_tool_call":
        code = payload.get("input")
        events = tool_events(name, code if isinstance(code, str) else None, shell=False)
        for m in _NESTED.finditer(code if isinstance(code, str) else ""):
            raw = m.group(1)
            try:
                line = json.loads(raw) if raw.startswith('"') else raw[1:-1]
            except ValueError:
                line = raw[1:-1]
            argv = argv_of(line)
            if argv:
                events.append({"type": "command", "argv": _unwrapped(argv)})
        return events
    if kind == "function_call":
        raw = payload.get("arguments")
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            args = raw
        return tool_events(name, args, shell=name in _CODEX_SHELL_TOOLS)
    if kind == "local_shell_call":
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        return tool_events("local_shell", {"command": action.get("command")}, shell=True)
    return []


def codex_session_steps(home: str | None, thread_id: str | None) -> list[dict[str, Any]]:
    """Tool calls and commands of one Codex thread, in order, from its session log."""
    return [e for payload in session_calls(home, thread_id) for e in _codex_call(payload)]
