"""Text checks on the run's output: contains, not_contains, contains_all, contains_any, regex, not_regex.

Case-insensitive by default through ``str.casefold`` (so 'ß' matches 'SS'); ``case_sensitive``
compares exactly. Regexes search without DOTALL: '.' stops at a newline unless the pattern says
``(?s)``.

Regexes are compiled and searched by intake/timedmatch, the one time-limited matcher for every
pattern an eval set supplies: a pattern that backtracks catastrophically (``^(a|a)+$`` on a long
almost-match) fails the check with evidence "pattern timed out after N ms" instead of hanging
grading and every later run of the stored output.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip
from skill_eval.grade.checks.shared.kept import kept_text
from skill_eval.grade.checks.shared.patterns import compiled
from skill_eval.intake import timedmatch
from skill_eval.model.cases import Check

if TYPE_CHECKING:
    import regex as rx

_SNIPPET = 40


@lru_cache(maxsize=4096)
def _fold(value: str) -> str:
    return value.casefold()


def _haystack(ctx: CheckContext, case_sensitive: bool) -> str:
    return ctx.output if case_sensitive else ctx.folded


def _find(needle: str, ctx: CheckContext, case_sensitive: bool) -> int:
    return _haystack(ctx, case_sensitive).find(needle if case_sensitive else _fold(needle))


def _around(ctx: CheckContext, case_sensitive: bool, start: int, end: int) -> str:
    # Offsets index the folded text; show the original only when folding kept the length.
    text = ctx.output if case_sensitive or len(ctx.folded) == len(ctx.output) else ctx.folded
    lo, hi = max(0, start - _SNIPPET), min(len(text), end + _SNIPPET)
    return ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")


def _str_param(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise CheckParamError(f"'{name}' must be a non-empty string")
    return value


def _list_param(params: Mapping[str, Any], name: str) -> list[str]:
    values = params.get(name)
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v for v in values):
        raise CheckParamError(f"'{name}' must be a non-empty list of non-empty strings")
    return values


def contains(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    value = _str_param(params, "value")
    at = _find(value, ctx, case_sensitive)
    if at < 0:
        return False, clip(f"{value!r} not found in output ({len(ctx.output)} chars)")
    return True, clip(f"found {value!r}: {_around(ctx, case_sensitive, at, at + len(value))}")


def not_contains(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    value = _str_param(params, "value")
    at = _find(value, ctx, case_sensitive)
    if at < 0:
        return True, clip(f"{value!r} absent from output")
    return False, clip(f"found forbidden {value!r}: {_around(ctx, case_sensitive, at, at + len(value))}")


def contains_all(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    values = _list_param(params, "values")
    missing = [v for v in values if _find(v, ctx, case_sensitive) < 0]
    if missing:
        return False, clip(f"missing {len(missing)} of {len(values)}: " + ", ".join(map(repr, missing)))
    return True, clip(f"found all {len(values)}: " + ", ".join(map(repr, values)))


def contains_any(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    values = _list_param(params, "values")
    for v in values:
        at = _find(v, ctx, case_sensitive)
        if at >= 0:
            return True, clip(f"found {v!r}: {_around(ctx, case_sensitive, at, at + len(v))}")
    return False, clip("none found of: " + ", ".join(map(repr, values)))


def _subject(params: Mapping[str, Any], ctx: CheckContext) -> tuple[str | None, str]:
    """What a regex searches: the output, or the kept file ``file``; (None, why) when missing."""
    rel = params.get("file")
    if rel in (None, "", "output"):
        return ctx.output, "output"
    if not isinstance(rel, str):
        raise CheckParamError("'file' must be a workspace-relative path or 'output'")
    return kept_text(ctx, rel)


def _search(params: Mapping[str, Any], case_sensitive: bool,
            ctx: CheckContext, text: str) -> tuple[str, rx.Match[str] | None]:
    pattern = _str_param(params, "pattern")
    # IGNORECASE on the original text, not the folded one: folding would shift what the
    # pattern's own character classes and lengths mean. A search out of time raises
    # PatternTimedOut, which run_check turns into a fail (for not_regex too: absence not shown).
    return pattern, timedmatch.search(compiled(pattern, case_sensitive), text)


def regex(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    text, where = _subject(params, ctx)
    if text is None:
        return False, clip(where)
    pattern, m = _search(params, case_sensitive, ctx, text)
    if m is None:
        return False, clip(f"no match for /{pattern}/ in {where} ({len(text)} chars)")
    return True, clip(f"/{pattern}/ matched {m.group(0)!r} at {m.start()}")


def not_regex(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    text, where = _subject(params, ctx)
    if text is None:  # absence cannot be shown in a file that is not there
        return False, clip(where)
    pattern, m = _search(params, case_sensitive, ctx, text)
    if m is None:
        inside = "" if where == "output" else f" in {where}"
        return True, clip(f"no match for forbidden /{pattern}/{inside}")
    return False, clip(f"forbidden /{pattern}/ matched {m.group(0)!r} at {m.start()}")


def _pattern_problem(check: Check) -> str | None:
    try:
        compiled(str(check.params.get("pattern", "")), check.case_sensitive)
    except CheckParamError as e:
        return str(e)
    return None


CONTAINS = CheckType(
    "contains", contains,
    "Passes when the output contains `value` (case-insensitive unless `case_sensitive: true`).",
    {"value": {"type": "string", "minLength": 1, "description": "The text to find."}},
    required=("value",),
)

NOT_CONTAINS = CheckType(
    "not_contains", not_contains,
    "Passes when the output does not contain `value`.",
    {"value": {"type": "string", "minLength": 1, "description": "The text that must not appear."}},
    required=("value",),
)

CONTAINS_ALL = CheckType(
    "contains_all", contains_all,
    "Passes when the output contains every string in `values`.",
    {
        "values": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1},
            "description": "Every one of these must appear.",
        },
    },
    required=("values",),
)

CONTAINS_ANY = CheckType(
    "contains_any", contains_any,
    "Passes when the output contains at least one string in `values`.",
    {
        "values": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1},
            "description": "At least one of these must appear.",
        },
    },
    required=("values",),
)

REGEX = CheckType(
    "regex", regex,
    ("Passes when `pattern` (Python `regex` syntax, searched anywhere, 1 s time limit) matches the output "
     "(or the kept `file`); case-insensitive unless `case_sensitive: true`."),
    {
        "pattern": {"type": "string", "minLength": 1, "x-regex": "python",
                    "description": "A regular expression."},
        "file": {
            "type": "string",
            "minLength": 1,
            "description": ("'output' (the default) or a workspace-relative path of a file the run kept: "
                            "search that file instead (a missing file fails the check)."),
        },
    },
    required=("pattern",),
    problem=_pattern_problem,
)

NOT_REGEX = CheckType(
    "not_regex", not_regex,
    "Passes when `pattern` matches nowhere in the output (or the kept `file`, which must exist).",
    {
        "pattern": {
            "type": "string",
            "minLength": 1,
            "x-regex": "python",
            "description": "A regular expression that must not match.",
        },
        "file": {
            "type": "string",
            "minLength": 1,
            "description": ("'output' (the default) or a workspace-relative path of a file the run kept: "
                            "search that file instead (a missing file fails the check)."),
        },
    },
    required=("pattern",),
    problem=_pattern_problem,
)
