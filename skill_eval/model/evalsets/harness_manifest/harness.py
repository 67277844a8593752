"""skill-eval-harness manifests (``evals/shared-benchmark.json`` or YAML).

Paths in a manifest (``files``, ``prompt_ref``, script oracles) are relative to the folder the
manifest is in; ``skill_paths`` are relative to the repository root, the folder above it.
``kind: trigger`` cases are trigger queries, as the harness runs them: does the skill load on
its own for the user's request (the ``User prompt:`` part of a "Trigger decision eval" prompt)?
``should_trigger`` comes from the case, or else from its expected behaviour ("should not
trigger", NO_TRIGGER). Their answer assertions are not graded (the harness leaves them out too).
Ablations are read by harness_manifest.ablations;
assertions by harness_manifest.assertions; a case with a type nothing here can grade is left
out with a warning naming the type.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from skill_eval.model.cases import Case, Check, EvalSet, RubricItem
from skill_eval.model.evalsets.assertions import unique_rubric
from skill_eval.model.evalsets.harness_manifest.ablations import harness_ablations
from skill_eval.model.evalsets.harness_manifest.assertions import harness_assertion
from skill_eval.model.evalsets.source import document_for
from skill_eval.model.evalsets.validate import At, Collector

FORMAT = "harness"
SPLITS = ("tune", "holdout", "holdback")
TOP_FIELDS = ("version", "skill_name", "harness", "skill_paths", "old_skill_paths", "variants",
              "optional_variants", "split_policy", "run_protocol", "notes", "cases", "ablations")
CASE_FIELDS = ("id", "split", "kind", "prompt", "prompt_ref", "files", "expected_behavior", "assertions",
               "review_rubric", "should_trigger")
# Read by people or by the harness's own reports; nothing a run or a grade depends on.
LABEL_FIELDS = ("tags", "domain", "difficulty", "success_goals", "trigger_type", "scenario", "answer_ref",
                "description", "notes", "source", "reference_answer", "reference_answer_ref",
                "reference_score", "reference_graded_score")
_USER_PROMPT = re.compile(r"User prompt:\s*(.*?)(?:\n\s*\n\s*Return exactly|$)", re.IGNORECASE | re.DOTALL)
_NEGATIVE = re.compile(r"NO_TRIGGER|not trigger|should not", re.IGNORECASE)


def detect(data: Any, path: Path) -> int:
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return 0
    if {"harness", "split_policy", "skill_paths", "variants"} & data.keys():
        return 95
    if any(isinstance(c, dict) and "split" in c for c in data["cases"]):
        return 85
    return 0


def read(data: Any, path: Path, skill_root: Path, display: str) -> EvalSet:
    col = Collector(document_for(data, path, display))
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        col.error("expected an object with a 'cases' list (a skill-eval-harness manifest)")
        return EvalSet(path, FORMAT, None, (), tuple(col.problems))
    col.unknown_fields(data, TOP_FIELDS, ())
    base = path.parent
    _check_skill_paths(col, data.get("skill_paths"), base.parent)
    ablations = harness_ablations(col, data.get("ablations"), base, skill_root, display)
    kinds = [c.get("kind") for c in data["cases"] if isinstance(c, dict)]
    graded_triggers = sum(1 for c in data["cases"] if isinstance(c, dict) and c.get("kind") == "trigger"
                          and c.get("assertions"))
    if graded_triggers:
        col.warn(f"{graded_triggers} of {kinds.count('trigger')} trigger case(s) carry answer assertions; "
                 "trigger cases are graded on whether the skill loads, so those are not used", ("cases",))
    skill_name = data.get("skill_name") if isinstance(data.get("skill_name"), str) else None
    cwd = Path(os.path.relpath(base.absolute(), skill_root.absolute())).as_posix()
    seen: dict[str, At] = {}
    cases: list[Case] = []
    for i, raw in enumerate(data["cases"]):
        case = _case(col, raw, ("cases", i), base, cwd, seen, display)
        if case is not None:
            cases.append(case)
    return EvalSet(path, FORMAT, skill_name, tuple(cases), tuple(col.problems), ablations)


def _check_skill_paths(col: Collector, paths: Any, repo: Path) -> None:
    for i, rel in enumerate(col.string_list(paths, ("skill_paths",), "skill_paths")):
        if not (repo / rel).is_file():
            col.warn(f"skill path '{rel}' not found (tried {repo / rel}); fix skill_paths",
                     ("skill_paths", i))


def _case(col: Collector, raw: Any, at: At, base: Path, cwd: str, seen: dict[str, At],
          display: str) -> Case | None:
    if not isinstance(raw, dict):
        col.error(f"each case must be an object, got {type(raw).__name__}", at)
        return None
    col.unknown_fields(raw, (*CASE_FIELDS, *LABEL_FIELDS), at)
    cid = col.case_id(raw.get("id"), (*at, "id"), seen)
    split = raw.get("split")
    if split not in SPLITS:
        col.error(f"split {split!r} is not one of {', '.join(SPLITS)}; set one", (*at, "split"))
        split = None
    prompt = _prompt(col, raw, at, base, split)
    fixtures = col.fixtures(raw.get("files"), base, (*at, "files"))
    expected_lines = col.string_list(raw.get("expected_behavior"), (*at, "expected_behavior"),
                                     "expected_behavior")
    line = col.doc.where(at)[0]
    if raw.get("kind") == "trigger":
        if cid is None or prompt is None:
            return None
        return Case(id=cid, prompt=_user_prompt(prompt), kind="trigger", split=split, source=display,
                    line=line, should_trigger=_should_trigger(col, raw, at, expected_lines))
    checks, rubric, ungradable = _assertions(col, raw.get("assertions"), (*at, "assertions"), base, cwd)
    review = col.string_list(raw.get("review_rubric"), (*at, "review_rubric"), "review_rubric")
    rubric += [RubricItem(id=f"review-{n + 1}", text=t) for n, t in enumerate(review)]
    final_checks = col.finish_checks(checks)
    final_rubric = unique_rubric(col, rubric, at)
    if cid is None or prompt is None:
        return None
    if ungradable:
        col.warn(f"case '{cid}' is left out: assertion type {', '.join(repr(t) for t in ungradable)} cannot "
                 "be graded by skill-eval", at)
        return None
    return Case(id=cid, prompt=prompt, expected_output="\n".join(expected_lines), fixtures=fixtures,
                checks=final_checks, rubric=final_rubric, split=split, source=display, line=line)


def _assertions(col: Collector, items: Any, at: At, base: Path, cwd: str
                ) -> tuple[list[tuple[Check, At]], list[RubricItem], list[str]]:
    checks: list[tuple[Check, At]] = []
    rubric: list[RubricItem] = []
    ungradable: list[str] = []
    if items is None:
        return checks, rubric, ungradable
    if not isinstance(items, list):
        col.error("must be a list of assertions", at)
        return checks, rubric, ungradable
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            col.error(f"assertion must be an object with a 'type', got {type(item).__name__}", (*at, i))
            continue
        got_checks, got_rubric, why = harness_assertion(col, item, (*at, i), base, cwd)
        checks += got_checks
        rubric += got_rubric
        if why is not None:
            ungradable.append(why)
    return checks, rubric, ungradable


def _user_prompt(prompt: str) -> str:
    """The user's request inside a "Trigger decision eval. User prompt: ..." wrapper."""
    found = _USER_PROMPT.search(prompt)
    return found.group(1).strip() if found and found.group(1).strip() else prompt


def _should_trigger(col: Collector, raw: dict[str, Any], at: At, expected: list[str]) -> bool:
    explicit = col.optional_bool(raw, "should_trigger", at)
    if explicit is not None:
        return explicit
    labels = [str(a.get("pattern", "")) for a in raw.get("assertions") or [] if isinstance(a, dict)]
    return not (_NEGATIVE.search(" ".join(expected)) or any("NO_TRIGGER" in p for p in labels))


def _prompt(col: Collector, raw: dict[str, Any], at: At, base: Path, split: str | None) -> str | None:
    if "prompt" in raw or "prompt_ref" not in raw:
        return col.prompt(raw.get("prompt"), (*at, "prompt"))
    ref = raw["prompt_ref"]
    where = (*at, "prompt_ref")
    if not isinstance(ref, str) or not ref.strip():
        col.error("prompt_ref must be a path to a prompt file", where)
        return None
    # Hidden holdout / holdback prompts are supplied privately before scoring: until then the
    # case is skipped with a warning, never run with a made-up prompt.
    hidden = split in ("holdout", "holdback")
    source = col.inside(ref, base, where, "warning" if hidden else "error",
                        f" ({split} prompt not supplied; case skipped)" if hidden else "")
    if source is None:
        return None
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        col.error(f"cannot read prompt_ref '{ref}': {exc}", where)
        return None
    if not text.strip():
        col.error(f"prompt_ref '{ref}' is empty; write the prompt into it", where)
        return None
    return text
