"""skill-forge eval sets: ``eval_id``, ``eval_name``, ``input_files``, weighted assertions.

``{skill_name, evals: [{eval_id, eval_name, prompt, input_files, assertions: [{name, check,
weight}], should_trigger}]}``, a bare list of such cases, or one case on its own (as in a
skill-creator workspace's ``eval_metadata.json``). ``check`` is a sentence a grader judges, so
it becomes a weighted rubric item; typed assertions become checks. ``input_files`` are relative
to the skill root.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.model.cases import Case, EvalSet
from skill_eval.model.evalsets.assertions import read_assertions, unique_rubric
from skill_eval.model.evalsets.source import document_for
from skill_eval.model.evalsets.validate import At, Collector, check_skill_name

FORMAT = "skill_forge"
TOP_FIELDS = ("skill_name", "evals", "version", "description")
CASE_FIELDS = ("eval_id", "eval_name", "prompt", "expected_output", "input_files", "files", "assertions",
               "should_trigger")
LABEL_FIELDS = ("description", "category", "tags")


def _cases(data: Any) -> tuple[list[Any], At] | None:
    if isinstance(data, dict) and isinstance(data.get("evals"), list):
        return data["evals"], ("evals",)
    if isinstance(data, list):
        return data, ()
    if isinstance(data, dict) and "eval_id" in data:
        return [data], ()
    return None


def detect(data: Any, path: Path) -> int:
    found = _cases(data)
    if found is None or not found[0]:
        return 0
    dicts = [c for c in found[0] if isinstance(c, dict)]
    return 90 if dicts and all("eval_id" in c for c in dicts) else (50 if any("eval_id" in c for c in dicts)
                                                                      else 0)


def read(data: Any, path: Path, skill_root: Path, display: str) -> EvalSet:
    col = Collector(document_for(data, path, display))
    found = _cases(data)
    if found is None:
        col.error("expected an 'evals' list of cases with 'eval_id' (skill-forge format)")
        return EvalSet(path, FORMAT, None, (), tuple(col.problems))
    items, at = found
    single = isinstance(data, dict) and "eval_id" in data
    skill_name = None
    if isinstance(data, dict) and not single:
        col.unknown_fields(data, TOP_FIELDS, ())
        skill_name = check_skill_name(col, data.get("skill_name"), skill_root, ("skill_name",))
    seen: dict[str, At] = {}
    cases: list[Case] = []
    for i, raw in enumerate(items):
        case = _case(col, raw, at if single else (*at, i), skill_root, seen, display)
        if case is not None:
            cases.append(case)
    return EvalSet(path, FORMAT, skill_name, tuple(cases), tuple(col.problems))


def _case(col: Collector, raw: Any, at: At, root: Path, seen: dict[str, At], display: str) -> Case | None:
    if not isinstance(raw, dict):
        col.error(f"each case must be an object, got {type(raw).__name__}", at)
        return None
    col.unknown_fields(raw, (*CASE_FIELDS, *LABEL_FIELDS), at)
    cid = col.case_id(raw.get("eval_id"), (*at, "eval_id"), seen)
    prompt = col.prompt(raw.get("prompt"), (*at, "prompt"))
    key = "input_files" if "input_files" in raw else "files"
    fixtures = col.fixtures(raw.get(key), root, (*at, key))
    checks, rubric = read_assertions(col, raw.get("assertions"), (*at, "assertions"))
    expected = col.text(raw, "expected_output", at)
    trigger = col.optional_bool(raw, "should_trigger", at)
    final_checks = col.finish_checks(checks)
    final_rubric = unique_rubric(col, rubric, at)
    if cid is None or prompt is None:
        return None
    return Case(id=cid, prompt=prompt, expected_output=expected, fixtures=fixtures, checks=final_checks,
                rubric=final_rubric, should_trigger=trigger, source=display, line=col.doc.where(at)[0])
