"""History records made from benchmarks: what a completed run appends (store/history.py keeps
them), and what the review page and ``compare`` set against another version."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from skill_eval.review.resultsource import ResultSource
from skill_eval.store.gitinfo import heads
from skill_eval.store.history import ARMS, CaseCounts, History, HistoryRecord


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


RunKeys = dict[str, dict[str, list[list[Any]]]]  # case -> arm -> [[iteration, run key, grade key]]


def _run_keys(source: ResultSource) -> dict[tuple[str, str], RunKeys]:
    """Every (skill, model)'s task runs, from one pass over the plan."""
    out: dict[tuple[str, str], RunKeys] = {}
    for spec in source.plan.runs:
        if spec.arm not in ARMS or spec.case.kind != "task":
            continue
        cases = out.setdefault((spec.skill_name, spec.column), {})
        arms = cases.setdefault(spec.case.id, {a: [] for a in ARMS})
        arms[spec.arm].append([spec.iteration, spec.key, source.grade_key(spec)])
    for cases in out.values():
        for arms in cases.values():
            for runs in arms.values():
                runs.sort()
    return out


def _counts(arm: Mapping[str, Any]) -> tuple[int, int]:
    return (int(arm["passed"]), int(arm["graded"]))


def record_of(source: ResultSource, bench: Mapping[str, Any], git: tuple[str, bool] | None,
              date: str, runs: RunKeys | None = None) -> HistoryRecord:
    """The history record of one benchmark (one skill x model); keeps its detail (per-case
    counts and the run keys ``runs``) when given them (without, the record names none: it is
    only looked at)."""
    skill, model = str(bench["skill"]), str(bench["model"])
    v, lift = bench["variants"], bench["lift"]
    cases = {str(c["id"]): CaseCounts(_counts(c["with_skill"]), _counts(c["without_skill"]))
             for c in bench["cases"]}
    history = History(source.store, source.suite.name)
    detail = history.put_detail(cases, runs) if runs is not None else None
    return HistoryRecord(
        suite=source.suite.name, skill=skill, model=model, skill_hash=source.plan.skills[skill].digest,
        date=date, git=git, cases=cases,
        pass_rate={a: v[a]["pass_rate"] for a in ARMS},
        lift={"pass_rate": lift["pass_rate"], "p_value": lift["p_value"], "ci95": lift["ci95"]},
        cost_usd={a: v[a].get("cost_usd") for a in ARMS}, detail=detail)


def git_states(source: ResultSource, skills: Iterable[str]) -> dict[str, tuple[str, bool]]:
    """Per skill: (HEAD's commit, whether its folder differs from it); none outside git."""
    wanted = set(skills)
    return heads(source.suite.path.parent,
                 {se.skill.name: [se.skill.path] for se in source.project.skills if se.skill.name in wanted})


def records_of(source: ResultSource, benches: Sequence[Mapping[str, Any]]) -> list[HistoryRecord]:
    """A record per benchmark, dated now, each with its skill's git state."""
    date = now_iso()
    git = git_states(source, (str(b["skill"]) for b in benches))
    runs = _run_keys(source)
    out = []
    for b in benches:
        skill, model = str(b["skill"]), str(b["model"])
        out.append(record_of(source, b, git.get(skill), date, runs.get((skill, model), {})))
    return out


def record_run(source: ResultSource, benches: Sequence[Mapping[str, Any]]) -> list[HistoryRecord]:
    """After a complete run: append a record per planned skill x model (a repeat of a pair's
    last record is not appended). Returns what was added."""
    planned = set(source.plan.skills)
    records = records_of(source, [b for b in benches if b.get("skill") in planned])
    return History(source.store, source.suite.name).append(records)
