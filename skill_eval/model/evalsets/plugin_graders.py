"""``claude plugin eval`` graders → our checks and rubric items, one for one.

regex (on the final message, or on a file: ``file``) → ``regex`` / ``not_regex``; ``tool_used`` on ``Skill`` →
``loaded_skill``; on a shell tool, or without ``input_match`` → ``tool_call`` (min/max kept);
``tool_order`` between shell commands or plain tool names → ``tool_call`` with ``order``;
``file_exists`` with a plain path → ``file_exists``; ``llm`` and ``baseline`` → a rubric item
the judge votes on three times (see grade/judge.py). Everything else (a regex on the trace or
the created-files list, ``count:N``, a glob, ``exists: false``, input matches on tools whose
input our events do not carry) is
returned as *unmapped*, with the reason, for ``inspect`` to name: never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

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
SHELL_TOOLS = ("bash", "shell")
FOCUS_NAMES = ("last_message", "trace", "files", "mock_calls")
JUDGE_VOTES = 3  # claude plugin eval's judge votes per llm/baseline grader per run; 2 pass it
_SKILL_NAME = re.compile(r"([a-z0-9][a-z0-9-]*)\"?\s*\$?$")
_GLOB = re.compile(r"[*?\[]")


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


def _flags(pattern: str, flags: Any) -> tuple[str, bool]:
    """Our pattern and case sensitivity for a JavaScript pattern with ``flags``."""
    text = flags if isinstance(flags, str) else ""
    inline = "".join(f for f in "ms" if f in text)
    return (f"(?{inline}){pattern}" if inline else pattern), "i" not in text


def _count(raw: Any, default: int | None) -> int | None:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0 else default


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

    if kind == "regex":
        pattern = grader.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            return unmapped("a regex grader needs 'pattern' (the body is not read as the pattern)")
        target = grader.get("target", "last_message")
        where: dict[str, Any] = {}
        if (
            isinstance(target, dict)
            and target.get("source") == "file"
            and isinstance(target.get("path"), str)
        ):
            where = {"file": target["path"]}  # the workspace file after the run, as kept
        elif target != "last_message":
            shown = target.get("source") if isinstance(target, dict) else target
            return unmapped(f"target {shown!r}: skill-eval's regex checks read the output or one kept file")
        match = grader.get("match", "contains")
        if match not in ("contains", "not_contains"):
            return unmapped(f"match {match!r}: only contains and not_contains have a skill-eval check")
        ours, sensitive = _flags(pattern, grader.get("flags"))
        warns = (
            ("inline (?i) is not supported by claude plugin eval; skill-eval reads it as case-insensitive",)
            if "(?i)" in pattern
            else ()
        )
        return check(
            "regex" if match == "contains" else "not_regex", {"pattern": ours, **where}, sensitive, warns
        )
    if kind == "tool_used":
        return _tool_used(grader, check, unmapped)
    if kind == "tool_order":
        sides = [_order_side(grader.get(k)) for k in ("before", "after")]
        if None in sides:
            return unmapped(
                "tool_order on a tool's input other than a shell command: skill-eval's "
                "tool_call events carry only the tool's name"
            )
        return check("tool_call", {"order": sides})
    if kind == "file_exists":
        path = grader.get("path")
        if not isinstance(path, str) or not path:
            return unmapped("file_exists needs 'path'")
        if grader.get("exists", True) is False:
            return unmapped("exists: false (a file must not be created) has no skill-eval check")
        if _GLOB.search(path):
            return unmapped(f"path {path!r} is a glob; skill-eval's file_exists takes one path")
        return check("file_exists", {"path": path})
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
    if leaves_workspace(rel) or not path.is_file():
        return None, (f"baseline_file {rel!r} is not a file in the case folder {case_dir.name}/; "
                      "put the reference transcript (.jsonl) there or fix the name")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"baseline_file {rel!r} cannot be read as UTF-8 text ({exc})"
    return replace(item, reference=text), None


def _tool_used(grader: dict[str, Any], check: Any, unmapped: Any) -> Mapped:
    tool = grader.get("tool")
    if not isinstance(tool, str) or not tool:
        return unmapped("tool_used needs 'tool'")
    low, high = _count(grader.get("min"), 1), _count(grader.get("max"), None)
    match = grader.get("input_match")
    if tool.lower() == "skill":
        params: dict[str, Any] = {}
        skill = skill_named(grader)
        if skill:
            params["skill"] = skill
        if low == 0 and high == 0:
            params["expected"] = False
        elif low != 1 or high is not None:
            return unmapped("min/max on Skill calls other than 'at least once' or 'never'")
        return check("loaded_skill", params)
    params = {"tool": "bash" if tool.lower() in SHELL_TOOLS else tool, "min_count": low}
    if high is not None:
        params["max_count"] = high
    if isinstance(match, str) and match:
        if tool.lower() not in SHELL_TOOLS:
            return unmapped(
                f"input_match on {tool}: skill-eval's tool_call events carry only the tool's "
                "name (a shell command's line is matched)"
            )
        params["pattern"] = match
    return check("tool_call", params, True)


def _order_side(side: Any) -> str | None:
    if isinstance(side, str) and side:
        return f"^{re.escape(side)}$"
    if isinstance(side, dict) and isinstance(side.get("tool"), str):
        match = side.get("input_match")
        if side["tool"].lower() in SHELL_TOOLS and isinstance(match, str) and match:
            return match
        if match is None:
            return f"^{re.escape(side['tool'])}$"
    return None
