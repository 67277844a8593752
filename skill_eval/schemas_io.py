"""The JSON Schemas in ``schemas/``: loaded and compiled once, errors turned into Problems."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import Problem, did_you_mean

Where = Callable[[tuple[str | int, ...]], tuple[int | None, int | None]]


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema ``schemas/<name>.schema.json``."""
    return json.loads(schema_path(name).read_text("utf-8"))


def schema_path(name: str) -> Path:
    # A source checkout keeps schemas/ beside the package; an installed wheel maps it to
    # the package ``skill_eval.schemas``.
    local = Path(__file__).resolve().parent.parent / "schemas" / f"{name}.schema.json"
    if local.is_file():
        return local
    return Path(str(resources.files("skill_eval.schemas").joinpath(f"{name}.schema.json")))


@cache
def validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    schema = load_schema(name)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _path_text(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _leaf_errors(error: Any) -> list[Any]:
    # Errors from if/then and allOf nest the useful message inside `context`.
    if error.context:
        leaves: list[Any] = []
        for sub in error.context:
            leaves.extend(_leaf_errors(sub))
        return leaves
    return [error]


def _message(error: Any, schema_root: dict[str, Any]) -> tuple[tuple[str | int, ...], str]:
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        extras = [k for k in error.instance if k not in allowed] if isinstance(error.instance, dict) else []
        parts = []
        for key in extras:
            parts.append(f"unknown key '{key}'{did_you_mean(key, allowed)}")
        msg = "; ".join(parts) or error.message
        if extras:
            path = (*path, extras[0])
        return path, msg + f" (allowed: {', '.join(sorted(allowed))})"
    if error.validator == "enum":
        choices = [str(c) for c in error.validator_value]
        got = error.instance
        return path, (f"'{got}' is not one of {', '.join(choices)}"
                      + (did_you_mean(got, choices) if isinstance(got, str) else ""))
    if error.validator == "required":
        return path, error.message.replace("is a required property", "is required but missing")
    if error.validator == "maxLength" and isinstance(error.instance, str):
        return path, (f"is {len(error.instance)} characters long; the maximum is {error.validator_value}: "
                      "shorten it")
    if error.validator == "minLength" and isinstance(error.instance, str):
        return path, "must not be empty"
    if error.validator == "pattern" and isinstance(error.instance, str):
        return path, f"'{error.instance[:80]}' does not match the required pattern {error.validator_value}"
    if error.validator == "type":
        return path, f"must be of type {error.validator_value}, got {type(error.instance).__name__}"
    return path, error.message


def schema_problems(name: str, instance: Any, file: str, where: Where | None = None,
                    prefix: tuple[str | int, ...] = ()) -> list[Problem]:
    """Every schema violation of ``instance`` as a Problem naming the key path (and line)."""
    problems: list[Problem] = []
    seen: set[tuple[tuple[str | int, ...], str]] = set()
    root = load_schema(name)
    for top in sorted(validator(name).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        for error in _leaf_errors(top):
            path, msg = _message(error, root)
            full = (*prefix, *path)
            if (full, msg) in seen:
                continue
            seen.add((full, msg))
            line, col = where(full) if where else (None, None)
            problems.append(Problem(file, f"{_path_text(full)}: {msg}", line, col))
    return problems
