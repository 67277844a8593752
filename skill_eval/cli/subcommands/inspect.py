"""``skill-eval inspect PATH``: what skill-eval makes of an eval-set file, or of every one in a folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem
from skill_eval.model.evalsets import find_evalsets, read_evalset
from skill_eval.model.evalsets.discover import find_all_evalsets
from skill_eval.model.project import ungradable
from skill_eval.model.suitechecks.case_leaks import case_leaks


def inspect_file(path: Path, format: str | None = None, display: str | None = None) -> dict[str, Any]:
    """One eval-set file as counts plus every problem; never raises for a bad file."""
    shown = display or str(path)
    try:
        evalset = read_evalset(path, format=format, display=shown)
    except InvalidInput as exc:
        return {"path": shown, "format": format, "skill_name": None, "cases": 0, "triggers": 0, "checks": 0,
                "rubric": 0, "graders": 0, "unmapped": [], "problems": [p.format() for p in exc.problems],
                "readable": False}
    checks = sum(len(c.checks) for c in evalset.cases)
    rubric = sum(len(c.rubric) for c in evalset.cases)
    # A set with errors is refused before its cases are looked at (as `validate` does): a case
    # whose grader was refused is not also a case "with no checks".
    readable = not any(p.is_error for p in evalset.problems)
    problems = [*evalset.problems, *(case_problems(evalset, path, shown) if readable else ())]
    return {
        "path": shown,
        "format": evalset.format,
        "skill_name": evalset.skill_name,
        "cases": len(evalset.tasks),
        "triggers": len(evalset.triggers),
        "checks": checks,
        "rubric": rubric,
        # What the source format's graders became: checks, rubric items, and the ones not graded.
        "graders": checks + rubric + len(evalset.unmapped),
        "unmapped": list(evalset.unmapped),
        "settings": _settings(evalset.cases),
        "problems": [p.format() for p in problems],
        "readable": readable,
    }


def case_problems(evalset: Any, path: Path, shown: str) -> list[Problem]:
    """What `validate` says of this set's cases beyond its own reading, in the same words: the
    leak lints, and cases nothing but a judge can grade (a warning here: only the suite says
    whether it has a judge; `validate` refuses them without one)."""
    skill_dir = next((d for d in (path.parent, path.parent.parent) if (d / "SKILL.md").is_file()), None)
    skill = evalset.skill_name or (skill_dir.name if skill_dir is not None else path.stem)
    bare = [c for c in evalset.cases if c.kind == "task" and not c.checks and not c.rubric]
    return [*case_leaks(evalset, skill_dir, shown), *ungradable(skill, shown, bare, "warning")]


_SETTINGS = ("runs", "model", "max_turns", "timeout_seconds", "append_system_prompt", "env",
             "allowed_tools", "scaffold", "history", "mocks")


def _settings(cases: Any) -> dict[str, int]:
    """How many cases set each run setting of their own (plugin eval suites): all are applied."""
    out: dict[str, int] = {}
    for case in cases:
        for name in _SETTINGS if case.settings is not None else ():
            value = getattr(case.settings, name)
            if value or (value is not None and name != "env"):
                out[name] = out.get(name, 0) + 1
    return {name: out[name] for name in _SETTINGS if name in out}


def inspect_path(path: Path, format: str | None = None) -> dict[str, Any] | list[dict[str, Any]]:
    """A dict for a file; for a folder a list, one dict per eval-set file found.

    A skill folder (with SKILL.md) yields its own eval sets (see evalsets.discover); any other
    folder yields those of every ``evals/`` folder below it.
    """
    if not path.is_dir():
        return inspect_file(path, format)
    files = find_evalsets(path) if (path / "SKILL.md").is_file() else find_all_evalsets(path)
    return [inspect_file(f, format, _shown(f, path)) for f in files]


def _shown(file: Path, folder: Path) -> str:
    try:
        return str(folder / file.relative_to(folder))
    except ValueError:  # an eval set kept beside the skill folder
        return str(file)


def format_inspect(obj: dict[str, Any] | list[dict[str, Any]], where: str = "") -> str:
    """Human-readable text for inspect_path's result."""
    if isinstance(obj, list):
        if not obj:
            return f"no eval sets found{' in ' + where if where else ''} (looked for evals/*.json|yaml)"
        return "\n".join(format_inspect(item) for item in obj)
    state = "readable" if obj["readable"] else "NOT readable"
    def n(key: str, word: str, many: str | None = None) -> str:
        return f"{obj[key]} {word if obj[key] == 1 else many or word + 's'}"

    head = (f"{obj['path']}: {obj['format'] or 'unknown format'}, {n('cases', 'case')}, "
            f"{n('triggers', 'trigger query', 'trigger queries')}, {n('checks', 'check')}, "
            f"{n('rubric', 'rubric item')}"
            f" — {state}")
    unmapped = [f"  not graded: {u}" for u in obj.get("unmapped", [])]
    own = obj.get("settings") or {}
    listed = ", ".join(f"{k} ({v} case{'s' * (v != 1)})" for k, v in own.items())
    settings = [f"  case settings applied: {listed}"] if own else []
    return "\n".join([head, *settings, *unmapped, *(f"  {p}" for p in obj["problems"])])
