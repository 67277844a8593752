"""validate warns on regexes that repeat a group holding a repetition (exponential backtracking)."""

from __future__ import annotations

import pytest

from skill_eval.intake.regexrisk import nested_quantifier


@pytest.mark.parametrize("pattern", [r"^(a+)+$", r"(x+x+)+y", r"(\w*\s?)*$", r"((a+))*", r"(?:a*)*",
                                     r"(a{1,2})+", r"(a|b+)*c"])
def test_nested_quantifiers_are_spotted(pattern: str) -> None:
    assert nested_quantifier(pattern)


@pytest.mark.parametrize("pattern", [r"a+b", r"(ab)+", r"(a|b)*c", r"x{2,3}", r"(a{2})+", r"(?>a+)+",
                                     r"(a++)+", r"total:\s*\d+", "(", ""])
def test_safe_or_unparsable_patterns_are_not(pattern: str) -> None:
    assert not nested_quantifier(pattern)
