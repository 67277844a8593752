"""loaded_skill: did the adapter report loading the skill (or, with expected: false, not)?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip


def loaded_skill(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    skill = params.get("skill") or ctx.skill_name
    expected = params.get("expected", True)
    if not isinstance(skill, str) or not skill:
        raise CheckParamError("'skill' must be a non-empty string (no skill name known for this run)")
    if not isinstance(expected, bool):
        raise CheckParamError("'expected' must be true or false")
    loads = [e.name for e in ctx.events if e.type == "skill_loaded" and e.name]
    if not loads:
        # Absence of events may mean the adapter never reports loads: say so, do not guess.
        why = "no skill_loaded events reported (the adapter may not report skill loads)"
        return (not expected), clip(why)
    wanted = {skill} if params.get("skill") else {skill, *ctx.skill_aliases}
    if case_sensitive:
        loaded = bool(wanted & set(loads))
    else:
        loaded = bool({w.casefold() for w in wanted} & {n.casefold() for n in loads})
    seen = ", ".join(sorted(set(loads)))
    if loaded == expected:
        return True, clip(f"{skill!r} {'loaded' if loaded else 'not loaded'} as expected; loaded: {seen}")
    return False, clip(f"{skill!r} {'loaded' if loaded else 'not loaded'}, expected "
                       f"{'loaded' if expected else 'not loaded'}; loaded: {seen}")


LOADED_SKILL = CheckType(
    "loaded_skill", loaded_skill,
    ("Passes when the adapter reported a `skill_loaded` event for the skill (with `expected: false`: when "
     "it did not). No `skill_loaded` events at all fails an `expected: true` check, saying so. An "
     "`expected: true` check about the case's own skill (no `skill`, no `arms`) is not applied in the "
     "without_skill arm, where no skill is installed."),
    {
        "skill": {
            "type": "string",
            "minLength": 1,
            "description": "The skill's name (default: the skill of the run, by folder or SKILL.md name).",
        },
        "expected": {
            "type": "boolean",
            "default": True,
            "description": "false: pass when the skill was not loaded.",
        },
    },
)
