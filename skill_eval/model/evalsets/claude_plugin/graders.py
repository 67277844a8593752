"""``claude plugin eval`` graders → our checks and rubric items, one for one.

The deterministic graders become the check types that grade with plugin eval's own semantics
(grade/checks/plugin_text.py, plugin_tools.py): ``regex`` → ``plugin_regex`` (JavaScript
pattern and flags, contains / not_contains / count:N, on last_message, trace, files, mock_calls
or a file), ``tool_used`` → ``plugin_tool_used``, ``tool_order`` → ``plugin_tool_order``,
``file_exists`` → ``plugin_file_exists`` (glob, ``exists: false``); ``llm`` and ``baseline`` →
a rubric item the judge votes on three times (grade/votes.py). Each keeps its ``weight``, and
§8's plugin-fired indicators are marked (``indicator_candidate``). What cannot be graded here is
returned as *unmapped*, with the reason, for ``inspect`` to name: never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from skill_eval.fs.confined import Unreadable, confined_text
from skill_eval.intake.limits import MAX_NUMBER_DIGITS, REGEX_TIMEOUT_MS, NumberTooLong
from skill_eval.intake.regexrisk import glob_risk
from skill_eval.model.cases import Check, RubricItem
from skill_eval.model.evalsets.validate import leaves_workspace

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
FOCUS_NAMES = ("last_message", "trace", "files", "mock_calls")
JUDGE_VOTES = 3  # claude plugin eval's judge votes per llm/baseline grader per run; 2 pass it
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
    error: str | None = None  # a value of the wrong type: a load error (as claude plugin eval's)


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


def indicator_candidate(grader: dict[str, Any], mocks_all_declared: bool = False) -> bool:
    """Is this grader in §8's set of plugin-fired indicators (left out of a two-arm case's
    score, graded in the with-arm only): a ``tool_used`` on Skill, an ``arm: with-only`` grader,
    or a regex/llm grader on ``mock_calls`` when every mocked server is the plugin's own;
    ``arm: both`` takes any grader out of the set."""
    arm = grader.get("arm")
    if arm == "both":
        return False
    on_mocks = grader.get("target" if grader.get("type") == "regex" else "focus") == "mock_calls"
    return skill_fired(grader) or arm in ("with-only", "with_only") or (on_mocks and mocks_all_declared)


def weight_of(grader: dict[str, Any]) -> float | None:
    """The grader's ``weight`` (default 1), or None when it is not a number above 0 (the real
    command refuses to load such a case: "Number must be greater than 0")."""
    raw = grader.get("weight", 1)
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not raw > 0 or raw != raw:
        return None
    return float(raw)


def _whole(raw: Any) -> bool:
    return isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0


def map_grader(name: str, grader: dict[str, Any], indicator: bool) -> Mapped:
    """One grader (its frontmatter or case.yaml entry, with the body as ``criteria``).
    ``indicator``: the case runs it as a plugin-fired indicator (§8, decided per case by
    ``indicator_candidate``): graded in the with-arm only, not required, not in the score."""
    kind = grader.get("type")
    kind_text = str(kind)
    arms = ("with_skill",) if indicator else None
    weight = weight_of(grader) or 1.0

    def check(
        type_: str, params: dict[str, Any], case_sensitive: bool = False, warnings: tuple[str, ...] = ()
    ) -> Mapped:
        return Mapped(
            name,
            kind_text,
            Check(id=name, type=type_, case_sensitive=case_sensitive, params=params, arms=arms,
                  required=not indicator, weight=weight, indicator=indicator),
            warnings=warnings,
        )

    def unmapped(why: str) -> Mapped:
        return Mapped(name, kind_text, unmapped=why)

    why = _wrong_type(grader)
    if why is not None:  # never graded with a default in its place: that can invert the verdict
        return Mapped(name, kind_text, error=why)

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
        why = glob_risk(path)
        warns = (f"path {path!r} {why}; grading stops it after {REGEX_TIMEOUT_MS} ms and fails the "
                 "grader: use fewer wildcards",) if why else ()
        return check("plugin_file_exists", {"path": path, **({} if exists else {"exists": False})}, True,
                     warns)
    if kind in ("llm", "llm_rubric", "baseline"):
        return _judged(name, kind_text, grader, unmapped, weight, indicator)
    return unmapped(f"unknown grader type {kind!r}")


def focus_of(raw: Any) -> str | None:
    """An llm grader's ``focus`` as a RubricItem focus (``file:<path>`` for a file), or None."""
    if raw in FOCUS_NAMES:
        return str(raw)
    if isinstance(raw, dict) and raw.get("source") == "file" and isinstance(raw.get("path"), str) \
            and raw["path"].strip():
        return f"file:{raw['path']}"
    return None


def _judged(name: str, kind: str, grader: dict[str, Any], unmapped: Any, weight: float,
            indicator: bool) -> Mapped:
    """llm and baseline: a rubric item judged the plugin-eval way (3 one-word votes, pass on 2).
    A baseline item's ``reference`` is left None here: the reader reads ``reference_file``."""
    criteria = grader.get("criteria")
    if not isinstance(criteria, str) or not criteria.strip():
        return unmapped(f"an {kind} grader needs criteria (the file's body, or 'criteria')")
    warns = []
    if kind == "llm_rubric":
        warns.append("type llm_rubric is not a claude plugin eval type; read as llm")
    reference_file = ""
    if kind == "baseline":
        reference_file = grader.get("baseline_file")
        if not isinstance(reference_file, str) or not reference_file.strip():
            return unmapped("a baseline grader needs baseline_file (a .jsonl transcript in the case folder)")
        focus = "trace"  # the judge compares the run's session with the reference
    else:
        found = focus_of(grader.get("focus", "last_message"))
        if found is None:
            return unmapped(f"focus {grader.get('focus')!r}: expected one of {', '.join(FOCUS_NAMES)} "
                            "or {source: file, path: <path>}")
        focus = found
    item = RubricItem(id=name, text=criteria.strip(), weight=weight, required=not indicator,
                      indicator=indicator, votes=JUDGE_VOTES, focus=focus, reference_file=reference_file)
    return Mapped(name, kind, rubric=item, warnings=tuple(warns))


def with_reference(item: RubricItem, case_dir: Path) -> tuple[RubricItem | None, str | None]:
    """A baseline item with its reference transcript read from the case folder, or (None, why
    not). A focus file must stay in the run's workspace. Both are load errors: a baseline grader
    that cannot be judged would otherwise fail every run in silence."""
    if item.focus.startswith("file:") and leaves_workspace(item.focus[5:]):
        return None, (f"focus path {item.focus[5:]!r} leaves the run's workspace; use a path "
                      "relative to the workspace without '..'")
    if not item.reference_file:
        return item, None
    rel = item.reference_file
    path = case_dir / rel
    if leaves_workspace(rel) or not (path.exists() or path.is_symlink()):
        return None, (f"baseline_file {rel!r} is not a file in the case folder {case_dir.name}/; "
                      "put the reference transcript (.jsonl) there or fix the name")
    try:
        text = confined_text(path, case_dir)
    except Unreadable as exc:
        return None, f"baseline_file {rel!r} {exc}"
    return replace(item, reference=text), None


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


def _wrong_type(grader: dict[str, Any]) -> str | None:
    """Why a grader's value of the wrong type cannot be graded, or None: a tool_used or
    tool_order grader's bounds or input_match (``max: "0"`` read as the default would turn
    "never" into "at least once"), a regex grader's count:N past the digit bound."""
    kind = grader.get("type")
    if kind == "tool_used":
        for key in ("min", "max"):
            value = grader.get(key)
            if value is not None and not _whole(value):
                return (f"{key}: {value!r} must be a whole number 0 or more (not text, a fraction, "
                        "a negative number or true/false); write it unquoted, like 0")
        sides = {"": grader}
    elif kind == "tool_order":
        sides = {f"{k}.": grader[k] for k in ("before", "after") if isinstance(grader.get(k), dict)}
    else:
        match = grader.get("match")
        digits = sum(ch.isdigit() for ch in match) if kind == "regex" and isinstance(match, str) else 0
        return f"match: count:N is {NumberTooLong(digits)}" if digits > MAX_NUMBER_DIGITS else None
    for where, side in sides.items():
        match = side.get("input_match")
        if match is not None and not isinstance(match, str):
            return (f"{where}input_match: must be a string (one JavaScript regular expression), "
                    f"got {type(match).__name__}")
    return None


def _tool_used(grader: dict[str, Any], check: Any, unmapped: Any) -> Mapped:
    tool = grader.get("tool")
    if not isinstance(tool, str) or not tool:
        return unmapped("tool_used needs 'tool'")
    low, high = grader.get("min", 1), grader.get("max")
    low = 1 if low is None else low
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
