"""Checks against a known answer: golden_output (equal to a reference text, under an explicit
normalization) and similarity (a difflib ratio to an expected text, at least a threshold).

The expected text lives in the check's params (a reader copies a reference file's content in),
so the grade key changes whenever the reference does.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip
from skill_eval.grade.checks.shared.kept import kept_text

NORMALIZE = ("exact", "trim", "text")


def _normalized(text: str, mode: str) -> str:
    if mode == "trim":
        return text.strip()
    if mode == "text":
        return " ".join(text.split())
    return text


def _actual(params: Mapping[str, Any], ctx: CheckContext) -> tuple[str | None, str]:
    """The text under test: the output, or ``file`` under outputs/; (None, why) when missing."""
    rel = params.get("file")
    if rel in (None, "", "output"):
        return ctx.output, "output"
    if not isinstance(rel, str):
        raise CheckParamError("'file' must be a path under outputs/ or 'output'")
    return kept_text(ctx, rel, label=f"outputs/{rel}")


def _expected(params: Mapping[str, Any]) -> str:
    value = params.get("expected")
    if not isinstance(value, str):
        raise CheckParamError("'expected' must be the expected text")
    return value


def golden_output(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    mode = params.get("normalize", "exact")
    if mode not in NORMALIZE:
        raise CheckParamError(f"'normalize' must be one of {', '.join(NORMALIZE)}, got {mode!r}")
    expected = _expected(params)
    actual, where = _actual(params, ctx)
    if actual is None:
        return False, clip(where)
    name = params.get("reference") or "the reference"
    if _normalized(actual, mode) == _normalized(expected, mode):
        return True, clip(f"{where} equals {name} (normalize={mode})")
    lines = difflib.unified_diff(expected.splitlines(), actual.splitlines(), lineterm="", n=0)
    diff = [line for line in lines if not line.startswith(("---", "+++", "@@"))]
    return False, clip(f"{where} differs from {name} (normalize={mode}): " + " | ".join(diff[:6]))


def similarity(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    expected = _expected(params)
    threshold = params.get("threshold", 0.8)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
        raise CheckParamError("'threshold' must be a number from 0 to 1")
    actual, where = _actual(params, ctx)
    if actual is None:
        return False, clip(where)
    a, b = (actual, expected) if case_sensitive else (actual.casefold(), expected.casefold())
    # Rounded before comparing, so the score shown can never contradict the verdict.
    ratio = round(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio(), 4)
    verdict = "≥" if ratio >= threshold else "<"
    return ratio >= threshold, f"similarity of {where} = {ratio:.4f} {verdict} threshold {threshold:g}"


GOLDEN_OUTPUT = CheckType(
    "golden_output", golden_output,
    ("Passes when the output (or `file`) equals `expected` after the `normalize` mode; the evidence shows "
     "the first differing lines."),
    {
        "expected": {"type": "string", "description": "The reference text."},
        "reference": {"type": "string", "description": "Where the reference came from (for evidence)."},
        "normalize": {
            "enum": ["exact", "text", "trim"],
            "default": "exact",
            "description": "How both texts are normalised before comparing.",
        },
        "file": {"type": "string", "description": "'output' (default) or a path under outputs/."},
    },
    required=("expected",),
)

SIMILARITY = CheckType(
    "similarity", similarity,
    ("Passes when the difflib similarity ratio of the output (or `file`) to `expected` is at least "
     "`threshold` (case-insensitive unless `case_sensitive: true`)."),
    {
        "expected": {"type": "string", "minLength": 1, "description": "The expected text."},
        "threshold": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "default": 0.8,
            "description": "The least ratio that passes, 0 to 1.",
        },
        "file": {"type": "string", "description": "'output' (default) or a path under outputs/."},
    },
    required=("expected",),
)
