"""The results folder: a view rebuilt from the store (benchmark.json/md per skill, summaries,
and the seed harness's per-run layout). Rebuilt only when its inputs changed."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_eval.fs.hashing import key_of
from skill_eval.fs.safenames import path_component
from skill_eval.model.config import describe_judge
from skill_eval.model.results import UNSCORABLE, AdapterResponse, Event, RunError, RunResult
from skill_eval.plan.keys import slot
from skill_eval.plan.types import RunSpec
from skill_eval.review.comparison.benchmark import NOT_RUN
from skill_eval.review.folder.files import dump_json, write_text
from skill_eval.review.folder.mockrecordings import write_recordings
from skill_eval.review.folder.staleness import (
    INPUTS_FIELD,
    agent_of,
    bench_dir,
    bench_inputs_key,
    column_folder,
    models,
    skill_specs,
    summary_inputs_key,
)
from skill_eval.review.resultsource import ResultSource

if TYPE_CHECKING:
    from skill_eval.review.render.format import ReportInput


class RecordCache:
    """What a skill's table needs of each graded run (usage, duration, loads, grade), kept beside
    the table so a rebuild after one edit reads one file plus the changed runs, not every run.
    Keyed by slot (two cases sharing a run have an entry each) and checked against the grade
    key, which names the run key: an entry can never describe another result."""

    def __init__(self, path: Path, store_root: Path):
        self.path = path
        self.store_root = store_root
        try:
            self.entries: dict[str, Any] = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            self.entries = {}
        self.fresh: dict[str, Any] = {}

    def get(self, spec: RunSpec, grade_key: str) -> tuple[RunResult, Any] | None:
        e = self.entries.get(slot(spec))
        if not isinstance(e, dict) or e.get("grade_key") != grade_key:
            return None
        if not os.path.exists(f"{self.store_root}/runs/{spec.key[:2]}/{spec.key}/COMPLETE.json"):
            return None  # the store is the truth: a run gone from it is not shown from here
        self.fresh[slot(spec)] = e
        # The output text is not needed by the table; a view rewrite loads the full run.
        return RunResult(spec.key, AdapterResponse("", _table_events(e), e["usage"]), e["duration_s"],
                         limits=e.get("limits")), e["grade"]

    def put(self, spec: RunSpec, grade_key: str, result: RunResult, grade: Any) -> None:
        response = result.response
        self.fresh[slot(spec)] = {"grade_key": grade_key, "loaded": sorted(response.loaded_skills()),
                                "usage": response.usage, "duration_s": result.duration_s,
                                "grade": grade, "tool_calls": response.tool_calls(),
                                "unscorable": _first(response.events, UNSCORABLE),
                                "served": _first(response.events, "model"),
                                "limits": result.limits}

    def save(self) -> None:
        write_text(self.path, json.dumps(self.fresh, separators=(",", ":"), sort_keys=True))


def _first(events: tuple[Event, ...], kind: str) -> str | None:
    return next((e.name for e in events if e.type == kind), None)


def _table_events(e: dict[str, Any]) -> tuple[Event, ...]:
    """The events a table reads (loads, tool-call count, served model, unscorable), rebuilt
    from a cache entry."""
    events = [Event("skill_loaded", n) for n in e["loaded"]]
    events += [Event("tool_call", "?") for _ in range(int(e.get("tool_calls") or 0))]
    events += [Event("model", e["served"])] if e.get("served") else []
    events += [Event(UNSCORABLE, e["unscorable"])] if e.get("unscorable") else []
    return tuple(events)


def _records(source: ResultSource, specs: list[RunSpec], cache: RecordCache | None = None,
             full: set[str] | None = None) -> list[tuple[RunSpec, RunResult | RunError, Any]]:
    """``full``: slots whose complete run (output text included) is needed, for their views;
    None means every run is read from the store (the cache is then only refreshed)."""
    out = []
    for spec in specs:
        if cache is not None and full is not None and source.slot(spec) not in full:
            hit = cache.get(spec, source.grade_key(spec))
            if hit is not None:
                out.append((spec, *hit))
                continue
        result: RunResult | RunError | None = source.store.get_run(
            spec.key, verify=not source.verified_unchanged(spec.key))
        grade = None
        if result is None:
            result = source.store.get_error(spec.key) or RunError(spec.key, NOT_RUN, "not run yet")
        else:
            grade = source.store.get_json("grades", source.grade_key(spec))
            if grade is None and not (spec.case.rubric and source.suite.judge is not None):
                # Missing or damaged (and removed on read): deterministic checks cost no call.
                grade = source.grade_one(spec, result)
            if grade is None:
                # The run is stored but the judge could not grade it: an error for this run, retried
                # by the next `run` (see Engine.grade_one).
                failed = source.store.get_json("judge_errors", source.grade_key(spec))
                if isinstance(failed, dict):
                    result = RunError(spec.key, "judge", str(failed.get("message", "judge failed")),
                                      result.duration_s)
        if cache is not None and isinstance(result, RunResult) and grade is not None:
            cache.put(spec, source.grade_key(spec), result, grade)
        out.append((spec, result, grade))
    return out


def stored_records(source: ResultSource, specs: list[RunSpec]
                   ) -> list[tuple[RunSpec, RunResult | RunError, Any]]:
    """(spec, stored result or error, grade or None) per spec, read from the store only (a spec
    never run reads as a ``missing`` error): what exports and tables are made of."""
    return _records(source, specs)


def build_skill(source: ResultSource, skill: str, full_view: bool = False) -> bool:
    """benchmark.json and benchmark.md of one skill (per model), and the per-run view."""
    from skill_eval.review.comparison.ablations import ablation_block
    from skill_eval.review.comparison.benchmark import ARMS, RunRecord, build_benchmark
    from skill_eval.review.comparison.triggers import trigger_block
    from skill_eval.review.folder.run_folders import prune_layout
    from skill_eval.review.render.markdown import benchmark_md

    se = next(s for s in source.project.skills if s.skill.name == skill)
    task_cases = [c for c in se.cases if c.kind == "task"]
    many = len(models(source)) > 1
    prune_layout(source.suite.results / path_component(skill),
                 [column_folder(source, m) for m in models(source)] if many else None)
    for model in models(source):
        specs = [s for s in skill_specs(source, skill) if s.column == model]
        out = bench_dir(source, skill, model)
        fresh = full_view or not (out / "iteration-1").exists()
        cache = RecordCache(out / ".records.json", source.store.root)
        records = _records(source, specs, cache, None if fresh else source.touched_slots)
        cache.save()
        runs = [RunRecord.of(spec.case.id, spec.arm, spec.iteration, result, grade)
                for spec, result, grade in records if spec.case.kind == "task"]
        bench = build_benchmark(source.suite.name, skill, model, task_cases,
                                [r for r in runs if r.arm in ARMS], source.suite.minimum_lift,
                                source.suite.include_unscorable)
        _audit_flags(bench, task_cases, se.skill.names)
        _name_agent(bench, agent_of(source, model))
        if source.until_decided is not None:
            from skill_eval.review.comparison.until_decided import until_decided_block
            from skill_eval.review.comparison.verdict import settle

            bench["adaptive"] = until_decided_block(task_cases, runs, source.suite.minimum_lift,
                                                    source.until_decided, source.suite.iterations,
                                                    source.until_decided_verdict)
            settle(bench)  # under --until-decided its decision is now the verdict
        if se.ablations:
            bench["ablations"] = ablation_block(task_cases, runs, se.ablations)
        triggers = [(spec, result, grade) for spec, result, grade in records if spec.case.kind == "trigger"]
        if triggers:
            bench["triggers"] = trigger_block(triggers)
        plugin_cases = [c.id for es in se.evalsets if es.format == "plugin_eval" for c in es.cases
                        if c.kind == "task"]
        if plugin_cases:
            from skill_eval.review.comparison.plugin_scores import arm_runs, plugin_eval_block

            paired = {s.case.id for s in specs if s.arm == "without_skill"}
            two_arm = {c: c in paired for c in plugin_cases}
            bench["plugin_eval"] = plugin_eval_block(plugin_cases, arm_runs(records), two_arm,
                                                     source.suite.threshold)
        if source.suite.judge is not None:
            bench["judge"] = {"name": describe_judge(source.suite), "identity": source.judge_identity()}
        bench[INPUTS_FIELD] = bench_inputs_key(source, skill, model)
        source.summary_benches = None  # a table changed since build_summary last read them all
        write_text(out / "benchmark.json", dump_json(bench))
        write_text(out / "benchmark.md", benchmark_md(bench))
        _sync_views(source, out, records, fresh, specs)
    return True


def _name_agent(bench: dict[str, Any], agent: str | None) -> None:
    """In a suite with ``agents:``: which agent the table's column (``agent/model``) is, and its model."""
    if agent is not None:
        bench["agent"] = {"name": agent, "model": bench["model"][len(agent) + 1:]}


def _audit_flags(bench: dict[str, Any], cases: list[Any], names: tuple[str, ...]) -> None:
    """The grader audits' flags on each case row (free: no run is involved)."""
    from skill_eval.grade.audit import audit_case

    flags = {c.id: audit_case(c, names).flags for c in cases}
    for row in bench["cases"]:
        row["flags"] += [f for f in flags.get(row["id"], ()) if f not in row["flags"]]


def _sync_views(source: ResultSource, out: Path, records: list[tuple[RunSpec, RunResult | RunError, Any]],
                fresh: bool, specs: list[RunSpec]) -> None:
    """Every run folder shows the store entry its run's current key names: a folder whose
    recorded view key differs is rewritten (a run served from the store after a revert included),
    one whose run was redone under the same key (--force, a damaged entry) too, and folders of
    runs no longer planned go (see views)."""
    from skill_eval.review.folder.run_folders import prune, recorded_key, run_dir, view_key, write_view
    from skill_eval.review.render.page.cache import PageCache, SkillPart, run_rel

    removed = prune(out, specs)
    rewrite = []
    for spec, result, grade in records:
        key = view_key(spec, result, grade, source.grade_key(spec))
        touched = source.slot(spec) in source.touched_slots
        if fresh or touched or recorded_key(run_dir(out, spec)) != key:
            rewrite.append((spec, result, grade, key, fresh or touched))
    if fresh:
        PageCache.clear(out)
    elif rewrite or removed:
        SkillPart.drop(out)
        cache = PageCache(out)
        cache.drop([*removed, *(run_rel(s.iteration, s.case.id, s.arm) for s, *_rest in rewrite)])
        cache.save()
    for spec, result, grade, key, whole in rewrite:
        if not whole and isinstance(result, RunResult):
            # Read from the record cache (no output text): the view needs the whole stored run.
            spec, result, grade = _records(source, [spec])[0]
            key = view_key(spec, result, grade, source.grade_key(spec))
        write_view(out, spec, result, grade, key)


def load_benches(source: ResultSource) -> list[dict[str, Any]]:
    benches = []
    for name in source.skill_names:
        for model in models(source):
            path = bench_dir(source, name, model) / "benchmark.json"
            try:
                benches.append(json.loads(path.read_text("utf-8")))
            except (OSError, ValueError):
                continue
    return benches


def written_benches(source: ResultSource) -> list[dict[str, Any]]:
    """Every table as it stands: those ``build_summary`` just wrote, else read from results/."""
    return source.summary_benches if source.summary_benches is not None else load_benches(source)


def build_summary(source: ResultSource) -> bool:
    from skill_eval.review.comparison.benchmark import diff_benchmarks
    from skill_eval.review.folder.run_folders import prune_skills
    from skill_eval.review.render import FORMATS

    results = source.suite.results
    prune_skills(results, source.skill_names)
    benches = _adjusted(source, load_benches(source))
    previous = _previous(results)
    moved = [m for b in benches for m in diff_benchmarks(previous.get((b["skill"], b["model"])), b)]
    report = report_input(source, benches, moved)
    for fmt in FORMATS:
        if fmt.every_run:
            write_text(results / fmt.filename, fmt.render(report))
    # Keep this run's benchmarks as the next run's "previous", for the moved-cases table.
    # Only what diff_benchmarks reads: the whole benchmarks would be megabytes on a big suite.
    slim = [{"skill": b["skill"], "model": b["model"],
             "cases": [{"id": c["id"], **{v: {"pass_rate": c[v]["pass_rate"]}
                                          for v in ("with_skill", "without_skill")}}
                       for c in b["cases"]]} for b in benches]
    write_text(results / ".previous.json", json.dumps(slim, separators=(",", ":")))
    write_text(results / ".summary-inputs.json", dump_json({INPUTS_FIELD: summary_inputs_key(source)}))
    write_recordings(source)  # agent-mock answers to adopt (results/mock-recordings/)
    source.summary_benches = benches  # what the caller would read back from the files just written
    return True


def _adjusted(source: ResultSource, benches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Holm's adjustment across the suite's comparisons, written back into their tables."""
    from skill_eval.review.comparison.multiplicity import adjust
    from skill_eval.review.render.markdown import benchmark_md

    for i in adjust(benches, source.suite.gate):
        out = bench_dir(source, benches[i]["skill"], benches[i]["model"])
        write_text(out / "benchmark.json", dump_json(benches[i]))
        write_text(out / "benchmark.md", benchmark_md(benches[i]))
    return benches


def report_input(source: ResultSource, benches: list[dict[str, Any]], moved: list[dict[str, Any]]
                 ) -> ReportInput:
    """What every format renders from, with the store and each skill's share of the page."""
    from skill_eval.review.render.format import ReportInput

    return ReportInput(benches, moved, source, functools.partial(page_part, source, moved))


def page_part(source: ResultSource, moved: list[dict[str, Any]], b: Mapping[str, Any]) -> tuple[str, int]:
    """One skill's share of the review page (embedded JSON, runs shown), every run's details read
    from its per-run view. A skill whose inputs are as when its share was last made reuses it whole."""
    from skill_eval.review.render.page.cache import PageCache, SkillPart, run_rel
    from skill_eval.review.render.page.run_data import bench_entry, moved_ids
    from skill_eval.review.render.review import embed_json, page_runs

    results = source.suite.results
    out = bench_dir(source, b["skill"], b["model"])
    ids = moved_ids(b, moved)
    # Paths relative to results: the text is (its links are), so a copy of the folder reuses it.
    part = SkillPart(out, key_of([out.relative_to(results).as_posix(), b.get(INPUTS_FIELD), sorted(ids)]))
    kept = part.load() if b.get(INPUTS_FIELD) else None
    if kept is None:
        cache = PageCache(out, {run_rel(s.iteration, s.case.id, s.arm): source.grade_key(s)
                                for s in skill_specs(source, b["skill"]) if s.column == b["model"]})
        entry = bench_entry(results, out, b, ids, cache)
        cache.save()
        kept = embed_json(entry), page_runs(entry)
        part.save(*kept)
    return kept


def _previous(results: Path) -> dict[tuple[str, str], dict[str, Any]]:
    try:
        data = json.loads((results / ".previous.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {(b["skill"], b["model"]): b for b in data if isinstance(b, dict) and "skill" in b}


def verdict_exit_code(benches: list[dict[str, Any]]) -> int:
    from skill_eval.review.comparison.verdict import exit_code

    return exit_code(benches)
