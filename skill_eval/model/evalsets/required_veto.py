"""Labelled behaviour cases: ``{skill, cases: [{id, prompt, required: [...], veto: [...]}]}``.

``required`` and ``veto`` name behaviours (``confirmed_conflict``, ``silent_choice``) that a
rubric elsewhere defines; only a judge can tell whether an answer shows them, so each becomes a
rubric item: required ones must be shown, vetoed ones must not be.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.model.cases import Case, EvalSet, RubricItem
from skill_eval.model.evalsets.source import document_for
from skill_eval.model.evalsets.validate import At, Collector, check_skill_name

FORMAT = "required_veto"
TOP_FIELDS = ("schema_version", "skill", "skill_name", "cases", "groups", "decision_labels", "description")
CASE_FIELDS = ("id", "prompt", "required", "veto", "expected_output", "decision")
LABEL_FIELDS = ("source_id", "group", "title", "pressures", "tags", "description")


def detect(data: Any, path: Path) -> int:
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return 0
    dicts = [c for c in data["cases"] if isinstance(c, dict)]
    return 80 if dicts and all("required" in c or "veto" in c for c in dicts) else 0


def read(data: Any, path: Path, skill_root: Path, display: str) -> EvalSet:
    col = Collector(document_for(data, path, display))
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        col.error("expected an object with a 'cases' list of {id, prompt, required, veto}")
        return EvalSet(path, FORMAT, None, (), tuple(col.problems))
    col.unknown_fields(data, TOP_FIELDS, ())
    key = "skill_name" if "skill_name" in data else "skill"
    skill_name = check_skill_name(col, data.get(key), skill_root, (key,))
    seen: dict[str, At] = {}
    cases: list[Case] = []
    for i, raw in enumerate(data["cases"]):
        at: At = ("cases", i)
        if not isinstance(raw, dict):
            col.error(f"each case must be an object, got {type(raw).__name__}", at)
            continue
        col.unknown_fields(raw, (*CASE_FIELDS, *LABEL_FIELDS), at)
        cid = col.case_id(raw.get("id"), (*at, "id"), seen)
        prompt = col.prompt(raw.get("prompt"), (*at, "prompt"))
        required = col.string_list(raw.get("required"), (*at, "required"), "required")
        veto = col.string_list(raw.get("veto"), (*at, "veto"), "veto")
        rubric = [RubricItem(id=f"required-{x}", text=f"The answer shows: {x}") for x in required]
        rubric += [RubricItem(id=f"veto-{x}", text=f"The answer does not show: {x}") for x in veto]
        decision = raw.get("decision")
        label = f"decision: {decision}" if isinstance(decision, str) else ""
        expected = raw.get("expected_output") or label
        if cid is None or prompt is None:
            continue
        cases.append(Case(id=cid, prompt=prompt, expected_output=str(expected), rubric=tuple(rubric),
                          source=display, line=col.doc.where(at)[0]))
    return EvalSet(path, FORMAT, skill_name, tuple(cases), tuple(col.problems))
