"""json_path_equals, json_schema: checks on JSON the run produced (output, or a kept workspace file)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip, run_metadata
from skill_eval.grade.checks.shared.kept import kept_text
from skill_eval.intake.limits import MAX_DEPTH, depth_over
from skill_eval.intake.timedmatch import BadPattern
from skill_eval.intake.userschema import schema_validator
from skill_eval.model.cases import Check

# Agents often wrap JSON in a fenced block; the first ```json (or bare ```) block is tried
# when the whole text is not JSON.
_FENCE = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL | re.IGNORECASE)
_MISSING = object()
# ``file: ":metadata"``: the run's own record (elapsed_ms and the usage the adapter reported), the
# counterpart of the metadata.json other harnesses keep beside a run's output.
METADATA = ":metadata"


def load_json(ctx: CheckContext, params: Mapping[str, Any]) -> tuple[Any, str]:
    """The JSON document to check, or (_MISSING, why not)."""
    source = params.get("file") or "output"
    if source == METADATA:
        return run_metadata(ctx), ""
    if source == "output":
        text, where = ctx.output, "output"
    else:
        found, where = kept_text(ctx, source, strict=True)
        if found is None:
            return _MISSING, where
        text = found
    try:
        return _nesting_ok(json.loads(text), where)
    except RecursionError:
        return _MISSING, f"{where} nests JSON more than {MAX_DEPTH} levels deep"
    except ValueError as e:
        fenced = _FENCE.search(text)
        if fenced:
            try:
                return _nesting_ok(json.loads(fenced.group(1)), where)
            except (ValueError, RecursionError):
                pass
        return _MISSING, f"{where} is not JSON ({e})"


def _nesting_ok(doc: Any, where: str) -> tuple[Any, str]:
    if depth_over(doc, MAX_DEPTH):
        return _MISSING, f"{where} nests JSON more than {MAX_DEPTH} levels deep"
    return doc, ""


def _walk(doc: Any, dotted: str) -> tuple[Any, str]:
    node = doc
    for i, part in enumerate(dotted.split(".")):
        at = ".".join(dotted.split(".")[:i]) or "(root)"
        if isinstance(node, dict):
            if part not in node:
                return _MISSING, f"no key {part!r} at {at}"
            node = node[part]
        elif isinstance(node, list):
            if not re.fullmatch(r"-?\d+", part) or not -len(node) <= int(part) < len(node):
                return _MISSING, f"no index {part!r} at {at} (list of {len(node)})"
            node = node[int(part)]
        else:
            return _MISSING, f"{at} is {type(node).__name__}, cannot take {part!r}"
    return node, ""


def _same(a: Any, b: Any) -> bool:
    # JSON equality, stricter than Python's: true is not 1 and 1.0 equals 1.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def json_path_equals(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    dotted = params.get("path")
    if not isinstance(dotted, str) or not dotted:
        raise CheckParamError("'path' must be a non-empty dotted path")
    if "value" not in params:
        raise CheckParamError("'value' is required")
    doc, why = load_json(ctx, params)
    if doc is _MISSING:
        return False, clip(why)
    found, why = _walk(doc, dotted)
    if found is _MISSING:
        return False, clip(why)
    expected = params["value"]
    shown = json.dumps(found, ensure_ascii=False)
    if _same(found, expected):
        return True, clip(f"{dotted} == {shown}")
    return False, clip(f"{dotted} is {shown}, expected {json.dumps(expected, ensure_ascii=False)}")


def _validator(schema: dict[str, Any]) -> Any:
    validator, why = schema_validator(schema)
    if validator is None:
        raise CheckParamError(why)
    return validator


def json_schema(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    schema = params.get("schema")
    if not isinstance(schema, dict):
        raise CheckParamError("'schema' must be an object (an inline JSON Schema)")
    validator = _validator(schema)
    doc, why = load_json(ctx, params)
    if doc is _MISSING:
        return False, clip(why)
    try:
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    except BadPattern as e:  # a pattern where pattern_problem did not look for one
        raise CheckParamError(str(e)) from e
    except RecursionError:
        # The schema passed the loop probe, so the document's own depth drove the recursion.
        return False, clip("the JSON is nested too deeply to check against the schema")
    if not errors:
        return True, "valid against the schema"
    first = errors[0]
    where = "/".join(str(p) for p in first.absolute_path) or "(root)"
    return False, clip(f"{len(errors)} schema error(s); at {where}: {first.message}")


def _schema_problem(check: Check) -> str | None:
    if not isinstance(check.params.get("schema"), dict):
        return None
    try:
        json_schema(check.params, False, CheckContext(output="null"))
    except CheckParamError as e:
        return str(e)
    return None


JSON_PATH_EQUALS = CheckType(
    "json_path_equals", json_path_equals,
    "Passes when the JSON in the output (or in `file`) has `value` at the dotted `path`.",
    {
        "path": {"type": "string", "minLength": 1, "description": "Dotted path, e.g. result.items.0.name"},
        "value": {"description": "The expected JSON value (compared by type and value)."},
        "file": {
            "type": "string",
            "description": ("'output' (the default) or a workspace-relative path of a file the run left, "
                            "e.g. 'outputs/result.json'."),
        },
    },
    required=("path", "value"),
)

JSON_SCHEMA = CheckType(
    "json_schema", json_schema,
    ("Passes when the JSON in the output (or in `file`) is valid against the inline `schema` (no `$ref` "
     "outside it)."),
    {
        "schema": {"type": "object", "description": "An inline JSON Schema."},
        "file": {
            "type": "string",
            "description": ("'output' (the default) or a workspace-relative path of a file the run left, "
                            "e.g. 'outputs/result.json'."),
        },
    },
    required=("schema",),
    problem=_schema_problem,
)
