"""Which parameters of a check hold Python regular expressions, as the eval-set schema says.

A check type marks such a parameter in its schema with ``"x-regex": "python"``: on the string
itself, or on the items of a list of them. validate compiles each one on the engine grading uses
and warns on a risky one (intake/regexrisk), for any check type, a type registered at run time
included: the schema is read as loaded (completed from the check types' registry), and read
again only when that changes. JavaScript patterns (``"x-regex": "javascript"``, plugin eval's
graders) are not Python's: their check type judges them itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skill_eval.intake import schemas_io

KEYWORD = "x-regex"
PYTHON = "python"


@dataclass(frozen=True)
class RegexParam:
    """A parameter holding a regex (``many``: a list of them)."""

    key: str
    many: bool


def _marked(spec: Any) -> bool:
    return isinstance(spec, Mapping) and spec.get(KEYWORD) == PYTHON


def regex_params_of(schema: Mapping[str, Any]) -> dict[str, tuple[RegexParam, ...]]:
    """Check type -> its regex parameters, in the schema's order, read off the eval-set schema's
    ``$defs`` entry of each type."""
    defs = schema["$defs"]
    out: dict[str, tuple[RegexParam, ...]] = {}
    for name in defs["check"]["properties"]["type"]["enum"]:
        found: list[RegexParam] = []
        for key, spec in defs[name].get("properties", {}).items():
            if _marked(spec):
                found.append(RegexParam(key, many=False))
            elif isinstance(spec, Mapping) and _marked(spec.get("items")):
                found.append(RegexParam(key, many=True))
        out[name] = tuple(found)
    return out


def regex_params() -> dict[str, tuple[RegexParam, ...]]:
    """Check type -> its regex parameters, from the eval-set schema as loaded now."""
    return schemas_io.derived("evals", regex_params_of)
