"""``plugin_regex``: a ``claude plugin eval`` ``regex`` grader, with its semantics (FORMAT.md §4).

The pattern is JavaScript's (``new RegExp(pattern, flags)``); ``match`` is ``contains`` (the
default: ``test``), ``not_contains`` or ``count:N`` (exactly N matches of the pattern with ``g``
added, whatever the flags say: plugin eval counts ``text.match`` of a global copy). The target is
``last_message`` (the text of the last assistant message that had text), ``trace`` (the kept
session, one JSON.stringify'd message per line), ``files`` (paths the run created, one per
line), ``{source: file, path}`` (a workspace file after the run) or ``mock_calls``.

A pattern JavaScript rejects (inline ``(?i)``) makes plugin eval's grader throw, so the check
fails saying so; a pattern that has no faithful translation here is invalid input (load error).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip
from skill_eval.grade.checks.shared.patterns import compile_js
from skill_eval.grade.checks.shared.plugin_mocks import UNAVAILABLE, mock_calls_text
from skill_eval.intake.limits import MAX_NUMBER_DIGITS
from skill_eval.model.cases import Check

TARGETS = ("last_message", "trace", "files", "mock_calls")


def last_assistant_text(ctx: CheckContext) -> str:
    """Plugin eval's ``last_message``: the text blocks (joined by newlines) of the last assistant
    message that had any, from the kept session; the run's output when no session was kept."""
    messages = ctx.session_messages
    if messages is None:
        return ctx.output
    last = None
    for message in messages:
        if message.get("type") != "assistant":
            continue
        body = message.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        blocks = content if isinstance(content, list) else []
        texts = [str(b.get("text") or "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        if texts:
            last = "\n".join(texts)
    return ctx.output if last is None else last


def _target_text(target: Any, ctx: CheckContext) -> tuple[str | None, str]:
    """(the text the grader sees, or None when there is none, and what it is called)."""
    if target == "last_message":
        return last_assistant_text(ctx), "last_message"
    if target == "trace":
        return ctx.session_text, "trace"
    if target == "files":
        return "\n".join(ctx.created_files()), "files"
    if target == "mock_calls":
        return mock_calls_text(ctx), "mock_calls"
    if isinstance(target, Mapping) and target.get("source") == "file" and isinstance(
            target.get("path"), str):
        rel = target["path"]
        if ctx.files_dir is None:
            return None, f"file {rel}"
        path = ctx.files_dir / rel
        try:
            resolved = path.resolve()
            resolved.relative_to(ctx.files_dir.resolve())
            return resolved.read_bytes().decode("utf-8", "replace").removeprefix("\ufeff"), f"file {rel}"
        except (OSError, ValueError):
            return None, f"file {rel}"
    raise CheckParamError(f"'target' must be one of {', '.join(TARGETS)} or {{source: file, path: ...}}, "
                          f"not {target!r}")


def plugin_regex(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    pattern, flags = params.get("pattern"), params.get("flags", "")
    match = params.get("match", "contains")
    if not isinstance(match, str) or not (
            match in ("contains", "not_contains") or match.startswith("count:")):
        raise CheckParamError(f"'match' must be contains, not_contains or count:N, not {match!r}")
    rx = compile_js(pattern, flags)
    target = {"source": "file", "path": params["file"]} if "file" in params else params.get("target",
                                                                                             "last_message")
    text, where = _target_text(target, ctx)
    if isinstance(rx, str):
        return False, clip(rx)
    if text is None:
        why = ("the adapter kept no session (target: trace needs claude-code)" if where == "trace"
               else UNAVAILABLE if where == "mock_calls" else f"{where} does not exist")
        return False, clip(why)
    if match == "contains":
        hit = rx.search(text)
        return hit, clip(f"matched {pattern}" if hit else f"pattern not found in {where}")
    if match == "not_contains":
        hit = rx.search(text)
        return (not hit), clip("pattern found (expected absent)" if hit else "pattern absent as expected")
    want = _count(match)
    n = rx.count(text)
    return n == want, f"found {n} matches (expected {want})"


def _count(match: str) -> int:
    """``count:N`` as plugin eval reads it (``parseInt``: leading digits; none is never equal)."""
    digits = ""
    for ch in match[6:].lstrip():
        if not ch.isdigit() or not ch.isascii():
            break
        digits += ch
    if not digits:
        return -1  # NaN: no count equals it
    # Past the digit bound no text holds that many matches (and int() would refuse it).
    return int(digits) if len(digits) <= MAX_NUMBER_DIGITS else -1


def _pattern_problem(check: Check) -> str | None:
    pattern = check.params.get("pattern")
    if pattern in (None, ""):
        return None
    try:
        compile_js(pattern, check.params.get("flags", ""), "pattern")
    except CheckParamError as e:
        return str(e)
    return None


PLUGIN_REGEX = CheckType(
    "plugin_regex", plugin_regex,
    ("`claude plugin eval`'s `regex` grader, with its semantics: the JavaScript `pattern` (with `flags`) "
     "is found in the target (`match: contains`, the default), is absent (`not_contains`), or matches "
     "exactly N times (`count:N`, counted as with the `g` flag whatever `flags` says). A pattern "
     "JavaScript rejects (inline `(?i)`) fails, as plugin eval's grader throws on it."),
    {
        "pattern": {"type": "string", "minLength": 1, "x-regex": "javascript",
                    "description": "A JavaScript regular expression."},
        "flags": {"type": "string", "description": "JavaScript flags: i, m, s, u, g, d."},
        "match": {
            "type": "string",
            "pattern": "^(contains|not_contains|count:.*)$",
            "description": "contains (default), not_contains or count:N.",
        },
        "target": {
            "enum": ["last_message", "trace", "files", "mock_calls"],
            "description": ("What is searched: the last assistant text (default), the session as JSON "
                            "lines, the paths the run created (one per line), the mocked tool calls."),
        },
        "file": {
            "type": "string",
            "minLength": 1,
            "description": ("Search this workspace file after the run instead (plugin eval's {source: "
                            "file, path})."),
        },
    },
    required=("pattern",),
    problem=_pattern_problem,
)
