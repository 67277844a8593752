"""JSON Schemas that eval sets bring (the ``json_schema`` check): checked, and never allowed to
reach outside themselves.

A ``$ref`` that names another document would make grading fetch it (an ``http://`` URL that never
answers hangs grading; ``file:///etc/passwd`` reads local files), so only references inside the
schema itself (``#...``) are allowed, and the validator's registry refuses to retrieve anything.
A schema that refers to itself without descending into the document (``"$ref": "#"``) would
recurse forever; it is found by a trial validation and refused. Its regexes (``pattern``,
``patternProperties``) run on the time-limited matcher (intake/schemapatterns).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from skill_eval.intake.schemapatterns import pattern_problem, timed_validator_class
from skill_eval.intake.timedmatch import PatternTimedOut


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)


def _refs(node: Any, depth: int = 0) -> Iterator[str]:
    if depth > 200:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                yield value
            else:
                yield from _refs(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value, depth + 1)


@lru_cache(maxsize=256)
def _checked(schema_text: str) -> tuple[Any, str | None]:
    import json

    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from referencing import Registry

    schema = json.loads(schema_text)
    outside = [ref for ref in _refs(schema) if not ref.startswith("#")]
    if outside:
        return None, (f"schema $ref {outside[0]!r} points outside the schema; only references within "
                      "it ('#/$defs/...') are allowed: copy what it refers to into '$defs'")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        return None, f"invalid JSON Schema at {where}: {e.message}"
    except RecursionError:
        return None, "invalid JSON Schema: nested too deeply"
    why = pattern_problem(schema)
    if why is not None:
        return None, why
    validator = timed_validator_class()(schema, registry=Registry(retrieve=_refuse))
    for probe in (None, {}, [], "", 0):
        try:
            for _ in validator.iter_errors(probe):
                pass
        except PatternTimedOut:
            # The probes look for $ref loops; a pattern that backtracks is the check's to report,
            # not a reason to call the schema unusable (and to cache that for the process).
            continue
        except RecursionError:
            return None, ("the schema refers to itself in a loop (a '$ref' that reaches itself without "
                          "going into the document, like \"$ref\": \"#\"); remove the loop")
        except Exception as e:  # noqa: BLE001 - referencing errors name the ref; any other is the schema's
            return None, f"schema cannot be used: {' '.join(str(e).split())[:200]}"
    return validator, None


def schema_validator(schema: dict[str, Any]) -> tuple[Any, str | None]:
    """(a jsonschema validator that never retrieves anything, None), or (None, why not)."""
    import json

    try:
        text = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return None, "schema must be plain JSON (finite numbers, not nested too deeply)"
    return _checked(text)
