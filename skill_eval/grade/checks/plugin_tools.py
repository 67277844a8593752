"""``plugin_tool_used``, ``plugin_tool_order`` and ``plugin_file_exists``: ``claude plugin eval``'s
``tool_used``, ``tool_order`` and ``file_exists`` graders, with its semantics (FORMAT.md §4;
settled against the real CLI, docs/dialects.md).

- The calls are every ``tool_call`` the adapter reported, in order, subagents' included. ``tool``
  is the exact, case-sensitive name (no glob: ``mcp__srv__*`` names no tool). ``input_match`` is
  a JavaScript regex (no flags) tested on the call's ``input_json`` (JSON.stringify's text).
- ``tool_used``: the matching calls number between ``min`` (default 1) and ``max`` (unlimited).
- ``tool_order``: both sides were called, and the first call matching ``before`` comes before
  the first call matching ``after``; a side is a tool name or ``{tool, input_match}``.
- ``file_exists``: some path the run created matches the glob ``path`` (``**/`` any folders,
  ``**`` anything, ``*`` anything but ``/``, ``?`` any one character, ``/`` included; dotfiles
  are not special; relative to the workspace); ``exists: false``: none does.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import NO_TRACE, CheckContext, CheckParamError, clip, traced
from skill_eval.grade.checks.shared.patterns import compile_js
from skill_eval.intake.javascript.json_text import js_stringify
from skill_eval.intake.javascript.regex import JsRegex, js_regex
from skill_eval.intake.limits import REGEX_TIMEOUT_MS
from skill_eval.intake.timedmatch import PatternTimedOut
from skill_eval.model.cases import Check

_SPECIAL = set(".+^${}()|[]\\")


def _calls(ctx: CheckContext) -> list[tuple[str, str | None]]:
    """(name, JSON.stringify of the input) of every call: from the kept session where there is
    one (what plugin eval reads: every tool_use block, subagents' too, in order), else from the
    events' ``input_json``."""
    messages = ctx.session_messages
    if messages is None:
        return [(e.name or "", e.input_json) for e in ctx.events if e.type == "tool_call"]
    out: list[tuple[str, str | None]] = []
    for message in messages:
        body = message.get("message") if message.get("type") == "assistant" else None
        content = body.get("content") if isinstance(body, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                given = block.get("input")
                out.append((str(block.get("name") or ""), js_stringify(given) if "input" in block else ""))
    return out


def _side(raw: Any, key: str) -> tuple[str, JsRegex | str | None]:
    if isinstance(raw, str) and raw:
        return raw, None
    if isinstance(raw, Mapping) and isinstance(raw.get("tool"), str) and raw["tool"]:
        match = raw.get("input_match")
        return raw["tool"], (compile_js(match, "", "input_match") if match not in (None, "") else None)
    raise CheckParamError(f"'{key}' must be a tool name or {{tool, input_match}}")


def _matches(call: tuple[str, str | None], tool: str, rx: JsRegex | None) -> bool:
    name, text = call
    return name == tool and (rx is None or rx.search(text or ""))


def _unreadable(rx: JsRegex | str | None, ctx: CheckContext) -> str | None:
    """Why the calls cannot be matched as plugin eval matches them, if they cannot."""
    if isinstance(rx, str):
        return rx
    if not traced(ctx):
        return NO_TRACE
    if rx is not None and any(text is None for _, text in _calls(ctx)):
        return "the adapter reported tool calls without their input (input_json); input_match needs it"
    return None


def _whole(params: Mapping[str, Any], key: str, default: int | None) -> int | None:
    value = params.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CheckParamError(f"'{key}' must be a whole number ≥ 0")
    return value


def plugin_tool_used(params: Mapping[str, Any], case_sensitive: bool,
                     ctx: CheckContext) -> tuple[bool, str]:
    tool, rx = _side({"tool": params.get("tool"), "input_match": params.get("input_match")}, "tool")
    low, high = _whole(params, "min", 1), _whole(params, "max", None)
    why = _unreadable(rx, ctx)
    if why is not None:
        return False, clip(why)
    assert not isinstance(rx, str)
    n = sum(1 for call in _calls(ctx) if _matches(call, tool, rx))
    ok = n >= (low or 0) and (high is None or n <= high)
    return ok, f"{tool} called {n}x (expected {low}..{'∞' if high is None else high})"


def plugin_tool_order(params: Mapping[str, Any], case_sensitive: bool,
                      ctx: CheckContext) -> tuple[bool, str]:
    before, after = _side(params.get("before"), "before"), _side(params.get("after"), "after")
    for _, rx in (before, after):
        why = _unreadable(rx, ctx)
        if why is not None:
            return False, clip(why)
    calls = _calls(ctx)

    def first(tool: str, rx: Any) -> int:
        return next((i for i, call in enumerate(calls) if _matches(call, tool, rx)), -1)

    at_b, at_a = first(*before), first(*after)
    if at_b < 0:
        return False, clip(f'"before" tool {before[0]} never called')
    if at_a < 0:
        return False, clip(f'"after" tool {after[0]} never called')
    ok = at_b < at_a
    return ok, clip(f"{before[0]}@{at_b} {'precedes' if ok else 'does NOT precede'} {after[0]}@{at_a}")


def glob_regex(glob: str) -> JsRegex:
    """Plugin eval's glob, as the whole-path JavaScript regex it builds, matched by the
    time-limited JavaScript-faithful matcher: a glob of many ``*`` against a long name the
    agent chose can backtrack for hours; here it fails the check at the time limit."""
    return js_regex(glob_source(glob))


def glob_source(glob: str) -> str:
    """The JavaScript regex source of plugin eval's glob."""
    out, i = "^", 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*" and glob.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
            continue
        if ch == "*" and glob.startswith("**", i):
            out, i = out + ".*", i + 2
            continue
        literal = "\\" + ch if ch in _SPECIAL else ch
        out += "[^/]*" if ch == "*" else "." if ch == "?" else literal
        i += 1
    return out + "$"


def plugin_file_exists(params: Mapping[str, Any], case_sensitive: bool,
                       ctx: CheckContext) -> tuple[bool, str]:
    path, exists = params.get("path"), params.get("exists", True)
    if not isinstance(path, str) or not path:
        raise CheckParamError("'path' must be a non-empty glob")
    if not isinstance(exists, bool):
        raise CheckParamError("'exists' must be true or false")
    rx = glob_regex(path)
    try:
        found = any(rx.search(line.strip()) for line in ctx.created_files() if line.strip())
    except PatternTimedOut:
        return False, clip(f"glob {path} timed out after {REGEX_TIMEOUT_MS} ms on a created file's name "
                           "(it backtracks: use fewer wildcards)")
    if found == exists:
        return True, clip(f"{path} {'exists' if exists else 'absent'} as expected")
    expected = "present" if exists else "absent"
    return False, clip(f"{path} {'exists' if found else 'missing'} (expected {expected})")


def _js_problem(check: Check, keys: tuple[str, ...]) -> str | None:
    """A JavaScript pattern under ``keys`` (a side's ``input_match``) with no faithful translation."""
    try:
        for key in keys:
            side = check.params.get(key)
            pattern = side.get("input_match") if isinstance(side, dict) else side
            if pattern in (None, "") or (key in ("before", "after") and isinstance(side, str)):
                continue
            compile_js(pattern, "", key)
    except CheckParamError as e:
        return str(e)
    return None


PLUGIN_TOOL_USED = CheckType(
    "plugin_tool_used", plugin_tool_used,
    ("`claude plugin eval`'s `tool_used` grader: the calls of the tool named exactly `tool` (subagents' "
     "calls included) whose input, as JSON.stringify writes it, matches the JavaScript regex `input_match` "
     "number between `min` and `max`."),
    {
        "tool": {
            "type": "string",
            "minLength": 1,
            "description": "The tool's exact name (Skill, Read, mcp__server__tool, ...).",
        },
        "input_match": {
            "type": "string",
            "x-regex": "javascript",
            "description": "A JavaScript regex over the call's JSON-encoded input.",
        },
        "min": {"type": "integer", "minimum": 0, "description": "The fewest matching calls (default 1)."},
        "max": {
            "type": "integer",
            "minimum": 0,
            "description": "The most matching calls (default unlimited).",
        },
    },
    required=("tool",),
    problem=partial(_js_problem, keys=("input_match",)),
)

# A side of tool_order: a tool name, or a tool and a JavaScript regex its input must match.
_SIDE = {
    "oneOf": [
        {"type": "string", "minLength": 1},
        {"type": "object", "additionalProperties": False, "required": ["tool"],
         "properties": {"tool": {"type": "string", "minLength": 1},
                        "input_match": {"type": "string", "x-regex": "javascript"}}},
    ],
    "description": "A tool name or {tool, input_match}.",
}

PLUGIN_TOOL_ORDER = CheckType(
    "plugin_tool_order", plugin_tool_order,
    ("`claude plugin eval`'s `tool_order` grader: both sides were called, and the first call matching "
     "`before` comes before the first call matching `after`."),
    {
        "before": _SIDE,
        "after": _SIDE,
    },
    required=("before", "after"),
    problem=partial(_js_problem, keys=("before", "after")),
)

PLUGIN_FILE_EXISTS = CheckType(
    "plugin_file_exists", plugin_file_exists,
    ("`claude plugin eval`'s `file_exists` grader: some file the run created (not the scaffold's, not one "
     "it only modified) matches the glob `path` (`**/` any folders, `*` anything but `/`, `?` any "
     "character); with `exists: false`, none does."),
    {
        "path": {"type": "string", "minLength": 1, "description": "A glob relative to the workspace."},
        "exists": {
            "type": "boolean",
            "default": True,
            "description": "false: pass when no created file matches.",
        },
    },
    required=("path",),
)
