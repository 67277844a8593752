"""OpenCode's ``opencode run --format json`` events read into a run (``Collected``).

One JSON object a line, each ``{type, timestamp, sessionID, part}``: ``step_start``, ``text``
(``part.text``), ``tool_use`` (``part.tool``, ``part.state``: status, input, output, error),
``step_finish`` (``part.reason``, ``part.tokens``: input, output, reasoning, cache read/write;
``part.cost``) and ``error``. The answer is the text of the last step that has any.

A skill is loaded when OpenCode's ``skill`` tool completes (its input ``name``) or a tool's input
names a ``skills/<name>/SKILL.md`` (``read``, a ``bash`` cat). Adapters run as ``python -m ...``:
keep imports light.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.shared.agentcli import Collected, json_lines, number
from skill_eval.run.adapters.shared.headless import record_tool_call

SKILL_TOOL = "skill"
SHELL_TOOLS = frozenset({"bash"})
_TOKENS = {"input": "input_tokens", "output": "output_tokens", "reasoning": "reasoning_output_tokens"}
_CACHE = {"read": "cache_read_input_tokens", "write": "cache_creation_input_tokens"}


@dataclass
class OpenCodeRun:
    got: Collected = field(default_factory=Collected)
    steps: int = 0  # step_finish events
    cost: float | None = None
    errors: list[str] = field(default_factory=list)
    stop: str | None = None


def parse_opencode_events(path: Path) -> OpenCodeRun:
    run = OpenCodeRun()
    got = run.got
    step_text: list[str] = []
    answer = ""
    for _n, ev in json_lines(path, "opencode"):
        kind = ev.get("type")
        part = ev.get("part") if isinstance(ev.get("part"), dict) else {}
        if kind == "step_start":
            step_text = []
        elif kind == "text" and isinstance(part.get("text"), str):
            step_text.append(part["text"])
            answer = "".join(step_text)
        elif kind == "tool_use":
            _tool(got, part)
        elif kind == "step_finish":
            run.steps += 1
            run.stop = str(part.get("reason") or "") or run.stop
            _add_tokens(got.usage, part.get("tokens"))
            cost = number(part.get("cost"))
            if cost is not None:
                run.cost = (run.cost or 0) + cost
        elif kind == "error":
            error = ev.get("error") if isinstance(ev.get("error"), dict) else {}
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            run.errors.append(str(data.get("message") or error.get("name") or ev.get("message") or "error"))
    got.output = answer
    got.usage["num_turns"] = run.steps
    return run


def _tool(got: Collected, part: dict[str, Any]) -> None:
    name = str(part.get("tool") or "tool")
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    data = state.get("input")
    record_tool_call(got, name, data, state.get("status") == "completed", SKILL_TOOL, SHELL_TOOLS)


def _add_tokens(usage: dict[str, float], tokens: Any) -> None:
    if not isinstance(tokens, dict):
        return
    for field_name, key in _TOKENS.items():
        value = number(tokens.get(field_name))
        if value is not None:
            usage[key] = usage.get(key, 0) + value
    cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
    for field_name, key in _CACHE.items():
        value = number(cache.get(field_name))
        if value is not None:
            usage[key] = usage.get(key, 0) + value
