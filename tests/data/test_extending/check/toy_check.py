"""Toy check types, as a user's or a contributor's module would hold them: each function and its
descriptor beside it. tests/test_extending.py registers one for the length of a test."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skill_eval.grade.checks import CheckContext, CheckType
from skill_eval.grade.checks.shared.patterns import compiled


def word_count_at_least(params: Mapping[str, Any], case_sensitive: bool,
                        ctx: CheckContext) -> tuple[bool, str]:
    words = len(ctx.output.split())
    return words >= params["min"], f"{words} words (at least {params['min']} wanted)"


WORD_COUNT = CheckType(
    "word_count_at_least", word_count_at_least,
    "Passes when the output has at least `min` words.",
    {"min": {"type": "integer", "minimum": 1, "description": "The fewest words the output may have."}},
    required=("min",),
)


def lines_matching(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    found = [line for line in ctx.output.splitlines()
             if compiled(params["pattern"], case_sensitive).search(line)]
    return len(found) >= params["min"], f"{len(found)} matching lines (at least {params['min']} wanted)"


# Its pattern is marked as a Python regex in its schema: validate compiles it and warns on a
# risky one, as it does for the builtins' patterns.
LINES_MATCHING = CheckType(
    "lines_matching", lines_matching,
    "Passes when at least `min` lines of the output match `pattern`.",
    {"pattern": {"type": "string", "minLength": 1, "x-regex": "python",
                 "description": "A regular expression searched in each line."},
     "min": {"type": "integer", "minimum": 1, "description": "The fewest matching lines."}},
    required=("pattern", "min"),
)
