"""A cached eval set reads back as the set that was parsed: every field of a check and a rubric
item survives the round trip (a field the cache forgets would change grading on a cache hit
only, so incremental would differ from clean)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from skill_eval.model.cases import Case, Check, EvalSet, Fixture, RubricItem
from skill_eval.model.evalcache import from_json, to_json


def _changed(default: Any, name: str) -> Any:
    """A value other than the field's default, of its type."""
    if isinstance(default, bool):
        return not default
    if isinstance(default, int | float):
        return default + 2
    if isinstance(default, str):
        return f"{name}-x"
    if name == "arms":
        return ("with_skill",)
    if name == "params":
        return {"pattern": "x"}
    return f"{name}-x"  # None defaults (text fields such as reference)


def _all_set(cls: type, **given: Any) -> Any:
    values = dict(given)
    for f in dataclasses.fields(cls):
        if f.name in values:
            continue
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        values[f.name] = _changed(default, f.name)
    return cls(**values)


def test_every_check_and_rubric_field_survives_the_cache() -> None:
    check = _all_set(Check, id="c", type="regex")
    item = _all_set(RubricItem, id="r", text="says hi")
    case = Case(id="a", prompt="p", fixtures=(Fixture("in.txt", Path("/x/in.txt")),), checks=(check,),
                rubric=(item,), line=3, split="tune", critical=True)
    es = EvalSet(Path("/x/evals.json"), "skill-creator", "sk", (case,))
    back = from_json(to_json(es))
    assert back.cases[0].checks == (check,)
    assert back.cases[0].rubric == (item,)
    assert back == es
