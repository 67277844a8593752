"""Trace checks over the adapter's events: which commands ran (``command {argv}``), which tools
were called (``tool_call {name}``), in what order and how often.

A check that needs events the adapter did not report fails with that reason: a trace nobody
recorded is not a clean trace. Patterns are searched by the time-limited matcher
(intake/timedmatch): one that cannot finish fails the check instead of hanging grading.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import NO_TRACE, CheckContext, CheckParamError, clip, traced
from skill_eval.grade.checks.shared.patterns import compiled
from skill_eval.intake.timedmatch import search
from skill_eval.model.results import loads_skill

if TYPE_CHECKING:
    import regex as rx_engine

# Tool names that stand for "a shell command" when a check names a tool.
SHELL_NAMES = ("bash", "shell", "command")


def _commands(ctx: CheckContext) -> list[str]:
    return [shlex.join(e.argv) for e in ctx.events if e.type == "command" and e.argv]


def _steps(ctx: CheckContext) -> list[tuple[str, str]]:
    """(tool name, text to match) of every tool call and command, in order. A shell tool call
    followed by the command it ran (agent adapters report both) is one step, named by the tool
    and matched on its name and command."""
    out: list[tuple[str, str]] = []
    events = list(ctx.events)
    for i, e in enumerate(events):
        if e.type == "tool_call" and e.name and not loads_skill(events, i):
            out.append((e.name, e.name))
        elif e.type == "command" and e.argv:
            before = events[i - 1] if i else None
            if before is not None and before.type == "tool_call" and before.name and out \
                    and out[-1] == (before.name, before.name):
                out[-1] = (before.name, f"{before.name} {shlex.join(e.argv)}")
            else:
                out.append(("bash", shlex.join(e.argv)))
    return out


def _pattern(params: Mapping[str, Any], case_sensitive: bool, key: str = "pattern") -> rx_engine.Pattern[str]:
    raw = params.get(key)
    if not isinstance(raw, str) or not raw:
        raise CheckParamError(f"'{key}' must be a non-empty regular expression")
    return compiled(raw, case_sensitive)


def _patterns(params: Mapping[str, Any], case_sensitive: bool, key: str) -> list[rx_engine.Pattern[str]]:
    raw = params.get(key)
    if not isinstance(raw, list) or not raw or not all(isinstance(p, str) and p for p in raw):
        raise CheckParamError(f"'{key}' must be a non-empty list of regular expressions")
    return [compiled(p, case_sensitive) for p in raw]


def _limit(params: Mapping[str, Any], key: str = "max") -> float:
    value = params.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise CheckParamError(f"'{key}' must be a number ≥ 0")
    return float(value)


def command_ran(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    rx = _pattern(params, case_sensitive)
    commands = _commands(ctx)
    if not traced(ctx):
        return False, NO_TRACE
    hit = next((c for c in commands if search(rx, c)), None)
    return (True, clip(f"ran {hit!r}")) if hit else (False, clip(f"no command matched /{rx.pattern}/ "
                                                               f"among {len(commands)} command(s)"))


def command_not_ran(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    rx = _pattern(params, case_sensitive)
    if not traced(ctx):
        return False, NO_TRACE
    hit = next((c for c in _commands(ctx) if search(rx, c)), None)
    return (False, clip(f"ran {hit!r}, which matches /{rx.pattern}/")) if hit else (
        True, clip(f"no command matched /{rx.pattern}/"))


def _in_order(patterns: list[rx_engine.Pattern[str]], texts: list[str]) -> tuple[bool, str]:
    at, matched = 0, []
    for rx in patterns:
        found = next((i for i in range(at, len(texts)) if search(rx, texts[i])), None)
        if found is None:
            return False, clip(f"no /{rx.pattern}/ after step {at}; matched so far: {matched}")
        matched.append(texts[found])
        at = found + 1
    return True, clip(f"in order: {matched}")


def command_order(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    patterns = _patterns(params, case_sensitive, "patterns")
    if not traced(ctx):
        return False, NO_TRACE
    return _in_order(patterns, _commands(ctx))


def command_count_le(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    limit = _limit(params)
    if not traced(ctx):
        return False, NO_TRACE
    n = len(_commands(ctx))
    return n <= limit, f"{n} command(s) {'≤' if n <= limit else '>'} max {limit:g}"


def no_repeated_command_loop(params: Mapping[str, Any], case_sensitive: bool,
                             ctx: CheckContext) -> tuple[bool, str]:
    limit = _limit(params)
    if not traced(ctx):
        return False, NO_TRACE
    commands = _commands(ctx)
    worst, times = max(Counter(commands).items(), key=lambda kv: kv[1], default=("", 0))
    shown = f" ({worst!r})" if worst else ""
    return times <= limit, clip(f"most repeated command ran {times} time(s){shown}; max {limit:g}")


def _selected(params: Mapping[str, Any], ctx: CheckContext) -> list[tuple[str, str]]:
    tool = params.get("tool")
    if tool is not None and (not isinstance(tool, str) or not tool):
        raise CheckParamError("'tool' must be a non-empty tool name")
    steps = _steps(ctx)
    if not tool:
        return steps
    want = tool.casefold()
    return [s for s in steps
            if s[0].casefold() == want or (want in SHELL_NAMES and s[0].casefold() == "bash")]


def tool_call(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    """One of: ``expected_no_call``, ``required_calls``, ``call_set``, ``order``, else a count of
    calls matching ``tool`` / ``pattern`` between ``min_count`` (1) and ``max_count``."""
    if not traced(ctx):
        return False, NO_TRACE
    names = [name.casefold() for name, _ in _steps(ctx) if name != "bash"]
    if params.get("expected_no_call"):
        seen = [name for name, _ in _steps(ctx)]
        if "pattern" in params:
            rx = _pattern(params, case_sensitive)
            bad = sorted({n for n in seen if search(rx, n)})
        elif params.get("tool"):
            bad = sorted({n for n in seen if n.casefold() == str(params["tool"]).casefold()})
        else:
            bad = sorted(set(seen))
        return (not bad), clip("no matching tool call, as expected" if not bad else f"called {bad}")
    for key in ("required_calls", "call_set"):
        want = params.get(key)
        if want is None:
            continue
        if not isinstance(want, list) or not want or not all(isinstance(w, str) and w for w in want):
            raise CheckParamError(f"'{key}' must be a non-empty list of tool names")
        if key == "required_calls":
            missing = sorted({w for w in want if w.casefold() not in names})
            return (not missing), clip(f"all {len(want)} required tool(s) called" if not missing
                                       else f"not called: {missing}; called: {sorted(set(names))}")
        wanted, got = Counter(w.casefold() for w in want), Counter(names)
        if wanted == got:
            return True, clip(f"exactly the calls {sorted(wanted.elements())}")
        return False, clip(f"missing {sorted((wanted - got).elements())}; "
                           f"unexpected {sorted((got - wanted).elements())}")
    selected = [text for _, text in _selected(params, ctx)]
    if "order" in params:
        return _in_order(_patterns(params, case_sensitive, "order"), selected)
    if "pattern" in params:
        rx = _pattern(params, case_sensitive)
        selected = [t for t in selected if search(rx, t)]
    low = params.get("min_count", 1)
    high = params.get("max_count")
    if isinstance(low, bool) or not isinstance(low, int) or (high is not None and (
            isinstance(high, bool) or not isinstance(high, int))):
        raise CheckParamError("'min_count' and 'max_count' must be whole numbers")
    n = len(selected)
    what = (f"{n} matching call(s) (tool {params.get('tool') or 'any'}, "
            f"pattern {params.get('pattern') or 'any'})")
    if n < low:
        return False, clip(f"{what} < min_count {low}")
    if high is not None and n > high:
        return False, clip(f"{what} > max_count {high}")
    return True, clip(what + (f"; first: {selected[0]!r}" if selected else ""))


def tool_count_le(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    limit = _limit(params)
    if not traced(ctx):
        return False, NO_TRACE
    n = len(_selected(params, ctx))
    verdict = "≤" if n <= limit else ">"
    return n <= limit, f"{n} tool call(s) (tool {params.get('tool') or 'any'}) {verdict} max {limit:g}"


COMMAND_RAN = CheckType(
    "command_ran", command_ran,
    "Passes when a `command` event's command line matches `pattern`. No trace events fails, saying so.",
    {
        "pattern": {
            "type": "string",
            "minLength": 1,
            "x-regex": "python",
            "description": "A regular expression over the command line.",
        },
    },
    required=("pattern",),
)

COMMAND_NOT_RAN = CheckType(
    "command_not_ran", command_not_ran,
    ("Passes when no `command` event's command line matches `pattern` (fails when the adapter reported no "
     "trace)."),
    {
        "pattern": {
            "type": "string",
            "minLength": 1,
            "x-regex": "python",
            "description": "A regular expression over the command line.",
        },
    },
    required=("pattern",),
)

COMMAND_ORDER = CheckType(
    "command_order", command_order,
    "Passes when commands matching each of `patterns` ran in that order (others may come between).",
    {
        "patterns": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1, "x-regex": "python"},
            "description": "Regular expressions, in the order the commands must run.",
        },
    },
    required=("patterns",),
)

COMMAND_COUNT_LE = CheckType(
    "command_count_le", command_count_le,
    "Passes when at most `max` commands ran.",
    {"max": {"type": "number", "minimum": 0, "description": "The most commands allowed."}},
    required=("max",),
)

NO_REPEATED_COMMAND_LOOP = CheckType(
    "no_repeated_command_loop", no_repeated_command_loop,
    "Passes when no single command line ran more than `max` times.",
    {"max": {"type": "number", "minimum": 0, "description": "The most times one command line may run."}},
    required=("max",),
)

TOOL_CALL = CheckType(
    "tool_call", tool_call,
    ("One of: `expected_no_call` (no matching call), `required_calls` (each named tool called), `call_set` "
     "(exactly these calls), `order` (calls matching these patterns in order); else passes when the number "
     "of calls matching `tool` and `pattern` is between `min_count` (default 1) and `max_count`. A shell "
     "`command` event counts as a call of tool `bash`."),
    {
        "tool": {
            "type": "string",
            "minLength": 1,
            "description": "The tool's name (case-insensitive; bash/shell/command match command events).",
        },
        "pattern": {
            "type": "string",
            "minLength": 1,
            "x-regex": "python",
            "description": "A regular expression over the tool name (the command line for shell commands).",
        },
        "expected_no_call": {"type": "boolean", "description": "true: pass when no matching call was made."},
        "required_calls": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1},
            "description": "Tools that must each be called.",
        },
        "call_set": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1},
            "description": "Exactly this multiset of tool calls.",
        },
        "order": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1, "x-regex": "python"},
            "description": "Regular expressions the calls must match in order.",
        },
        "min_count": {
            "type": "integer",
            "minimum": 0,
            "description": "The fewest matching calls (default 1).",
        },
        "max_count": {"type": "integer", "minimum": 0, "description": "The most matching calls."},
    },
)

TOOL_COUNT_LE = CheckType(
    "tool_count_le", tool_count_le,
    "Passes when at most `max` tool calls (of `tool`, when given) were made.",
    {
        "max": {"type": "number", "minimum": 0, "description": "The most tool calls allowed."},
        "tool": {"type": "string", "minLength": 1, "description": "Count only this tool's calls."},
    },
    required=("max",),
)
