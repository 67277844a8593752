"""A toy check type, as a user's or a contributor's module would hold one: the function and its
descriptor beside it. tests/test_extending.py registers it for the length of a test."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skill_eval.grade.checks import CheckContext, CheckType


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
