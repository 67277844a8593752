"""A check type as one descriptor, declared beside its function in its module of grade/checks/:
everything the rest of the program needs to know of it. ``grade.checks.CHECK_TYPES`` lists them;
grading, ``check_problem``, the eval-set schema (and through it validate's messages) and the
generated docs/checks.md read that list, so a check type is its module and one registration.

``evals_schema`` is the eval-set schema with its check part (the type enum, one branch and one
``$defs`` entry per type) generated from the descriptors: schemas/evals.schema.json is that text
for the builtins (tests/test_checks.py holds them equal), and the loaded schema is completed the
same way when a type is registered at run time (intake.schemas_io.complete).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from skill_eval.grade.checks.shared.context import CheckFn
from skill_eval.model.cases import Check

# The fields every check has besides its own parameters (model/evalsets/typed.native_check reads
# them off): the schema repeats them in every type's entry, since each entry forbids other keys.
COMMON: dict[str, Any] = {
    "id": {"type": "string", "minLength": 1, "pattern": "^[A-Za-z0-9][A-Za-z0-9._:-]*$",
           "description": "The check's id (default: `<type>-<n>`)."},
    "type": {"type": "string", "description": "The check type."},
    "required": {"type": "boolean", "default": True,
                 "description": "false: reported beside the verdict, never failing the run."},
    "case_sensitive": {"type": "boolean", "default": False,
                       "description": "true: text comparisons respect case."},
    "description": {"type": "string", "description": "A note for people; not graded."},
    "critical": {"type": "boolean", "default": False,
                 "description": "A failure vetoes the run and is reported on its own."},
    "arms": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1},
             "description": "Only grade runs of these variants (default: every arm)."},
}


@dataclass(frozen=True)
class CheckType:
    """One check type. ``params`` is the JSON Schema of each parameter of its own, by name (the
    common fields are added; a parameter holding a Python regex, or a list of them, is marked
    ``"x-regex": "python"`` on the string: validate compiles it and warns when it is risky, see
    model/evalsets/regexparams); ``description`` says when it passes (the schema's and the docs'
    words); ``problem`` says why a check of this type cannot be applied, found without a run
    (a pattern that does not compile, a schema that is not one), or None."""

    name: str
    function: CheckFn
    description: str
    params: Mapping[str, Any]
    required: tuple[str, ...] = ()
    problem: Callable[[Check], str | None] | None = None

    def schema(self) -> dict[str, Any]:
        """This type's ``$defs`` entry in the eval-set schema."""
        return {"type": "object", "additionalProperties": False, "description": self.description,
                "required": ["type", *self.required],
                "properties": copy.deepcopy({**COMMON, **self.params})}


def _branch(name: str) -> dict[str, Any]:
    return {"if": {"properties": {"type": {"const": name}}, "required": ["type"]},
            "then": {"$ref": f"#/$defs/{name}"}}


def evals_schema(base: Mapping[str, Any], types: Iterable[CheckType]) -> dict[str, Any]:
    """``base`` (the eval-set schema) with its check part generated from ``types``: everything
    else in it is kept as it is."""
    types = list(types)
    schema = copy.deepcopy(dict(base))
    old = set(schema["$defs"]["check"]["properties"]["type"]["enum"])
    defs = {k: v for k, v in schema["$defs"].items() if k not in old}
    defs["check"]["properties"]["type"]["enum"] = sorted(t.name for t in types)
    defs["check"]["allOf"] = [_branch(t.name) for t in types]
    defs.update((t.name, t.schema()) for t in types)
    schema["$defs"] = defs
    return schema


def completed_schema(base: dict[str, Any], types: Iterable[CheckType]) -> dict[str, Any]:
    """The eval-set schema the program loads: ``base`` (the file) itself while it names every
    registered type (the builtins: tests hold the file equal to their descriptors), else with its
    check part generated, so a type registered at run time validates like a builtin."""
    types = list(types)
    known = set(base["$defs"]["check"]["properties"]["type"]["enum"])
    return base if known == {t.name for t in types} else evals_schema(base, types)


def schema_text(schema: Mapping[str, Any]) -> str:
    """A schema as schemas/ writes it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
