"""validate warns on regexes that repeat a group holding a repetition (exponential backtracking)."""

from __future__ import annotations

import pytest

from skill_eval.intake.regexrisk import NESTED, OVERLAP, nested_quantifier, risk


@pytest.mark.parametrize("pattern", [r"^(a+)+$", r"(x+x+)+y", r"(\w*\s?)*$", r"((a+))*", r"(?:a*)*",
                                     r"(a{1,2})+", r"(a|b+)*c"])
def test_nested_quantifiers_are_spotted(pattern: str) -> None:
    assert nested_quantifier(pattern)


@pytest.mark.parametrize("pattern", [r"a+b", r"(ab)+", r"(a|b)*c", r"x{2,3}", r"(a{2})+", r"(?>a+)+",
                                     r"(a++)+", r"total:\s*\d+", "(", ""])
def test_safe_or_unparsable_patterns_are_not(pattern: str) -> None:
    assert not nested_quantifier(pattern)


@pytest.mark.parametrize("pattern", [r"(a|a)+", r"^(a|a)+$", r"(?:x|x)*", r"(ab|a?b)+", r"((a|a))+",
                                     r"(a|a?)+", r"(a+)+", r"(.|a)*"])
def test_every_risky_structure_is_named(pattern: str) -> None:
    # A structural test, not one shape: nested repetition and overlapping alternatives alike.
    assert risk(pattern) is not None


@pytest.mark.parametrize("pattern", [r"(foo|bar)+", r"(a|b)+", r"(.|\n)*", r"(a|ab)+", r"(\w|-)+",
                                     r"a|a", r"(?>a|a)+", r"(?:[a-z]|\s)+", r"(\d+|x)", "(", ""])
def test_choices_that_match_one_way_are_not_risky(pattern: str) -> None:
    assert risk(pattern) is None


def test_the_two_risks_are_told_apart() -> None:
    assert risk(r"(a+)+") == NESTED
    assert risk(r"(a|a)+") == OVERLAP
