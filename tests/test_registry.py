"""The one registry type every pluggable part is listed in (skill_eval/registry.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from skill_eval.errors import InvalidInput
from skill_eval.registry import Registry


@dataclass(frozen=True)
class Part:
    name: str


def test_a_part_added_temporarily_is_seen_inside_the_block_only_and_the_generation_moves():
    reg: Registry[Part] = Registry("toy part")
    reg.add(Part("alpha"))
    before = reg.generation
    with reg.temporarily(Part("beta")):
        assert reg.names() == ["alpha", "beta"] and "beta" in reg
        inside = reg.generation
    assert reg.names() == ["alpha"] and "beta" not in reg
    assert len({before, inside, reg.generation}) == 3


def test_an_unknown_name_is_one_problem_naming_the_place_the_closest_name_and_every_name():
    reg: Registry[Part] = Registry("toy part")
    reg.add(Part("contains"))
    reg.add(Part("regex"))
    with pytest.raises(InvalidInput) as e:
        reg.require("contain", "evals.json", 4)
    (problem,) = e.value.problems
    assert problem.format() == ("evals.json:4: unknown toy part 'contain' (did you mean 'contains'?); "
                                "known: contains, regex")


def test_registering_a_name_twice_is_refused_and_a_failed_temporary_block_leaves_nothing_behind():
    reg: Registry[Part] = Registry("toy part")
    reg.add(Part("alpha"))
    with pytest.raises(ValueError, match="registered twice"):
        with reg.temporarily(Part("beta"), Part("alpha")):
            pass
    assert reg.names() == ["alpha"]
