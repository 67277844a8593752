"""The JSON Schemas in ``schemas/``: loaded and compiled once, errors turned into Problems."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TypeVar

from skill_eval.errors import Problem, did_you_mean
from skill_eval.intake.schemafast import compile_schema

T = TypeVar("T")
Where = Callable[[tuple[str | int, ...]], tuple[int | None, int | None]]


# name -> (the stamp of what completes it, how): see ``complete``.
_completions: dict[str, tuple[Callable[[], int], Callable[[dict[str, Any]], dict[str, Any]]]] = {}


def complete(name: str, stamp: Callable[[], int], build: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Let a layer above complete schema ``name`` from its registry: ``build`` turns the file's
    schema into the one every reader uses, again whenever ``stamp()`` (the registry's generation)
    moves. The check types live in grade, above this floor, so grade hands its part down."""
    _completions[name] = (stamp, build)


def _stamp(name: str) -> int:
    entry = _completions.get(name)
    return entry[0]() if entry is not None else 0


@cache
def _file_schema(name: str) -> dict[str, Any]:
    return json.loads(schema_path(name).read_text("utf-8"))


@lru_cache(maxsize=64)
def _completed(name: str, stamp: int) -> dict[str, Any]:
    entry = _completions.get(name)
    return _file_schema(name) if entry is None else entry[1](_file_schema(name))


def load_schema(name: str) -> dict[str, Any]:
    """The schema ``schemas/<name>.schema.json``, completed by its registry if it has one."""
    return _completed(name, _stamp(name))


def derived(name: str, build: Callable[[dict[str, Any]], T]) -> T:
    """``build(load_schema(name))``, built once per completion of the schema: what a reader
    derives from it (which parameters hold regexes) follows a type registered at run time."""
    return _derived(name, _stamp(name), build)


@lru_cache(maxsize=64)
def _derived(name: str, stamp: int, build: Callable[[dict[str, Any]], Any]) -> Any:
    return build(_completed(name, stamp))


def schema_path(name: str) -> Path:
    # A source checkout keeps schemas/ beside the package; an installed wheel maps it to
    # the package ``skill_eval.schemas``.
    local = Path(__file__).resolve().parents[2] / "schemas" / f"{name}.schema.json"
    if local.is_file():
        return local
    from importlib import resources  # only an installed wheel gets here: not every start pays it

    return Path(str(resources.files("skill_eval.schemas").joinpath(f"{name}.schema.json")))


def quick_test(name: str) -> Callable[[Any], bool] | None:
    """A fast yes/no for schema ``name`` (None when it cannot be compiled); see schemafast."""
    return _quick_test(name, _stamp(name))


@lru_cache(maxsize=64)
def _quick_test(name: str, stamp: int) -> Callable[[Any], bool] | None:
    return compile_schema(_completed(name, stamp))


def validator(name: str) -> Any:
    return _validator(name, _stamp(name))


@lru_cache(maxsize=64)
def _validator(name: str, stamp: int) -> Any:
    from jsonschema import Draft202012Validator

    schema = _completed(name, stamp)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _path_text(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


_WANT = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
         "array": "a list", "object": "a mapping (key: value)", "null": "empty"}


def describe_value(value: Any) -> str:
    """A value as a message shows it: ``'3' (a string)``, ``a list``."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, int | float):
        return f"{value!r} (a number)"
    if isinstance(value, str):
        short = value if len(value) <= 40 else value[:37] + "..."
        return f"{short!r} (a string)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def _leaf_errors(error: Any) -> list[Any]:
    """The errors worth showing for one top-level error.

    ``oneOf``/``anyOf`` nest one error list per alternative in ``context``: when the value has the
    type some alternative wants, only that alternative's deeper errors matter; when it has none
    of the types, one combined type error says which types would do.
    """
    if not error.context:
        return [error]
    leaves: list[Any] = []
    for sub in error.context:
        leaves.extend(_leaf_errors(sub))
    here = list(error.absolute_path)
    type_here = [e for e in leaves if e.validator == "type" and list(e.absolute_path) == here]
    deeper = [e for e in leaves if e not in type_here]
    if deeper:
        return deeper
    return [error] if type_here else leaves


def _types(value: Any) -> list[str]:
    return value if isinstance(value, list) else [value]


def _messages(error: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """(key path, message) pairs for one schema error; each message says what to do."""
    path = tuple(error.absolute_path)
    v = error.validator
    if v == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        extras = [k for k in error.instance if k not in allowed] if isinstance(error.instance, dict) else []
        if not extras:
            return [(path, error.message)]
        return [((*path, key), f"unknown key '{key}'{did_you_mean(key, allowed)}; remove or rename it "
                               f"(allowed: {', '.join(sorted(allowed))})") for key in extras]
    if v in ("oneOf", "anyOf") and not error.context:
        return [(path, error.message)]
    if v in ("oneOf", "anyOf"):
        wanted: list[str] = []
        for sub in error.context:
            if sub.validator == "type":
                wanted += [t for t in _types(sub.validator_value) if t not in wanted]
        words = " or ".join(_WANT.get(t, t) for t in wanted) or "one of the allowed forms"
        return [(path, f"must be {words}, got {describe_value(error.instance)}; change the value")]
    if v == "enum":
        choices = [str(c) for c in error.validator_value]
        got = error.instance
        return [(path, f"'{got}' is not one of {', '.join(choices)}"
                       + (did_you_mean(got, choices) if isinstance(got, str) else ""))]
    if v == "const":
        return [(path, f"must be {error.validator_value!r}, got {describe_value(error.instance)}")]
    if v == "required":
        return [(path, error.message.replace("is a required property", "is required but missing; add it"))]
    if v == "maxLength" and isinstance(error.instance, str):
        return [(path, f"is {len(error.instance)} characters long; the maximum is {error.validator_value}: "
                       "shorten it")]
    if v == "minLength" and isinstance(error.instance, str):
        return [(path, "must not be empty; fill it in or remove the key")]
    if v == "pattern" and isinstance(error.instance, str):
        return [(path, f"'{error.instance[:80]}' does not match the required pattern "
                       f"{error.validator_value}; change it to match")]
    if v == "type":
        want = " or ".join(_WANT.get(t, t) for t in _types(error.validator_value))
        fix = "change the value"
        if isinstance(error.instance, str) and error.validator_value in ("integer", "number"):
            try:
                float(error.instance)
                fix = "remove the quotes around the number"
            except ValueError:
                pass
        elif isinstance(error.instance, str | int | float) and error.validator_value == "array":
            fix = f"write it as a list: [{error.instance}]"
        return [(path, f"must be {want}, got {describe_value(error.instance)}; {fix}")]
    if v == "minItems" and isinstance(error.instance, list):
        if error.validator_value == 1:
            return [(path, "must not be an empty list; add an item or remove the key")]
        return [(path, f"needs at least {error.validator_value} items; add more")]
    if v == "uniqueItems":
        return [(path, "has the same item more than once; remove the repeats")]
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return [(path, f"{error.message}; change the value")]
    return [(path, error.message)]


def schema_problems(name: str, instance: Any, file: str, where: Where | None = None,
                    prefix: tuple[str | int, ...] = (), drop: int = 0) -> list[Problem]:
    """Every schema violation of ``instance`` as a Problem naming the key path (and line).

    Error paths lose their first ``drop`` parts and gain ``prefix``: a piece validated inside a
    one-off document is reported where it sits in the real one."""
    quick = quick_test(name)
    if quick is not None and quick(instance):
        return []
    problems: list[Problem] = []
    seen: set[tuple[tuple[str | int, ...], str]] = set()
    for top in sorted(validator(name).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        for error in _leaf_errors(top):
            for path, msg in _messages(error):
                full = (*prefix, *path[drop:])
                if (full, msg) in seen:
                    continue
                seen.add((full, msg))
                line, col = where(full) if where else (None, None)
                # An unknown key is named in the message: show where it sits, not the key twice.
                shown = full[:-1] if msg.startswith("unknown key") else full
                text = f"{_path_text(shown)}: {msg}" if shown else msg
                problems.append(Problem(file, text, line, col))
    return problems
