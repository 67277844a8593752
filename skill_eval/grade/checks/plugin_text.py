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

from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip
from skill_eval.grade.checks.shared.plugin_mocks import UNAVAILABLE, mock_calls_text
from skill_eval.intake.javascript.regex import JsRegex, JsRegexError, JsSyntaxError, js_regex
from skill_eval.intake.limits import MAX_NUMBER_DIGITS

TARGETS = ("last_message", "trace", "files", "mock_calls")


def compile_js(pattern: Any, flags: Any = "", key: str = "pattern") -> JsRegex | str:
    """The JavaScript regex, or why JavaScript throws on it (a str: the check fails with it)."""
    if not isinstance(pattern, str):
        raise CheckParamError(f"'{key}' must be a string (a JavaScript regular expression)")
    if not isinstance(flags, str):
        raise CheckParamError("'flags' must be a string such as \"i\" or \"gm\"")
    try:
        return js_regex(pattern, flags)
    except JsSyntaxError as e:
        return f"claude plugin eval's grader throws on /{pattern}/{flags}: {e}"
    except JsRegexError as e:
        raise CheckParamError(f"/{pattern}/{flags} has no faithful translation from JavaScript: {e}") from e


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
