"""Typed assertions seen in the wild (``{name, type, value(s)|pattern|command|rubric}``) → checks.

Deterministic types map onto our check types only where the meaning is the same; judge-style
types become rubric items; anything else is reported with the closest known type.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from skill_eval.errors import did_you_mean
from skill_eval.intake.schemas_io import load_schema
from skill_eval.model.cases import Check, RubricItem
from skill_eval.model.evalsets.validate import At, Collector

META = ("name", "id", "type", "description", "required", "case_sensitive", "ci", "weight", "oracle")
JUDGE_TYPES = ("judge", "rubric", "llm_judge", "llm-judge")
# Types a reader's input may use that are not ours by name but have an exact equivalent.
NEGATED_ANY = ("not_contains_any", "excludes_any", "excludes", "contains_none")
# Other spellings of our own types, seen in hand-written eval sets.
ALIASES = {"content_includes": "contains", "content_includes_all": "contains_all",
           "content_includes_any": "contains_any", "content_excludes": "not_contains",
           "content_excludes_any": "not_contains_any", "matches": "regex", "not_matches": "not_regex"}


def check_types() -> list[str]:
    return list(load_schema("evals")["$defs"]["check"]["properties"]["type"]["enum"])


def known_types() -> list[str]:
    return [*check_types(), *JUDGE_TYPES, *NEGATED_ANY, *ALIASES]


def native_check(obj: dict[str, Any]) -> Check:
    """A schema-valid native check object as a Check (params: the type's own fields)."""
    own = ("id", "type", "required", "case_sensitive", "description", "critical", "arms")
    params = {k: v for k, v in obj.items() if k not in own}
    arms = obj.get("arms")
    if (arms is None and obj["type"] == "loaded_skill" and obj.get("expected", True) is True
            and not obj.get("skill")):
        # "The skill loaded" cannot hold where no skill is installed: not applied in that arm.
        arms = ["!without_skill"]
    return Check(id=str(obj.get("id", "")), type=str(obj["type"]), required=bool(obj.get("required", True)),
                 case_sensitive=bool(obj.get("case_sensitive", False)), params=params,
                 critical=obj.get("critical") is True, arms=tuple(arms) if isinstance(arms, list) else None)


def _values(col: Collector, obj: dict[str, Any], at: At) -> list[str] | None:
    raw = obj.get("values", obj.get("value"))
    values = [raw] if isinstance(raw, str) else raw
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v for v in values):
        col.error("needs 'values' (a non-empty list of strings) or 'value' (a string); add them", at)
        return None
    return values


def _none_of(values: list[str]) -> tuple[str, dict[str, Any]]:
    # "none of these strings appears" is exactly a not_regex over the escaped alternatives.
    if len(values) == 1:
        return "not_contains", {"value": values[0]}
    return "not_regex", {"pattern": "|".join(re.escape(v) for v in values)}


def _deterministic(col: Collector, kind: str, obj: dict[str, Any], at: At,
                   script_cwd: str | None) -> tuple[list[tuple[str, dict[str, Any]]], tuple[str, ...]]:
    """[(our type, params)] for one typed assertion, plus the extra keys it understood."""
    if kind in ("contains", "contains_all", "contains_any", "not_contains", *NEGATED_ANY):
        values = _values(col, obj, at)
        if values is None:
            return [], ("value", "values")
        if kind in NEGATED_ANY or (kind == "not_contains" and len(values) > 1):
            return [_none_of(values)], ("value", "values")
        if kind in ("contains", "not_contains"):
            return [(kind if len(values) == 1 else "contains_all",
                     {"value": values[0]} if len(values) == 1 else {"values": values})], ("value", "values")
        return [(kind, {"values": values})], ("value", "values")
    if kind in ("regex", "not_regex"):
        pattern = obj.get("pattern", obj.get("value"))
        if not isinstance(pattern, str) or not pattern:
            col.error(f"{kind} needs 'pattern' (a regular expression); add it", at)
            return [], ("pattern", "value")
        return [(kind, {"pattern": pattern})], ("pattern", "value")
    if kind == "file_exists":
        paths = [obj["path"]] if isinstance(obj.get("path"), str) else _values(col, obj, at) or []
        return [("file_exists", {"path": p}) for p in paths], ("path", "value", "values")
    if kind == "script":
        command = obj.get("command")
        if isinstance(command, str):
            try:
                command = shlex.split(command)
            except ValueError as exc:
                col.error(f"script command {command!r} cannot be split into arguments: {exc}", at)
                return [], ("command",)
        if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
            col.error("script needs 'command' (a list of strings); add it", at)
            return [], ("command",)
        params: dict[str, Any] = {"command": command}
        timeout = obj.get("timeout_seconds", obj.get("timeout_s"))
        if timeout is not None:
            params["timeout_seconds"] = timeout
        if obj.get("pass_exit_code", 0) != 0:
            params["pass_exit_code"] = obj["pass_exit_code"]
        if script_cwd is not None:
            params["cwd"] = script_cwd  # the manifest's folder, relative to the skill root: oracles run there
        return [("script", params)], ("command", "timeout_s", "timeout_seconds", "pass_exit_code")
    # Our remaining native types carry their own fields unchanged.
    params = {k: v for k, v in obj.items() if k not in META}
    return [(kind, params)], tuple(params)


def typed_assertion(col: Collector, obj: dict[str, Any], at: At, script_cwd: str | None = None
                    ) -> tuple[list[tuple[Check, At]], list[RubricItem]]:
    """Map one typed assertion object; every problem goes to ``col``."""
    kind = obj.get("type")
    kind = ALIASES.get(kind, kind) if isinstance(kind, str) else kind
    name = obj.get("name", obj.get("id"))
    name = str(name) if name not in (None, "") else ""
    required = obj.get("required", True) is not False
    if kind in JUDGE_TYPES:
        rubric = obj.get("rubric", obj.get("text", obj.get("description")))
        lines = [rubric] if isinstance(rubric, str) else rubric
        if not isinstance(lines, list) or not lines or not all(isinstance(x, str) and x.strip()
                                                               for x in lines):
            col.error("judge assertion needs 'rubric' (a sentence or a list of sentences); add it", at)
            return [], []
        col.unknown_fields(obj, (*META, "rubric", "text"), at)
        weight = obj.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, int | float):
            col.error(f"weight {weight!r} must be a number", (*at, "weight"))
            weight = 1.0
        stem = name or "judge"
        items = [RubricItem(id=stem if len(lines) == 1 else f"{stem}-{i + 1}", text=t, weight=float(weight),
                            required=required) for i, t in enumerate(lines)]
        return [], items
    if not isinstance(kind, str) or kind not in known_types():
        col.error(f"unknown assertion type {kind!r}{_hint(kind)}; use one of: {', '.join(check_types())}",
                  (*at, "type"))
        return [], []
    mapped, understood = _deterministic(col, kind, obj, at, script_cwd)
    col.unknown_fields(obj, (*META, *understood), at)
    checks: list[tuple[Check, At]] = []
    for i, (our_type, params) in enumerate(mapped):
        cid = name if len(mapped) == 1 else (f"{name}-{i + 1}" if name else "")
        checks.append((Check(id=cid, type=our_type, required=required,
                             case_sensitive=_case_sensitive(obj), params=params), at))
    return checks, []


def _hint(kind: Any) -> str:
    return did_you_mean(kind, known_types()) if isinstance(kind, str) else ""


def _case_sensitive(obj: dict[str, Any]) -> bool:
    # skill-eval-harness spells it ``ci`` (case-insensitive, default true); ours is the inverse.
    if "case_sensitive" in obj:
        return obj["case_sensitive"] is True
    return obj.get("ci", True) is False
