"""Gemini CLI's ``--output-format stream-json`` read into a run (``Collected``).

Events, one JSON object a line: ``init`` (session_id, the model asked for), ``message`` (role
user|assistant; assistant text arrives in ``delta`` pieces), ``tool_use`` (tool_name, tool_id,
parameters), ``tool_result`` (tool_id, status success|error, output), ``error`` and the closing
``result`` (status, ``stats``: tokens overall and per served model, no cost).

A skill is loaded when an ``activate_skill`` call succeeds (its parameter ``name``) or when a
tool reads a ``skills/<name>/SKILL.md`` (``read_file`` with the policy withholding
activate_skill, a shell ``cat``). Adapters run as ``python -m ...``: keep imports light.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.shared.agentcli import Collected, json_lines, number, skills_read_in
from skill_eval.run.adapters.shared.trajectory import tool_events

SKILL_TOOL = "activate_skill"
SHELL_TOOLS = frozenset({"run_shell_command"})
# stats -> our usage keys: "input" is the prompt minus its cached part, "cached" that part.
_STATS = {"input": "input_tokens", "output_tokens": "output_tokens", "cached": "cache_read_input_tokens"}


@dataclass
class GeminiStream:
    got: Collected = field(default_factory=Collected)
    result: dict[str, Any] | None = None
    errors: list[str] = field(default_factory=list)
    session_id: str | None = None


def parse_gemini_stream(path: Path) -> GeminiStream:
    read = GeminiStream()
    got = read.got
    text: list[str] = []
    pending: dict[str, tuple[str, Any]] = {}  # tool_id -> (name, parameters) awaiting its result
    for _n, ev in json_lines(path, "gemini"):
        kind = ev.get("type")
        if kind == "init":
            read.session_id = ev.get("session_id") if isinstance(ev.get("session_id"), str) else None
        elif kind == "message" and ev.get("role") == "assistant" and isinstance(ev.get("content"), str):
            if not ev.get("delta"):
                text.clear()  # a whole message replaces the pieces before it
            text.append(ev["content"])
        elif kind == "tool_use":
            name, params = str(ev.get("tool_name") or "tool"), ev.get("parameters")
            got.add_steps(tool_events(name, params, shell=name in SHELL_TOOLS))
            pending[str(ev.get("tool_id"))] = (name, params)
            if name not in (SKILL_TOOL,) and isinstance(params, dict):
                for value in params.values():
                    for skill in skills_read_in(value if isinstance(value, str) else ""):
                        got.skill_loaded(skill)
        elif kind == "tool_result":
            name, params = pending.pop(str(ev.get("tool_id")), ("", None))
            if name == SKILL_TOOL and ev.get("status") == "success" and isinstance(params, dict):
                got.skill_loaded(str(params.get("name") or ""))
        elif kind == "error":
            read.errors.append(str(ev.get("message") or ev.get("error") or ev))
        elif kind == "result":
            read.result = ev
    got.output = "".join(text)
    if read.result is not None:
        got.usage, served = usage_of(read.result.get("stats"))
        got.model = served or got.model
    return read


def usage_of(stats: Any) -> tuple[dict[str, float], str | None]:
    """Tokens as Gemini CLI reports them (overall and ``model/<name>/...`` per served model), and
    the model that wrote the most. No cost: Gemini CLI reports none, so none is claimed."""
    if not isinstance(stats, dict):
        return {}, None
    usage: dict[str, float] = {}
    for field_name, key in _STATS.items():
        value = number(stats.get(field_name))
        if value is not None:
            usage[key] = value
    if "input_tokens" not in usage and number(stats.get("input_tokens")) is not None:
        usage["input_tokens"] = stats["input_tokens"]
    models = stats.get("models") if isinstance(stats.get("models"), dict) else {}
    for name, entry in sorted(models.items()):
        for field_name, key in _STATS.items():
            value = number(entry.get(field_name)) if isinstance(entry, dict) else None
            if value is not None:
                usage[f"model/{name}/{key}"] = value

    def written(name: str) -> float:
        entry = models.get(name)
        return float(number(entry.get("output_tokens")) or 0) if isinstance(entry, dict) else 0.0

    served = max(sorted(models), key=written) if models else None
    return usage, served
