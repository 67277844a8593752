"""History records made from benchmarks: what a completed run appends (store/history.py keeps
them), and what the review page and ``compare`` set against another version."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from skill_eval.review.source import ResultSource
from skill_eval.store.gitinfo import head
from skill_eval.store.history import ARMS, CaseCounts, History, HistoryRecord


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _run_keys(engine: ResultSource, skill: str, model: str) -> dict[str, dict[str, list[list[Any]]]]:
    out: dict[str, dict[str, list[list[Any]]]] = {}
    for spec in engine.plan.runs:
        if (spec.skill_name, spec.model) != (skill, model) or spec.variant not in ARMS \
                or spec.case.kind != "task":
            continue
        arms = out.setdefault(spec.case.id, {a: [] for a in ARMS})
        arms[spec.variant].append([spec.iteration, spec.key, engine.grade_key(spec)])
    for arms in out.values():
        for runs in arms.values():
            runs.sort()
    return out


def _counts(arm: Mapping[str, Any]) -> tuple[int, int]:
    return (int(arm["passed"]), int(arm["graded"]))


def record_of(engine: ResultSource, bench: Mapping[str, Any], git: tuple[str, bool] | None,
              date: str, keep_runs: bool = True) -> HistoryRecord:
    """The history record of one benchmark (one skill x model); keeps its detail (per-case
    counts and run keys) unless ``keep_runs`` is False (then the record names none: it is only
    looked at)."""
    skill, model = str(bench["skill"]), str(bench["model"])
    v, lift = bench["variants"], bench["lift"]
    cases = {str(c["id"]): CaseCounts(_counts(c["with_skill"]), _counts(c["without_skill"]))
             for c in bench["cases"]}
    history = History(engine.store, engine.suite.name)
    detail = history.put_detail(cases, _run_keys(engine, skill, model)) if keep_runs else None
    return HistoryRecord(
        suite=engine.suite.name, skill=skill, model=model, skill_hash=engine.plan.skills[skill].digest,
        date=date, git=git, cases=cases,
        pass_rate={a: v[a]["pass_rate"] for a in ARMS},
        lift={"pass_rate": lift["pass_rate"], "p_value": lift["p_value"], "ci95": lift["ci95"]},
        cost_usd={a: v[a].get("cost_usd") for a in ARMS}, detail=detail)


def git_state(engine: ResultSource, skill: str) -> tuple[str, bool] | None:
    se = next((s for s in engine.project.skills if s.skill.name == skill), None)
    if se is None:
        return None
    return head(engine.suite.path.parent, [se.skill.path])


def record_run(engine: ResultSource, benches: Sequence[Mapping[str, Any]]) -> list[HistoryRecord]:
    """After a complete run: append a record per planned skill x model (a repeat of a pair's
    last record is not appended). Returns what was added."""
    planned = set(engine.plan.skills)
    date = now_iso()
    records = [record_of(engine, b, git_state(engine, str(b["skill"])), date)
               for b in benches if b.get("skill") in planned]
    return History(engine.store, engine.suite.name).append(records)
