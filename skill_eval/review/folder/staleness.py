"""Where a suite's tables live under results/, and whether each is out of date: every table is
written with the key of its inputs (``inputs_key``), read back here and compared with the key
its inputs have now."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from skill_eval import __version__
from skill_eval.fs.hashing import key_of
from skill_eval.fs.safenames import path_component
from skill_eval.plan.types import RunSpec
from skill_eval.review.resultsource import ResultSource

INPUTS_FIELD = "inputs_key"


def skill_specs(source: ResultSource, skill: str) -> list[RunSpec]:
    return [s for s in source.plan.runs if s.skill_name == skill]


def models(source: ResultSource) -> tuple[str, ...]:
    """The tables' columns: each model, or each agent/model in a suite with ``agents:``."""
    return source.suite.columns


def agent_of(source: ResultSource, column: str) -> str | None:
    """The agent a column belongs to in a suite with ``agents:`` (None otherwise)."""
    return next((a.name for a in source.suite.agents if column.startswith(a.name + "/")), None)


def column_folder(source: ResultSource, column: str) -> str:
    """A column's folder under its skill's: the model, or ``agent@model`` with ``agents:``."""
    agent = agent_of(source, column)
    return path_component(column if agent is None else f"{agent}@{column[len(agent) + 1:]}")


def bench_dir(source: ResultSource, skill: str, model: str) -> Path:
    # Names reach the file system only through path_component: no separators, no '..', bounded.
    base = source.suite.results / path_component(skill)
    return base if len(models(source)) == 1 else base / column_folder(source, model)


def bench_inputs_key(source: ResultSource, skill: str, model: str) -> str:
    items = []
    for spec in skill_specs(source, skill):
        if spec.column != model:
            continue
        has = source.has_grade(spec)
        items.append([source.slot(spec), source.grade_key(spec) if has else "error"])
    return key_of({"items": items, "version": __version__, "minimum_lift": source.suite.minimum_lift,
                   "suite": source.suite.name, **_rule_inputs(source)})


def _rule_inputs(source: ResultSource) -> dict[str, Any]:
    """The decision rule's settings, only where set (tables without them keep their keys)."""
    out: dict[str, Any] = {}
    settings = source.until_decided
    if settings is not None:
        out["adaptive"] = [settings.max_iterations, settings.alpha, source.suite.iterations]
    if source.until_decided_verdict:
        out["sequential_verdict"] = True  # the same tables, another verdict
    if source.suite.gate != "mean":
        out["gate"] = source.suite.gate
    if source.suite.threshold != 1.0:
        out["threshold"] = source.suite.threshold  # plugin eval's pass mark (benchmark plugin_eval)
    return out


# A top-level key as dump_json writes it (indent 2): a JSON string holds no raw newline, so
# such a line can only be the object's own key.
_TOP_INPUTS_KEY = '\n  "' + INPUTS_FIELD + '": "'
_HEX = re.compile(r"[0-9a-f]+")


def _stored_inputs_key(path: Path) -> str | None:
    """The inputs key a table was written with. Asked for every skill's table several times per
    rebuild, and a skill's benchmark.json is hundreds of KB on a big suite: a whole file as
    dump_json writes it (tables are replaced whole, never half-written) gives its key by one
    search; any other text is parsed."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    at = text.find(_TOP_INPUTS_KEY) if text.startswith("{\n") and text.endswith("\n}\n") else -1
    if at >= 0:
        start = at + len(_TOP_INPUTS_KEY)
        end = text.find('"', start)
        if end > start and _HEX.fullmatch(text, start, end):
            return text[start:end]
    try:
        return json.loads(text).get(INPUTS_FIELD)
    except (ValueError, AttributeError):
        return None


def skill_is_stale(source: ResultSource, skill: str) -> bool:
    return any(_stored_inputs_key(bench_dir(source, skill, m) / "benchmark.json")
               != bench_inputs_key(source, skill, m)
               or not (bench_dir(source, skill, m) / "benchmark.md").is_file() for m in models(source))


def summary_files(source: ResultSource) -> list[Path]:
    """The suite-level files every run writes under results/ (the summaries, the review page)."""
    from skill_eval.review.render import FORMATS

    return [source.suite.results / f.filename for f in FORMATS if f.every_run]


def skill_files(source: ResultSource, skill: str) -> list[Path]:
    """The tables one skill's rebuild writes (per model)."""
    return [bench_dir(source, skill, m) / name for m in models(source)
            for name in ("benchmark.json", "benchmark.md")]


def stale_skills(source: ResultSource) -> list[str]:
    """Skills whose tables do not match their inputs (or are missing)."""
    return [se.skill.name for se in source.project.skills if skill_is_stale(source, se.skill.name)]


def summary_inputs_key(source: ResultSource) -> str:
    keys = [_stored_inputs_key(bench_dir(source, name, m) / "benchmark.json")
            for name in source.skill_names for m in models(source)]
    return key_of({"benches": keys, "version": __version__})


def summary_is_stale(source: ResultSource) -> bool:
    return (_stored_inputs_key(source.suite.results / ".summary-inputs.json") != summary_inputs_key(source)
            or not all(p.is_file() for p in summary_files(source)))
