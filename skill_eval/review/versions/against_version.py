"""Which version ``compare --against`` means, per skill x model: ``previous`` (the last recorded
version that differs from the current one), ``baseline`` (the blessed file beside the suite), or
a git revision (the skill's content at it, hashed as run keys hash it, looked up in the history).
What cannot be found is a Missing that says what to run to get it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skill_eval.errors import InvalidInput
from skill_eval.model.config import display_path
from skill_eval.review.resultsource import ResultSource
from skill_eval.review.versions.baseline import baseline_path, read_baseline
from skill_eval.review.versions.compare import Comparison, by_pair, compare, latest_with_hash, previous_of
from skill_eval.review.versions.history_records import now_iso, record_of
from skill_eval.store.gitinfo import skill_hash_at
from skill_eval.store.history import History, HistoryRecord


@dataclass(frozen=True)
class Missing:
    skill: str
    model: str
    message: str
    fatal: bool = True  # False: nothing to compare with, and nothing missing (one version so far)


def critical_cases(source: ResultSource, skill: str) -> set[str]:
    se = next((s for s in source.project.skills if s.skill.name == skill), None)
    return {c.id for c in se.cases if c.gates} if se is not None else set()


def _no_runs(r: HistoryRecord) -> bool:
    return not any(c.with_skill[1] for c in (r.cases or {}).values())


def resolve(source: ResultSource, current: Sequence[HistoryRecord], against: str
            ) -> list[Comparison | Missing]:
    suite = source.suite
    store_history = History(source.store, suite.name)
    history = by_pair(store_history.records())
    run_hint = f"skill-eval run {display_path(suite.path)}"
    base: dict[tuple[str, str], HistoryRecord] | None = None
    if against == "baseline":
        path = baseline_path(suite.path)
        found = read_baseline(path, display_path(path))
        base = None if found is None else {r.pair: r for r in found}
    out: list[Comparison | Missing] = []
    for now in current:
        who = f"{now.skill} ({now.model})"
        if now.cases is not None and _no_runs(now):
            out.append(Missing(now.skill, now.model, f"{who}: the current version has no graded runs in the "
                                                     f"store; run it first: {run_hint}"))
            continue
        records = history.get(now.pair, [])
        other: HistoryRecord | None
        if against == "previous":
            other = previous_of(records, now.skill_hash)
            why = (f"{who}: no earlier version of the skill is recorded in the store's history "
                   f"({display_path(store_history.path)}); a version is recorded by each "
                   f"complete '{run_hint}', so run the suite before you edit the skill, or compare "
                   "against 'baseline' or a git revision")
        elif against == "baseline":
            path = display_path(baseline_path(suite.path))
            other = None if base is None else base.get(now.pair)
            why = (f"{who}: there is no baseline file {path}; write one from the current results with "
                   f"'skill-eval bless {display_path(suite.path)}' (and commit it)" if base is None else
                   f"{who}: {path} has no entry for this skill and model; bless again to add it")
        else:
            other, why = _at_revision(source, now, records, against, run_hint)
        if other is None:
            # A skill never edited since it was first recorded has no previous version: said, not fatal.
            only_now = against == "previous" and bool(records)
            out.append(Missing(now.skill, now.model, why if not only_now else
                               f"{who}: unchanged since it was first recorded (one version in the history)",
                               fatal=not only_now))
            continue
        full, full_now = store_history.detailed(other), store_history.detailed(now)
        if full is None or full_now is None:
            out.append(Missing(now.skill, now.model, f"{who}: the per-case results of version {other.label} "
                                                     f"are gone from the store; run that version again"))
        else:
            out.append(compare(against, full, full_now, critical_cases(source, now.skill)))
    return out


def _at_revision(source: ResultSource, now: HistoryRecord, records: Sequence[HistoryRecord], rev: str,
                 run_hint: str) -> tuple[HistoryRecord | None, str]:
    se = next(s for s in source.project.skills if s.skill.name == now.skill)
    commit, skill_hash = skill_hash_at(source.suite.path.parent, rev, se.skill.path)
    found = latest_with_hash(records, skill_hash) or next(
        (r for r in reversed(records) if r.git is not None and r.git == (commit, False)), None)
    folder = display_path(se.skill.path)
    why = (f"{now.skill} ({now.model}): the skill at {rev} ({commit[:12]}, content {skill_hash[:8]}) "
           f"has no runs stored; to get them, run that version once: git stash; "
           f"git checkout {rev} -- {folder}; {run_hint}; git checkout HEAD -- {folder}; git stash pop")
    return found, why


def current_of(source: ResultSource, benches: Sequence[Mapping[str, Any]], history: History
               ) -> list[HistoryRecord]:
    """The current version of each benchmark's skill x model, as a record (not kept; for a skill
    the plan left out, its last record, without its detail)."""
    records = by_pair(history.records())
    date = now_iso()
    current = []
    for b in benches:
        pair = (str(b["skill"]), str(b["model"]))
        if pair[0] in source.plan.skills:
            current.append(record_of(source, b, None, date))
        elif records.get(pair):
            # Not planned this time (the fast path planned only changed skills): unchanged since
            # its last complete run, which is its last record (its detail is read only if needed).
            current.append(records[pair][-1])
    return current


def default_comparisons(source: ResultSource, current: Sequence[HistoryRecord]) -> list[Comparison]:
    """What reports compare with unasked: the blessed baseline when there is one, else the
    previous version; pairs with nothing to compare are left out."""
    against = "baseline" if baseline_path(source.suite.path).is_file() else "previous"
    try:
        found = resolve(source, current, against)
    except InvalidInput:
        found = resolve(source, current, "previous")  # a broken baseline: `compare` says why
    return [c for c in found if isinstance(c, Comparison)]
