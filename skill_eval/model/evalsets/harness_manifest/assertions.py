"""skill-eval-harness assertions (its 25 types) → checks and rubric items, with its severities.

Deterministic types become checks with the same meaning; ``judge`` / ``rubric`` /
``factuality`` (and embedding ``similarity``) become rubric items for the suite's judge.
Severity follows the harness: ``gate`` (also spelled ``normal`` / ``required``) counts toward
the pass rate, ``soft`` is reported beside it, ``critical`` vetoes the run. Judge and
similarity assertions are soft unless they say otherwise. A type nothing here can grade is
returned by name, so the reader can leave that one case out with a warning.

Paths follow the harness's run layout (``output.md``, ``metadata.json``, ``outputs/...``):
``outputs/x`` is the file the run left at ``outputs/x`` in its workspace, ``output.md`` its
output, ``metadata.json`` its timing and usage.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from skill_eval.model.cases import Check, RubricItem
from skill_eval.model.evalsets.validate import At, Collector

COMMON = ("type", "name", "description", "ci", "severity", "critical", "gate", "soft", "oracle",
          "variants", "only_variants", "except_variants", "depends_on", "atLeast", "_migrate_todo")
FIELDS: dict[str, tuple[str, ...]] = {
    "contains": ("value", "comparison"),
    "contains_any": ("values", "value", "comparison"),
    "contains_all": ("values", "value", "comparison"),
    "excludes_any": ("values", "value", "comparison"),
    "regex": ("pattern", "value", "comparison"),
    "not_regex": ("pattern", "value", "comparison"),
    "file_exists": ("path", "value"),
    "json_field_equals": ("path", "field", "equals"),
    "golden_output": ("reference", "value", "artifact", "normalize"),
    "similarity": ("expected", "value", "artifact", "threshold", "mode", "comparison"),
    "structured_output": ("path", "schema"),
    "script": ("command", "timeout_s", "pass_exit_code"),
    "skill_invoked": ("expected",),
    "command_ran": ("pattern", "value"),
    "command_not_ran": ("pattern", "value"),
    "command_order": ("patterns",),
    "tool_call": ("tool", "pattern", "expected_no_call", "required_calls", "call_set", "order", "min_count",
                  "max_count"),
    "tool_count_le": ("tool", "max", "value"),
    "no_repeated_command_loop": ("max_repeats", "max", "value"),
    "total_tokens_le": ("max", "value"),
    "elapsed_seconds_le": ("max", "value"),
    "command_count_le": ("max", "value"),
    "judge": ("preset", "prompt", "rubric", "review_rubric", "threshold", "graded_dimensions",
              "dynamic_rubric", "per_step"),
}
FIELDS["rubric"] = FIELDS["factuality"] = FIELDS["judge"]
JUDGE_TYPES = ("judge", "rubric", "factuality")
SEVERITIES = {"critical": "critical", "gate": "gate", "normal": "gate", "required": "gate", "soft": "soft"}
# Our own wording of a grounding rubric, for ``factuality`` and ``preset: factuality``.
FACTUALITY = ("Every factual claim in the output is backed by the prompt, the input files or common "
              "knowledge; nothing (names, numbers, dates, APIs, citations) is made up.",
              "Whatever goes beyond the given material is marked as an assumption, not stated as fact.",
              "Nothing in the output contradicts the given material.")

Mapped = tuple[list[tuple[Check, At]], list[RubricItem], str | None]


def severity_of(obj: dict[str, Any]) -> str:
    raw = obj.get("severity")
    if isinstance(raw, str) and raw in SEVERITIES:
        return SEVERITIES[raw]
    for flag in ("critical", "gate", "soft"):
        if obj.get(flag) is True:
            return flag
    if obj.get("type") in (*JUDGE_TYPES, "similarity") or "atLeast" in obj:
        return "soft"
    return "gate"


def arms_of(obj: dict[str, Any]) -> tuple[str, ...] | None:
    only = obj.get("variants", obj.get("only_variants"))
    if isinstance(only, list) and only:
        return tuple(str(v) for v in only)
    excluded = obj.get("except_variants")
    if isinstance(excluded, list) and excluded:
        return tuple(f"!{v}" for v in excluded)  # every arm but these
    return None


def _run_path(rel: str) -> str:
    """A path in the harness's run folder as our check's ``file`` (workspace-relative, like the
    run folder: ``outputs/x`` is ``outputs/x``)."""
    rel = rel.replace("\\", "/").removeprefix("./")
    if rel == "output.md":
        return "output"
    if rel == "metadata.json":
        return ":metadata"
    return rel


def _values(col: Collector, obj: dict[str, Any], at: At) -> list[str] | None:
    raw = obj.get("values", obj.get("value"))
    values = [raw] if isinstance(raw, str) else raw
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v for v in values):
        col.error("needs 'values' (a non-empty list of strings) or 'value'; add them", at)
        return None
    return values


def _operand(col: Collector, obj: dict[str, Any], at: At, *keys: str) -> Any:
    for key in keys:
        if key in obj:
            return obj[key]
    col.error(f"{obj['type']} needs '{keys[0]}'; add it", at)
    return None


def _number(obj: dict[str, Any], default: float, *keys: str) -> Any:
    return next((obj[k] for k in keys if k in obj), default)


def _check(col: Collector, kind: str, obj: dict[str, Any], at: At, base: Path, cwd: str
           ) -> list[tuple[str, dict[str, Any]]] | None:
    """[(our type, params)] for one deterministic assertion; None after an error."""
    if kind in ("contains", "contains_any", "contains_all", "excludes_any"):
        values = _values(col, obj, at)
        if values is None:
            return None
        if kind == "excludes_any":
            if len(values) == 1:
                return [("not_contains", {"value": values[0]})]
            return [("not_regex", {"pattern": "|".join(re.escape(v) for v in values)})]
        if kind == "contains":
            if len(values) == 1:
                return [("contains", {"value": values[0]})]
            return [("contains_all", {"values": values})]
        return [(kind, {"values": values})]
    if kind in ("regex", "not_regex", "command_ran", "command_not_ran"):
        pattern = _operand(col, obj, at, "pattern", "value")
        return None if pattern is None else [(kind, {"pattern": pattern})]
    if kind == "file_exists":
        rel = _operand(col, obj, at, "path", "value")
        if not isinstance(rel, str) or not rel:
            return None
        target = _run_path(rel)
        return [("regex", {"pattern": r"\S"})] if target == "output" else [("file_exists", {"path": target})]
    if kind == "json_field_equals":
        field = obj.get("field")
        if not isinstance(field, str) or not field or "equals" not in obj:
            col.error("json_field_equals needs 'field' (a dotted path) and 'equals'; add them", at)
            return None
        return [("json_path_equals", {"path": field, "value": obj["equals"],
                                      "file": _run_path(str(obj.get("path", "metadata.json")))})]
    if kind == "structured_output":
        schema = obj.get("schema")
        if not isinstance(schema, dict) or not schema:
            col.error("structured_output needs 'schema' (a JSON Schema object); add it", at)
            return None
        return [("json_schema", {"schema": schema, "file": _run_path(str(obj.get("path", "output.md")))})]
    if kind == "golden_output":
        return _golden(col, obj, at, base)
    if kind == "similarity":
        expected = _operand(col, obj, at, "expected", "value")
        if not isinstance(expected, str) or not expected:
            return None
        params: dict[str, Any] = {"expected": expected,
                                  "threshold": obj.get("atLeast", obj.get("threshold", 0.8))}
        if "artifact" in obj:
            params["file"] = _run_path(str(obj["artifact"]))
        return [("similarity", params)]
    if kind == "script":
        return _script(col, obj, at, cwd)
    if kind == "skill_invoked":
        return [("loaded_skill", {"expected": obj.get("expected", True) is not False})]
    if kind == "command_order":
        return [("command_order", {"patterns": obj.get("patterns")})]
    if kind == "tool_call":
        return [("tool_call", {k: obj[k] for k in FIELDS["tool_call"] if k in obj})]
    if kind in ("tool_count_le", "command_count_le"):
        params = {"max": _number(obj, 0, "max", "value")}
        if kind == "tool_count_le" and "tool" in obj:
            params["tool"] = obj["tool"]
        return [(kind, params)]
    if kind == "no_repeated_command_loop":
        return [(kind, {"max": _number(obj, 1, "max_repeats", "max", "value")})]
    if kind == "total_tokens_le":
        return [("max_tokens", {"limit": _number(obj, 0, "max", "value")})]
    return [("max_seconds", {"limit": _number(obj, 0, "max", "value")})]  # elapsed_seconds_le


def _golden(col: Collector, obj: dict[str, Any], at: At, base: Path
            ) -> list[tuple[str, dict[str, Any]]] | None:
    rel = _operand(col, obj, at, "reference", "value")
    if not isinstance(rel, str) or not rel:
        return None
    source = col.inside(rel, base, (*at, "reference" if "reference" in obj else "value"))
    if source is None:
        return None
    try:
        expected = source.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        col.error(f"cannot read golden_output reference '{rel}': {exc}", at)
        return None
    # The reference's content, not its path, goes into the check: the grade key follows the file.
    params: dict[str, Any] = {"expected": expected, "reference": rel,
                              "normalize": obj.get("normalize", "exact")}
    if "artifact" in obj:
        params["file"] = _run_path(str(obj["artifact"]))
    return [("golden_output", params)]


def _script(col: Collector, obj: dict[str, Any], at: At, cwd: str) -> list[tuple[str, dict[str, Any]]] | None:
    command = obj.get("command")
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as exc:
            col.error(f"script command {command!r} cannot be split into arguments: {exc}", at)
            return None
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        col.error("script needs 'command' (a list of strings); add it", at)
        return None
    # Oracles run from the manifest's folder and see the harness's run folder as {output_dir}.
    params: dict[str, Any] = {"command": command, "cwd": cwd, "run_layout": True,
                              "timeout_seconds": obj.get("timeout_s", 30)}
    if obj.get("pass_exit_code", 0) != 0:
        params["pass_exit_code"] = obj["pass_exit_code"]
    return [("script", params)]


def _judge_lines(obj: dict[str, Any]) -> tuple[list[str], str | None]:
    """The sentences a judge grades, or ([], why it cannot be judged here)."""
    if obj.get("per_step"):
        return [], "judge with per_step (it needs the run's step-by-step trajectory)"
    lines: list[str] = []
    for key in ("prompt", "rubric", "review_rubric"):
        value = obj.get(key)
        lines += [value] if isinstance(value, str) else [v for v in value or [] if isinstance(v, str)]
    if obj.get("type") == "factuality" or obj.get("preset") == "factuality":
        lines += FACTUALITY
    threshold = obj.get("threshold", 4)
    for dim in obj.get("graded_dimensions") or []:
        if isinstance(dim, dict) and isinstance(dim.get("rubric"), str):
            lines.append(f"{dim.get('name', 'dimension')}: scores at least {threshold} on this 1-5 scale: "
                         f"{dim['rubric']}")
    dynamic = obj.get("dynamic_rubric")
    if isinstance(dynamic, dict) and isinstance(dynamic.get("instruction"), str):
        lines.append(f"Meets at least {dynamic.get('minimum_criteria', 3)} case-specific criteria drawn "
                     f"from: {dynamic['instruction']}")
    return [line for line in lines if line.strip()], None


def harness_assertion(col: Collector, obj: dict[str, Any], at: At, base: Path, cwd: str) -> Mapped:
    """One assertion → (checks, rubric items, the type when it cannot be graded here)."""
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        return [], [], str(kind)
    col.unknown_fields(obj, (*COMMON, *FIELDS[kind]), at)
    name = str(obj.get("name") or obj.get("description") or "")
    severity = severity_of(obj)
    required, critical = severity != "soft", severity == "critical"
    if kind in JUDGE_TYPES or (kind == "similarity" and obj.get("mode") == "embedding"):
        if kind == "similarity":
            floor = obj.get("atLeast", obj.get("threshold", 0.8))
            lines, why = [f"Says the same as this expected text (semantic similarity of at least {floor}): "
                          f"{obj.get('expected', obj.get('value'))}"], None
        else:
            lines, why = _judge_lines(obj)
        if why:
            return [], [], why
        if not lines:
            col.error(f"{kind} assertion needs 'rubric' or 'prompt' (what the judge checks); add it", at)
            return [], [], None
        if arms_of(obj) is not None:
            col.warn("variants on a judge assertion are not applied: the judge grades it in every arm", at)
        stem = name or kind
        return [], [RubricItem(id=stem if len(lines) == 1 else f"{stem}-{i + 1}", text=t, required=required,
                               critical=critical) for i, t in enumerate(lines)], None
    mapped = _check(col, kind, obj, at, base, cwd)
    if mapped is None:
        return [], [], None
    ci = obj.get("ci", True) is not False
    checks = [(Check(id=name if len(mapped) == 1 else "", type=t, required=required, case_sensitive=not ci,
                     params=p, critical=critical, arms=arms_of(obj)), at) for t, p in mapped]
    return checks, [], None
