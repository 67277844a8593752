"""``skill-eval export --format plugin-eval``: a suite's eval cases in ``claude plugin eval``'s layout.

``<out>/<skill>/evals/<case>/prompt.md`` (frontmatter ``name``; body: the prompt) and one
``graders/<check id>.md`` per check or rubric item: regex / not_regex and the text checks as
``regex`` graders (``flags: i`` unless case-sensitive), ``loaded_skill`` as ``tool_used`` on
``Skill``, ``tool_call`` as ``tool_used`` (or ``tool_order`` for ``order``), ``file_exists`` as
itself, rubric items as ``llm`` graders. Input files are copied into the case folder and listed in
``case.yaml``'s ``context.add_dirs``. Checks with no such grader are not written, and named.
Reading the written folder back gives the same cases, checks and rubric.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from skill_eval.fs.safenames import path_component
from skill_eval.model.cases import Case, Check, RubricItem
from skill_eval.review.exports.format import Exported, ExportFormat

if TYPE_CHECKING:
    from skill_eval.model.project import Project
    from skill_eval.review.resultsource import ResultSource

SKILL_MATCH = r'"skill"\s*:\s*"(?:[\w-]+:)?{name}"'


def _js_escape(text: str) -> str:
    """``text`` as a literal in a JavaScript (and Python) regular expression."""
    return re.sub(r"([.*+?^${}()|\[\]\\/])", r"\\\1", text)


def _arm(check: Check) -> dict[str, Any]:
    if check.arms == ("with_skill",):
        return {"arm": "with-only"}
    fired = check.type == "loaded_skill" or (
        check.type == "plugin_tool_used" and check.params.get("tool") == "Skill")
    return {"arm": "both"} if fired else {}


def _regex(pattern: str, check: Check, negate: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "regex", "pattern": pattern}
    if not check.case_sensitive:
        out["flags"] = "i"
    if negate:
        out["match"] = "not_contains"
    return out


_PLUGIN_TYPES = {"plugin_regex": "regex", "plugin_tool_used": "tool_used", "plugin_tool_order": "tool_order",
                 "plugin_file_exists": "file_exists"}


def grader_for(check: Check, skill: str) -> dict[str, Any] | None:
    """The grader frontmatter for one check, or None when plugin eval has no equivalent."""
    p = check.params
    if check.type in ("regex", "not_regex"):
        found = _regex(p["pattern"], check, check.type == "not_regex")
        if p.get("file") not in (None, "output"):
            found["target"] = {"source": "file", "path": p["file"]}
    elif check.type in ("contains", "not_contains"):
        found = _regex(_js_escape(p["value"]), check, check.type == "not_contains")
    elif check.type == "contains_any":
        found = _regex("|".join(_js_escape(v) for v in p["values"]), check, False)
    elif check.type == "loaded_skill":
        found = {
            "type": "tool_used",
            "tool": "Skill",
            "input_match": SKILL_MATCH.format(name=p.get("skill", skill)),
        }
        if p.get("expected") is False:
            found.update({"min": 0, "max": 0})
    elif check.type == "tool_call" and "order" in p and len(p["order"]) == 2:
        found = {
            "type": "tool_order",
            "before": {"tool": "Bash", "input_match": p["order"][0]},
            "after": {"tool": "Bash", "input_match": p["order"][1]},
        }
    elif (
        check.type == "tool_call"
        and p.get("tool")
        and not set(p) - {"tool", "pattern", "min_count", "max_count"}
    ):
        found = {"type": "tool_used", "tool": "Bash" if p["tool"] == "bash" else p["tool"]}
        if "pattern" in p:
            found["input_match"] = p["pattern"]
        found.update({k: p[s] for k, s in (("min", "min_count"), ("max", "max_count")) if s in p})
    elif check.type == "file_exists":
        found = {"type": "file_exists", "path": p["path"]}
    elif check.type in _PLUGIN_TYPES:  # plugin eval's own graders: their options as they were
        found = {"type": _PLUGIN_TYPES[check.type], **{k: v for k, v in p.items() if k != "file"}}
        if "file" in p:
            found["target"] = {"source": "file", "path": p["file"]}
    else:
        return None
    return {**found, **_arm(check), **({"weight": check.weight} if check.weight != 1.0 else {})}


def _markdown(front: dict[str, Any], body: str = "") -> str:
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{head}---\n" + (f"\n{body.strip()}\n" if body.strip() else "")


def _llm(item: RubricItem) -> str:
    front: dict[str, Any] = {"type": "llm"}
    if item.reference is not None:
        front = {"type": "baseline", "baseline_file": item.reference_file}
    elif item.focus.startswith("file:"):
        front["focus"] = {"source": "file", "path": item.focus[len("file:"):]}
    elif item.focus not in ("", "last_message"):
        front["focus"] = item.focus
    if item.weight != 1.0:
        front["weight"] = item.weight
    return _markdown(front, item.text)


def export_cases(cases: Iterable[Case], skill: str, out: Path) -> tuple[int, list[str]]:
    """Write ``cases`` under ``out`` (the eval folder); (cases written, what was not written)."""
    skipped: list[str] = []
    n = 0
    for case in cases:
        if case.kind != "task":
            skipped.append(f"{case.id}: a trigger query (plugin eval has no trigger cases)")
            continue
        folder = out / path_component(case.id)
        graders = folder / "graders"
        graders.mkdir(parents=True, exist_ok=True)
        (folder / "prompt.md").write_text(_markdown({"name": case.id}, case.prompt), encoding="utf-8")
        for check in case.checks:
            grader = grader_for(check, skill)
            if grader is None:
                skipped.append(f"{case.id}/{check.id}: a {check.type} check has no plugin eval grader")
                continue
            (graders / f"{path_component(check.id)}.md").write_text(_markdown(grader), encoding="utf-8")
        for item in case.rubric:
            (graders / f"{path_component(item.id)}.md").write_text(_llm(item), encoding="utf-8")
            if item.reference is not None:  # a baseline grader's transcript, beside the case
                reference = folder / item.reference_file
                reference.parent.mkdir(parents=True, exist_ok=True)
                reference.write_text(item.reference, encoding="utf-8")
        loose = [f.rel for f in case.fixtures if len(Path(f.rel).parts) < 2]
        skipped += [
            f"{case.id}: input file {rel} is not in a folder (add_dirs lists folders)" for rel in loose
        ]
        fixtures = [f for f in case.fixtures if f.rel not in loose]
        if fixtures:
            for fixture in fixtures:
                target = folder / fixture.rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(fixture.source, target)
            dirs = sorted({Path(f.rel).parts[0] for f in fixtures})
            spec = {"schema_version": "1.1", "name": case.id, "context": {"add_dirs": dirs}}
            (folder / "case.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
        n += 1
    return n, skipped


def export_suite(project: Project, source: ResultSource | None, out: Path) -> Exported:
    """Every skill's cases under ``out/<skill>/evals/``."""
    total, skipped = 0, []
    for se in project.skills:
        n, why = export_cases(se.cases, se.skill.name, out / path_component(se.skill.name) / "evals")
        total += n
        skipped.extend(why)
    return Exported(total, "case", "plugin-eval: <skill>/evals/<case>/", tuple(skipped))


PLUGIN_EVAL = ExportFormat("plugin-eval", "the eval cases as a claude plugin eval folder", export_suite)
