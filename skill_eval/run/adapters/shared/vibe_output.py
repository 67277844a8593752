"""Mistral Vibe's headless output read into a run (``Collected``): ``vibe -p ... --output json``
prints the session's entries as one JSON list, and ``--output-dir D`` writes ``D/export.json``
(usage, cost, steps, stop reason, outcome, error), where the only token counts are.

Entries: ``message`` (role user|assistant, ``content`` parts of type text) and ``effect`` (a tool
call: ``detail.toolName``, ``detail.input``, ``state.status``). A skill is loaded when Vibe's
``skill`` tool completes (its input ``name``) or a tool's input names ``skills/<name>/SKILL.md``.
Adapters run as ``python -m ...``: keep imports light.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skill_eval.run.adapters.shared.agentcli import Collected, number
from skill_eval.run.adapters.shared.headless import record_tool_call
from skill_eval.run.adapters.shared.protocol_io import fail, one_line

SKILL_TOOL = "skill"
SHELL_TOOLS = frozenset({"bash"})


def parse_vibe_output(stdout: Path) -> Collected:
    try:
        entries = json.loads(stdout.read_text(encoding="utf-8", errors="replace") or "[]")
    except ValueError as exc:
        fail(f"vibe's --output json is not JSON ({exc.msg} at line {exc.lineno})")
    if not isinstance(entries, list):
        fail("vibe's --output json is not a list of session entries")
    got = Collected()
    answer = ""
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "message" and entry.get("role") == "assistant":
            text = "".join(p.get("text", "") for p in entry.get("content") or []
                           if isinstance(p, dict) and p.get("type") == "text")
            answer = text or answer
        elif entry.get("type") == "effect":
            _effect(got, entry)
    got.output = answer
    return got


def _effect(got: Collected, entry: dict[str, Any]) -> None:
    detail = entry.get("detail") if isinstance(entry.get("detail"), dict) else {}
    state = entry.get("state") if isinstance(entry.get("state"), dict) else {}
    name = str(detail.get("toolName") or entry.get("title") or "tool")
    data = detail.get("input")
    record_tool_call(got, name, data, state.get("status") == "completed", SKILL_TOOL, SHELL_TOOLS)


def read_export(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def export_usage(export: dict[str, Any], priced: bool) -> dict[str, float]:
    """Tokens from export.json (its ``input_tokens`` include the cached ones, reported apart as
    ``cache_read_input_tokens``), turns, and the cost where Vibe had a price for the model."""
    usage: dict[str, float] = {}
    raw = export.get("usage") if isinstance(export.get("usage"), dict) else {}
    cached = number(raw.get("cached_input_tokens"))
    given = number(raw.get("input_tokens"))
    if given is not None:
        usage["input_tokens"] = given - (cached or 0)
    if cached is not None:
        usage["cache_read_input_tokens"] = cached
    out = number(raw.get("output_tokens"))
    if out is not None:
        usage["output_tokens"] = out
    steps = number(export.get("steps"))
    if steps is not None:
        usage["num_turns"] = steps
    cost = number(export.get("cost_usd"))
    if cost is not None and priced:
        usage["cost_usd"] = cost
    return usage


# export.json's outcome at ``--max-turns`` (exit status 3): the run stands, cut at its turn limit
# (a ``stop`` event that makes it unscorable, run/unscorable.py), not an adapter error.
TURN_LIMIT = "turn_limit"


def export_failure(export: dict[str, Any]) -> str | None:
    """Why the run did not finish, as export.json says (None when it finished, or stopped at
    its turn limit)."""
    if not export or export.get("outcome") in (None, "finished", TURN_LIMIT):
        return None
    error = export.get("error")
    text = error.get("message") if isinstance(error, dict) else error
    return one_line(f"{export.get('outcome')}" + (f": {text}" if text else "")
                    + (f" ({export['stop_reason']})" if export.get("stop_reason") else ""))
