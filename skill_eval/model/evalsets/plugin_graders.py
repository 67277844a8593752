"""``claude plugin eval`` graders → our checks and rubric items, one for one.

The deterministic graders become the check types that grade with plugin eval's own semantics
(grade/checks/plugin_text.py, plugin_tools.py): ``regex`` → ``plugin_regex`` (JavaScript
pattern and flags, contains / not_contains / count:N, on last_message, trace, files or a file),
``tool_used`` → ``plugin_tool_used``, ``tool_order`` → ``plugin_tool_order``, ``file_exists`` →
``plugin_file_exists`` (glob, ``exists: false``); ``llm`` → a rubric item for the judge.
What cannot be graded here (``mock_calls`` until mocks run, ``baseline``) is returned as
*unmapped*, with the reason, for ``inspect`` to name: never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from skill_eval.model.cases import Check, RubricItem

GRADER_KEYS = (
    "name",
    "type",
    "weight",
    "arm",
    "pattern",
    "flags",
    "match",
    "target",
    "tool",
    "input_match",
    "min",
    "max",
    "before",
    "after",
    "path",
    "exists",
    "criteria",
    "focus",
    "baseline_file",
)
_SKILL_NAME = re.compile(r"([a-z0-9][a-z0-9-]*)\"?\s*\$?$")


@dataclass(frozen=True)
class Mapped:
    """What one grader became: a check, a rubric item, or the reason it is not graded here."""

    name: str
    type: str
    check: Check | None = None
    rubric: RubricItem | None = None
    unmapped: str | None = None
    warnings: tuple[str, ...] = ()


def skill_fired(grader: dict[str, Any]) -> bool:
    """Is this the canonical "the skill fired" grader (tool_used on Skill)?"""
    return grader.get("type") == "tool_used" and str(grader.get("tool", "")).lower() == "skill"


def skill_named(grader: dict[str, Any]) -> str | None:
    """The skill a "skill fired" grader's input_match names (``...:)?coach"`` → coach)."""
    pattern = grader.get("input_match")
    if not skill_fired(grader) or not isinstance(pattern, str):
        return None
    found = _SKILL_NAME.search(pattern)
    return found.group(1) if found else None


def _arms(grader: dict[str, Any], default_with_only: bool) -> tuple[str, ...] | None:
    arm = grader.get("arm")
    if arm in ("with-only", "with_only"):
        return ("with_skill",)
    if arm == "both":
        return None
    return ("with_skill",) if default_with_only else None


def _count(raw: Any, default: int | None) -> int | None:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0 else default


def map_grader(name: str, grader: dict[str, Any], default_with_only: bool) -> Mapped:
    """One grader (its frontmatter or case.yaml entry, with the body as ``criteria``)."""
    kind = grader.get("type")
    kind_text = str(kind)
    arms = _arms(grader, default_with_only)

    def check(
        type_: str, params: dict[str, Any], case_sensitive: bool = False, warnings: tuple[str, ...] = ()
    ) -> Mapped:
        return Mapped(
            name,
            kind_text,
            Check(id=name, type=type_, case_sensitive=case_sensitive, params=params, arms=arms),
            warnings=warnings,
        )

    def unmapped(why: str) -> Mapped:
        return Mapped(name, kind_text, unmapped=why)

    if kind == "regex":
        return _regex(grader, check, unmapped)
    if kind == "tool_used":
        return _tool_used(grader, check, unmapped)
    if kind == "tool_order":
        sides = [_order_side(grader.get(k)) for k in ("before", "after")]
        if None in sides:
            return unmapped("tool_order needs 'before' and 'after', each a tool name or {tool, input_match}")
        return check("plugin_tool_order", {"before": sides[0], "after": sides[1]}, True)
    if kind == "file_exists":
        path = grader.get("path")
        if not isinstance(path, str) or not path:
            return unmapped("file_exists needs 'path'")
        exists = grader.get("exists", True)
        if not isinstance(exists, bool):
            return unmapped("file_exists 'exists' must be true or false")
        return check("plugin_file_exists", {"path": path, **({} if exists else {"exists": False})}, True)
    if kind in ("llm", "llm_rubric"):
        criteria = grader.get("criteria")
        if not isinstance(criteria, str) or not criteria.strip():
            return unmapped("an llm grader needs criteria (the file's body, or 'criteria')")
        weight = grader.get("weight", 1)
        weight = float(weight) if isinstance(weight, int | float) and not isinstance(weight, bool) else 1.0
        warns = []
        if kind == "llm_rubric":
            warns.append("type llm_rubric is not a claude plugin eval type; read as llm")
        if grader.get("focus", "last_message") != "last_message":
            warns.append("focus other than last_message: the judge sees the output and the kept files")
        return Mapped(
            name,
            kind_text,
            rubric=RubricItem(id=name, text=criteria.strip(), weight=weight),
            warnings=tuple(warns),
        )
    if kind == "baseline":
        return unmapped("baseline graders compare with a reference transcript; skill-eval has no such check")
    return unmapped(f"unknown grader type {kind!r}")


def _regex(grader: dict[str, Any], check: Any, unmapped: Any) -> Mapped:
    pattern = grader.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        return unmapped("a regex grader needs 'pattern' (the body is not read as the pattern)")
    target = grader.get("target", "last_message")
    params: dict[str, Any] = {"pattern": pattern}
    if isinstance(target, dict) and target.get("source") == "file" and isinstance(target.get("path"), str):
        params["file"] = target["path"]  # the workspace file after the run, as kept
    elif target in ("last_message", "trace", "files", "mock_calls"):
        if target != "last_message":
            params["target"] = target
    else:
        return unmapped(f"target {target!r} is not one of last_message, trace, files, mock_calls, "
                        "{source: file, path}")
    flags = grader.get("flags", "")
    if not isinstance(flags, str):
        return unmapped("'flags' must be a string such as i or gm")
    if flags:
        params["flags"] = flags
    match = grader.get("match", "contains")
    if not isinstance(match, str) or not (
            match in ("contains", "not_contains") or match.startswith("count:")):
        return unmapped(f"match {match!r}: claude plugin eval knows contains, not_contains and count:N")
    if match != "contains":
        params["match"] = match
    warns = (("inline (?i) is not JavaScript: claude plugin eval's grader throws on it, so it always "
              "fails (there and here); use flags: i",) if re.search(r"\(\?[a-zA-Z-]+\)", pattern) else ())
    return check("plugin_regex", params, True, warns)


def _tool_used(grader: dict[str, Any], check: Any, unmapped: Any) -> Mapped:
    tool = grader.get("tool")
    if not isinstance(tool, str) or not tool:
        return unmapped("tool_used needs 'tool'")
    low, high = _count(grader.get("min"), 1), _count(grader.get("max"), None)
    params: dict[str, Any] = {"tool": tool}
    match = grader.get("input_match")
    if isinstance(match, str) and match:
        params["input_match"] = match
    if low != 1:
        params["min"] = low
    if high is not None:
        params["max"] = high
    return check("plugin_tool_used", params, True)


def _order_side(side: Any) -> str | dict[str, str] | None:
    if isinstance(side, str) and side:
        return side
    if isinstance(side, dict) and isinstance(side.get("tool"), str) and side["tool"]:
        match = side.get("input_match")
        return {"tool": side["tool"], **({"input_match": match} if isinstance(match, str) and match else {})}
    return None
