"""The JSON Schema keywords that match regexes, rebuilt on the time-limited matcher.

jsonschema runs ``pattern``, ``patternProperties`` and the ``patternProperties`` part of
``additionalProperties`` through ``re.search``, which has no time limit and is deaf to SIGTERM and
Ctrl-C (``{"pattern": "^(a+)+$"}`` against 40 ``a`` and a ``!`` never ends). A user's schema is
validated with these three keywords replaced by versions that search through intake/timedmatch.
``unevaluatedProperties`` also matches ``patternProperties`` inside jsonschema, out of our reach,
so a schema that combines the two is refused (``pattern_problem``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from skill_eval.intake.timedmatch import BadPattern, compiled, search

# Keywords whose values are data, not subschemas: a "pattern" key inside them is not a pattern.
_DATA_KEYWORDS = ("const", "enum", "default", "examples")


def _pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not search(patrn, instance):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, extra_schema: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [key for key in instance
              if key not in named and not any(search(p, key) for p in patterns)]
    if validator.is_type(extra_schema, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], extra_schema, path=extra)
    elif not extra_schema and extras:
        shown = ", ".join(repr(e) for e in sorted(extras, key=str))
        verb = "was" if len(extras) == 1 else "were"
        yield ValidationError(f"Additional properties are not allowed ({shown} {verb} unexpected)")


@lru_cache(maxsize=1)
def timed_validator_class() -> Any:
    """Draft 2020-12 with its regex keywords on the time-limited matcher."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {
        "pattern": _pattern, "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties})


def schema_patterns(node: Any, depth: int = 0) -> Iterator[str]:
    """Every regex a schema holds (``pattern`` values and ``patternProperties`` keys)."""
    if depth > 200:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _DATA_KEYWORDS:
                continue
            if key == "pattern" and isinstance(value, str):
                yield value
            elif key == "patternProperties" and isinstance(value, dict):
                yield from (k for k in value if isinstance(k, str))
            yield from schema_patterns(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from schema_patterns(value, depth + 1)


def _keys(node: Any, depth: int = 0) -> Iterator[str]:
    if depth > 200:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in _DATA_KEYWORDS:
                yield key
                yield from _keys(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _keys(value, depth + 1)


def pattern_problem(schema: Any) -> str | None:
    """Why the schema's patterns cannot be used, or None."""
    for pattern in schema_patterns(schema):
        try:
            compiled(pattern)
        except BadPattern as e:
            return f"{e}; fix the regular expression"
    keys = set(_keys(schema))
    if "unevaluatedProperties" in keys and "patternProperties" in keys:
        return ("'unevaluatedProperties' together with 'patternProperties' cannot be checked under a "
                "time limit; use 'additionalProperties' instead")
    return None
