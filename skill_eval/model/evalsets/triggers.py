"""Trigger sets: queries and whether the skill should load for each (``kind == "trigger"``).

Shapes seen in the wild:
- ``[{query, should_trigger}]`` (skill-creator's trigger evals; extra ``note``, ``expected_skill``)
- ``{skill_name, should_trigger: [query...], should_not_trigger: [query...]}``
- ``{schema_version, skill, cases: [{id, kind, prompt, should_trigger, pair_id}]}``
- any of the lists above under ``queries`` / ``triggers`` / ``trigger_queries``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.model.cases import Case, EvalSet
from skill_eval.model.evalsets.source import document_for
from skill_eval.model.evalsets.validate import At, Collector, check_skill_name

FORMAT = "triggers"
LIST_KEYS = ("cases", "queries", "triggers", "trigger_queries", "evals")
TOP_FIELDS = (*LIST_KEYS, "skill_name", "skill", "schema_version", "version", "description",
              "should_trigger", "should_not_trigger")
ITEM_FIELDS = ("id", "query", "prompt", "should_trigger")
# Labels for people (why a query is there, which skill should win instead); nothing to run.
ITEM_LABELS = ("note", "notes", "kind", "pair_id", "expected_skill", "category", "description", "name")


def _is_trigger_item(item: Any) -> bool:
    return (isinstance(item, dict) and "should_trigger" in item and ("query" in item or "prompt" in item)
            and not {"assertions", "expectations", "checks", "expected_output"} & item.keys())


def _items(data: Any) -> tuple[list[Any], At] | None:
    if isinstance(data, list):
        return data, ()
    if isinstance(data, dict):
        for key in LIST_KEYS:
            if isinstance(data.get(key), list):
                return data[key], (key,)
    return None


def detect(data: Any, path: Path) -> int:
    if isinstance(data, dict) and (isinstance(data.get("should_trigger"), list)
                                   or isinstance(data.get("should_not_trigger"), list)):
        return 90
    found = _items(data)
    if found is None or not found[0]:
        return 0
    items = found[0]
    hits = sum(1 for item in items if _is_trigger_item(item))
    if hits == len(items):
        return 90
    return 50 if hits * 2 > len(items) else 0


def read(data: Any, path: Path, skill_root: Path, display: str) -> EvalSet:
    col = Collector(document_for(data, path, display))
    skill_name = None
    if isinstance(data, dict):
        col.unknown_fields(data, TOP_FIELDS, ())
        key = "skill_name" if "skill_name" in data else "skill"
        skill_name = check_skill_name(col, data.get(key), skill_root, (key,))
    seen: dict[str, At] = {}
    cases: list[Case] = []
    if isinstance(data, dict) and ("should_trigger" in data or "should_not_trigger" in data):
        for key, expected in (("should_trigger", True), ("should_not_trigger", False)):
            queries = data.get(key, [])
            if not isinstance(queries, list):
                col.error("must be a list of queries", (key,))
                continue
            for i, query in enumerate(queries):
                _add(col, cases, seen, None, query, expected, (key, i), display)
        return EvalSet(path, FORMAT, skill_name, tuple(cases), tuple(col.problems))
    found = _items(data)
    if found is None:
        col.error("expected a list of {query, should_trigger} objects")
        return EvalSet(path, FORMAT, skill_name, (), tuple(col.problems))
    items, at = found
    for i, item in enumerate(items):
        where = (*at, i)
        if not isinstance(item, dict):
            col.error(f"each trigger query must be an object, got {type(item).__name__}", where)
            continue
        col.unknown_fields(item, (*ITEM_FIELDS, *ITEM_LABELS), where)
        expected = item.get("should_trigger")
        if not isinstance(expected, bool):
            col.error("should_trigger must be true or false", (*where, "should_trigger"))
            expected = None
        text_key = "query" if "query" in item else "prompt"
        _add(col, cases, seen, item.get("id"), item.get(text_key), expected, where, display, text_key)
    return EvalSet(path, FORMAT, skill_name, tuple(cases), tuple(col.problems))


def _add(col: Collector, cases: list[Case], seen: dict[str, At], raw_id: Any, query: Any,
         expected: bool | None, at: At, display: str, text_key: str | None = None) -> None:
    cid = col.case_id(raw_id if raw_id is not None else f"trigger-{len(seen) + 1}",
                      (*at, "id") if raw_id is not None else at, seen)
    prompt = col.prompt(query, (*at, text_key) if text_key else at)
    if cid is None or prompt is None or expected is None:
        return
    cases.append(Case(id=cid, prompt=prompt, kind="trigger", should_trigger=expected, source=display,
                      line=col.doc.where(at)[0]))
