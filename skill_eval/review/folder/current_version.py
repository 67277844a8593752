"""The current version of each skill x model, from what the store holds now (nothing is run or
written under results/): what ``compare`` and ``bless`` set against another version."""

from __future__ import annotations

from typing import Any

from skill_eval.review.folder.staleness import models, skill_specs
from skill_eval.review.folder.tables import stored_records
from skill_eval.review.resultsource import ResultSource
from skill_eval.review.versions.history_records import records_of
from skill_eval.store.history import HistoryRecord


def current_benches(source: ResultSource) -> list[dict[str, Any]]:
    """Each planned skill x model's benchmark, from the stored runs and grades."""
    from skill_eval.review.comparison.benchmark import ARMS, RunRecord, build_benchmark

    out = []
    for se in source.project.skills:
        tasks = [c for c in se.cases if c.kind == "task"]
        for model in models(source):
            specs = [s for s in skill_specs(source, se.skill.name)
                     if s.column == model and s.arm in ARMS and s.case.kind == "task"]
            runs = [RunRecord.of(spec.case.id, spec.arm, spec.iteration, result, grade)
                    for spec, result, grade in stored_records(source, specs)]
            out.append(build_benchmark(source.suite.name, se.skill.name, model, tasks, runs,
                                       source.suite.minimum_lift))
    return out


def current_records(source: ResultSource) -> list[HistoryRecord]:
    return records_of(source, current_benches(source))
