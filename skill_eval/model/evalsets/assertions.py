"""A case's assertion list in any of the shapes seen in the wild → checks and rubric items."""

from __future__ import annotations

import re
from typing import Any

from skill_eval.intake.schemas_io import schema_problems
from skill_eval.model.cases import Check, RubricItem
from skill_eval.model.evalsets.typed import native_check, typed_assertion
from skill_eval.model.evalsets.validate import At, Collector, at_text

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")


def _text_item(col: Collector, obj: dict[str, Any], at: At, n: int) -> RubricItem | None:
    """``{text}``, ``{id, text}``, ``{text, description}`` or ``{name, check, weight}`` objects."""
    text = obj.get("text", obj.get("check"))
    desc = obj.get("description")
    if not isinstance(text, str) or not text.strip():
        col.error("assertion needs 'text' (a sentence) or 'type' (a check); add one", at)
        return None
    rid = obj.get("id", obj.get("name"))
    if rid is None and isinstance(desc, str) and _SLUG.match(text):
        # {text: "note-load", description: "Phase 1: ..."}: the text is a label, the description the claim.
        rid, text = text, desc
    elif isinstance(desc, str) and desc.strip():
        text = f"{text} ({desc})"
    weight = obj.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        col.error(f"weight {weight!r} must be a number", (*at, "weight"))
        weight = 1.0
    col.unknown_fields(obj, ("id", "name", "text", "check", "description", "weight", "required"), at)
    return RubricItem(id=str(rid) if rid not in (None, "") else f"rubric-{n}", text=text,
                      weight=float(weight), required=obj.get("required", True) is not False)


def read_assertions(col: Collector, items: Any, at: At, script_cwd: str | None = None
                    ) -> tuple[list[tuple[Check, At]], list[RubricItem]]:
    """Plain strings and untyped objects become rubric items; typed objects become checks."""
    checks: list[tuple[Check, At]] = []
    rubric: list[RubricItem] = []
    if items is None:
        return checks, rubric
    if not isinstance(items, list):
        col.error("must be a list of assertions", at)
        return checks, rubric
    for i, item in enumerate(items):
        where = (*at, i)
        if isinstance(item, str):
            if item.strip():
                rubric.append(RubricItem(id=f"rubric-{len(rubric) + 1}", text=item))
            else:
                col.error("empty assertion; write the expected behaviour as a sentence", where)
        elif isinstance(item, dict) and "type" in item:
            got_checks, got_rubric = typed_assertion(col, item, where, script_cwd)
            checks += got_checks
            rubric += got_rubric
        elif isinstance(item, dict):
            found = _text_item(col, item, where, len(rubric) + 1)
            if found:
                rubric.append(found)
        else:
            col.error(f"assertion must be a sentence or an object, got {type(item).__name__}", where)
    return checks, rubric


def read_native_checks(col: Collector, items: Any, at: At) -> list[tuple[Check, At]]:
    """The ``checks`` extension, validated against schemas/evals.schema.json."""
    if items is None:
        return []
    # Validate as the only case of a one-off document, then place the errors at this case's key
    # path: validating a probe padded with the earlier cases made reading an eval set quadratic.
    probe = {"evals": [{"id": "_", "prompt": "_", "checks": items}]}
    found = schema_problems("evals", probe, col.doc.display, col.doc.where, prefix=at, drop=2)
    col.problems.extend(found)
    if not isinstance(items, list):
        return []
    # A check the schema refused is reported above and left out, so it cannot be graded wrongly.
    return [(native_check(c), (*at, "checks", j)) for j, c in enumerate(items)
            if isinstance(c, dict) and isinstance(c.get("type"), str) and not _bad(found, at, j)]


def _bad(found: list[Any], at: At, j: int) -> bool:
    mark = at_text((*at, "checks", j))
    return any(p.message.startswith((mark + ":", mark + ".")) for p in found)


def unique_rubric(col: Collector, items: list[RubricItem], at: At) -> tuple[RubricItem, ...]:
    """Drop repeated sentences (``expectations`` copied into ``assertions``); refuse clashing ids."""
    out: list[RubricItem] = []
    ids: set[str] = set()
    texts: set[str] = set()
    for item in items:
        generated = item.id.startswith("rubric-")
        if generated and item.text in texts:
            continue
        if item.id in ids:
            if not generated:
                col.error(f"duplicate rubric id '{item.id}' in this case; give each its own id", at)
                continue
            n = len(out) + 1
            while f"rubric-{n}" in ids:
                n += 1
            item = RubricItem(id=f"rubric-{n}", text=item.text, weight=item.weight, required=item.required)
        ids.add(item.id)
        texts.add(item.text)
        out.append(item)
    return tuple(out)
