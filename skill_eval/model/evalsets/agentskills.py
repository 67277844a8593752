"""The agentskills.io ``evals/evals.json`` shape, read for the two dialects that write it: native
(with the ``checks`` extension) and skill-creator (``expectations`` for assertions). They differ
in one key, so they share this reader and stay independent of each other.

``{skill_name, evals: [{id, prompt, expected_output, files, assertions, checks}]}``; ``files``
are relative to the skill root. Plain-sentence assertions become rubric items; typed ones
(``{name, type, values}``, as some skills write them) become checks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.model.cases import Case, Check, EvalSet, RubricItem
from skill_eval.model.evalsets.assertions import read_assertions, read_native_checks, unique_rubric
from skill_eval.model.evalsets.source import document_for
from skill_eval.model.evalsets.validate import Collector, check_skill_name

TOP_FIELDS = ("skill_name", "evals", "test_cases", "version", "description", "$schema")
CASE_FIELDS = ("id", "prompt", "expected_output", "files", "assertions", "expectations", "checks",
               "should_trigger", "split", "must_have", "must_not_have", "anti_expectations", "critical")
# Labels some authors add for people; understood as such and not needed to run a case.
LABEL_FIELDS = ("name", "category", "description", "tags", "title")
SPLITS = ("tune", "holdout", "holdback")


def case_key(data: Any) -> str | None:
    """``evals`` (agentskills.io), or ``test_cases`` as some eval sets call it."""
    for key in ("evals", "test_cases"):
        if isinstance(data, dict) and isinstance(data.get(key), list):
            return key
    return None


def case_list(data: Any) -> list[Any] | None:
    key = case_key(data)
    return data[key] if key else None


def read_agentskills(data: Any, path: Path, skill_root: Path, display: str, fmt: str) -> EvalSet:
    """The reader shared by the native and skill-creator dialects (they differ in one key)."""
    col = Collector(document_for(data, path, display))
    cases = case_list(data)
    if cases is None:
        col.error("expected an object with an 'evals' list; see agentskills.io evals.json")
        return EvalSet(path, fmt, None, (), tuple(col.problems))
    col.unknown_fields(data, TOP_FIELDS, ())
    skill_name = check_skill_name(col, data.get("skill_name"), skill_root, ("skill_name",))
    seen: dict[str, tuple[str | int, ...]] = {}
    out: list[Case] = []
    key = case_key(data)
    for i, raw in enumerate(cases):
        case = _case(col, raw, (key, i), skill_root, seen, display)
        if case is not None:
            out.append(case)
    return EvalSet(path, fmt, skill_name, tuple(out), tuple(col.problems))


def _case(col: Collector, raw: Any, at: tuple[str | int, ...], root: Path,
          seen: dict[str, tuple[str | int, ...]], display: str) -> Case | None:
    if not isinstance(raw, dict):
        col.error(f"each case must be an object, got {type(raw).__name__}", at)
        return None
    col.unknown_fields(raw, (*CASE_FIELDS, *LABEL_FIELDS), at)
    cid = col.case_id(raw.get("id"), (*at, "id"), seen)
    prompt = col.prompt(raw.get("prompt"), (*at, "prompt"))
    fixtures = col.fixtures(raw.get("files"), root, (*at, "files"))
    checks, rubric = read_assertions(col, raw.get("expectations"), (*at, "expectations"))
    more_checks, more_rubric = read_assertions(col, raw.get("assertions"), (*at, "assertions"))
    checks += more_checks + read_native_checks(col, raw.get("checks"), at)
    checks += _pattern_lists(col, raw, at)
    anti = col.string_list(raw.get("anti_expectations"), (*at, "anti_expectations"), "anti_expectations")
    more_rubric += [RubricItem(id=f"anti-{n + 1}", text=f"The output must NOT satisfy: {t}")
                    for n, t in enumerate(anti)]
    expected = col.text(raw, "expected_output", at)
    trigger = col.optional_bool(raw, "should_trigger", at)
    split = raw.get("split")
    if split is not None and split not in SPLITS:
        col.error(f"split {split!r} is not one of {', '.join(SPLITS)}", (*at, "split"))
        split = None
    critical = raw.get("critical", False)
    if not isinstance(critical, bool):
        col.error("critical must be true or false", (*at, "critical"))
        critical = False
    final_checks = col.finish_checks(checks)
    final_rubric = unique_rubric(col, rubric + more_rubric, at)
    if cid is None or prompt is None:
        return None
    return Case(id=cid, prompt=prompt, expected_output=expected, fixtures=fixtures, checks=final_checks,
                rubric=final_rubric, should_trigger=trigger, split=split, source=display,
                line=col.doc.where(at)[0], critical=critical)


def _pattern_lists(col: Collector, raw: dict[str, Any], at: tuple[str | int, ...]
                   ) -> list[tuple[Check, tuple[str | int, ...]]]:
    """``must_have`` / ``must_not_have``: regexes the output must / must not match."""
    out: list[tuple[Check, tuple[str | int, ...]]] = []
    for key, kind in (("must_have", "regex"), ("must_not_have", "not_regex")):
        for n, pattern in enumerate(col.string_list(raw.get(key), (*at, key), key)):
            out.append((Check(id=f"{key}-{n + 1}", type=kind, params={"pattern": pattern}), (*at, key, n)))
    return out
