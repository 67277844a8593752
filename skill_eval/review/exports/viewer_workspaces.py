"""`skill-eval export`: the stored results of a suite, in the layout another tool's viewer reads.

Nothing is run or graded here: runs, errors and grades come from the store (through
``tables.stored_records``), exactly as the tables see them; a run never made is left out.

Two layouts, one workspace per skill (and model, when the suite has several):

``skill-creator`` — Anthropic's skill-creator (anthropics/skills, ``skills/skill-creator``):
its SKILL.md "Running and evaluating test cases", ``references/schemas.md`` (the JSON shapes
its eval viewer and ``scripts/aggregate_benchmark.py`` read, field names exactly) and
``agents/grader.md``::

    <out>/<skill>-workspace/iteration-1/
        benchmark.json  benchmark.md                 metadata, runs[], run_summary, notes
        eval-<case>/eval_metadata.json               {eval_id, eval_name, prompt, assertions}
        eval-<case>/<configuration>/run-<n>/         configuration: with_skill | without_skill
            outputs/   grading.json   timing.json   transcript.md   eval_metadata.json

  ``run-<n>`` is our iteration (skill-creator's ``run_number``); skill-creator's own
  ``iteration-N`` is one pass of its improve loop, so a snapshot of the store is iteration 1.
  ``eval_metadata.json`` is also in each run folder, where the viewer looks for the prompt.

``agentskills`` — the agentskills.io guide "Evaluating skill output quality"
(https://agentskills.io/skill-creation/evaluating-skills, source
agentskills/agentskills ``docs/skill-creation/evaluating-skills.mdx``): ``grading.json`` with
``assertion_results[{text, passed, evidence}]`` and ``summary{passed, failed, total,
pass_rate}``; ``timing.json`` with ``total_tokens`` and ``duration_ms``; ``benchmark.json``
with ``run_summary`` whose ``delta`` values are numbers::

    <out>/<skill>-workspace/iteration-1/
        benchmark.json
        eval-<case>/<configuration>/{outputs/, grading.json, timing.json}

  The guide shows one run per configuration; with several iterations each gets a
  ``run-<n>/`` folder inside the configuration (the convention skill-creator reads).

Expectations are our checks (``"<id>: <type> <params>"``) and judge-graded rubric items (their
text). A rubric item no judge graded is not an expectation (it was neither passed nor failed);
it is listed under the run's notes. Runs that errored have no grading.json: they are counted in
``errors`` and named in the benchmark's notes, never as failed expectations.
"""

from __future__ import annotations

import functools
import json
import math
import shutil
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_eval import __version__
from skill_eval.errors import SkillEvalError
from skill_eval.fs.safenames import path_component
from skill_eval.model.cases import Case
from skill_eval.model.results import RunError, RunResult, loads_skill
from skill_eval.plan.types import RunSpec
from skill_eval.review.comparison.benchmark import usage_tokens
from skill_eval.review.exports.format import Exported, ExportFormat
from skill_eval.review.folder.tables import dump_json, stored_records, write_text
from skill_eval.review.resultsource import ResultSource

if TYPE_CHECKING:
    from skill_eval.model.project import Project

FORMATS = ("skill-creator", "agentskills")
CONFIGURATIONS = ("with_skill", "without_skill")
OUTPUT_FILE = "agent_output.md"  # the agent's final answer, inside outputs/


def export(source: ResultSource, fmt: str, out_dir: Path) -> int:
    """Write the suite's stored results under ``out_dir`` in ``fmt``; the number of runs written."""
    if fmt not in FORMATS:
        raise SkillEvalError(f"unknown export format '{fmt}' (formats: {', '.join(FORMATS)})")
    project = source.project
    models = project.suite.columns
    written = 0
    for se in project.skills:
        name = se.skill.name
        cases = [c for c in se.cases if c.kind == "task"]
        for model in models:
            specs = [s for s in source.plan.runs
                     if s.skill_name == name and s.column == model and s.case.kind == "task"
                     and s.arm in CONFIGURATIONS]  # both formats know only these two arms
            records = [r for r in stored_records(source, specs)
                       if not (isinstance(r[1], RunError) and r[1].kind == "missing")]
            if not records:
                continue
            label = path_component(name if len(models) == 1 else f"{name}-{model}")
            root = Path(out_dir) / f"{label}-workspace" / "iteration-1"
            if root.exists():
                shutil.rmtree(root)  # a view of the store: rebuilt whole, nothing stale left
            written += _export_skill(source, fmt, root, name, se.skill.path, model, cases, records)
    if not written:
        raise SkillEvalError(f"nothing to export: no results in the store for suite {project.suite.name}; "
                             "run 'skill-eval run' first")
    return written


# --------------------------------------------------------------------------- one skill × model

Record = tuple[RunSpec, RunResult | RunError, Any]


def _export_skill(source: ResultSource, fmt: str, root: Path, skill: str, skill_path: Path, model: str,
                  cases: Sequence[Case], records: Sequence[Record]) -> int:
    creator = fmt == "skill-creator"
    several = max(spec.iteration for spec, _, _ in records) > 1
    eval_ids = _eval_ids(cases)
    runs: list[dict[str, Any]] = []
    notes: list[str] = []
    for spec, result, grade in sorted(records, key=lambda r: (_order(cases, r[0].case.id), r[0].arm,
                                                              r[0].iteration)):
        run_dir, meta = _run_dir(root, spec, eval_ids[spec.case.id], creator, several)
        if isinstance(result, RunError):
            write_text(run_dir / "outputs" / "error.txt", f"{result.kind}: {result.message}\n")
            notes.append(f"eval {spec.case.id} {spec.arm} run {spec.iteration} errored "
                         f"({result.kind}): {result.message[:200]}")
            continue
        runs.append(_export_run(run_dir, spec, result, grade, meta, creator, eval_ids[spec.case.id]))
    if not runs and not notes:
        return 0
    _write_benchmark(source, root, skill, skill_path, model, runs, notes, creator)
    return len(runs) + len(notes)


def _run_dir(root: Path, spec: RunSpec, eval_id: int, creator: bool,
             several: bool) -> tuple[Path, dict[str, Any]]:
    """The run's folder, made empty with its ``outputs/``; and the case's metadata."""
    case = spec.case
    eval_dir = root / f"eval-{path_component(case.id)}"
    meta = {"eval_id": eval_id, "eval_name": case.id, "prompt": case.prompt,
            "assertions": _assertion_texts(case)}
    if creator:
        write_text(eval_dir / "eval_metadata.json", dump_json(meta))
    run_dir = eval_dir / spec.arm
    if creator or several:
        run_dir = run_dir / f"run-{spec.iteration}"
    if run_dir.exists():
        shutil.rmtree(run_dir)
    (run_dir / "outputs").mkdir(parents=True, exist_ok=True)
    return run_dir, meta


def _export_run(run_dir: Path, spec: RunSpec, result: RunResult, grade: Any, meta: dict[str, Any],
                creator: bool, eval_id: int) -> dict[str, Any]:
    """One run's outputs, grading.json and timing.json (and for skill-creator its transcript and
    metadata); returns its entry in benchmark.json's runs."""
    case = spec.case
    outputs = run_dir / "outputs"
    if result.outputs_dir is not None and result.outputs_dir.is_dir():
        shutil.copytree(result.outputs_dir, outputs, dirs_exist_ok=True)
    write_text(outputs / OUTPUT_FILE, result.output)
    expectations, ungraded = _expectations(case, grade)
    summary = _summary(expectations)
    tokens = usage_tokens(result.response.usage)
    duration = result.duration_s
    events = result.response.events
    tool_calls = Counter(e.name or "unknown" for i, e in enumerate(events)
                         if e.type == "tool_call" and not loads_skill(events, i))
    if creator:
        transcript = _transcript(case, result)
        write_text(run_dir / "transcript.md", transcript)
        write_text(run_dir / "eval_metadata.json", dump_json(meta))
        metrics = {"tool_calls": dict(sorted(tool_calls.items())),
                   "total_tool_calls": sum(tool_calls.values()),
                   "total_steps": int(result.response.usage.get("num_turns", 0) or 0),
                   "errors_encountered": 0, "output_chars": len(result.output),
                   "transcript_chars": len(transcript)}
        grading = {"expectations": expectations, "summary": summary, "execution_metrics": metrics,
                   "timing": {"executor_duration_seconds": round(duration, 3),
                              "total_duration_seconds": round(duration, 3)},
                   "user_notes_summary": {"uncertainties": [], "workarounds": [],
                                          "needs_review": [f"ungraded (no judge verdict): {t}"
                                                           for t in ungraded]}}
        timing = {"total_tokens": int(tokens or 0), "duration_ms": int(round(duration * 1000)),
                  "total_duration_seconds": round(duration, 3),
                  "executor_duration_seconds": round(duration, 3)}
    else:
        grading = {"assertion_results": expectations, "summary": summary}
        timing = {"total_tokens": int(tokens or 0), "duration_ms": int(round(duration * 1000))}
    write_text(run_dir / "grading.json", dump_json(grading))
    write_text(run_dir / "timing.json", dump_json(timing))
    return {
        "eval_id": eval_id, "eval_name": case.id, "configuration": spec.arm,
        "run_number": spec.iteration,
        "result": {**summary, "time_seconds": round(duration, 3), "tokens": int(tokens or 0),
                   "tool_calls": sum(tool_calls.values()), "errors": 0},
        "expectations": expectations,
        "notes": [f"ungraded (no judge verdict): {t}" for t in ungraded],
        "_model": next((e.name for e in result.response.events if e.type == "model" and e.name), None),
    }


def _write_benchmark(source: ResultSource, root: Path, skill: str, skill_path: Path, model: str,
                     runs: list[dict[str, Any]], notes: list[str], creator: bool) -> None:
    """benchmark.json (and for skill-creator benchmark.md) of one skill x model."""
    run_summary = _run_summary(runs, numeric_delta=not creator)
    if creator:
        executor = next((r["_model"] for r in runs if r["_model"]), None) or model
        for r in runs:
            r.pop("_model")
        bench = {
            "metadata": {
                "skill_name": skill, "skill_path": str(skill_path), "executor_model": executor,
                "analyzer_model": _analyzer(source), "timestamp": _now(),
                "evals_run": sorted({r["eval_id"] for r in runs}),
                "runs_per_configuration": max((r["run_number"] for r in runs), default=0),
                "generator": f"skill-eval {__version__} (suite {source.suite.name})",
            },
            "runs": runs, "run_summary": run_summary, "notes": notes + _analyst_notes(runs),
        }
        write_text(root / "benchmark.md", _benchmark_md(bench))
    else:
        bench = {"run_summary": run_summary}
    write_text(root / "benchmark.json", dump_json(bench))


# --------------------------------------------------------------------------- pieces


def _order(cases: Sequence[Case], case_id: str) -> int:
    return next((i for i, c in enumerate(cases) if c.id == case_id), len(cases))


def _eval_ids(cases: Sequence[Case]) -> dict[str, int]:
    """skill-creator's numeric ``eval_id``: the case id when it is a number, else its position."""
    ids: dict[str, int] = {}
    for i, c in enumerate(cases):
        ids[c.id] = int(c.id) if str(c.id).isdigit() else i
    return ids


def _check_text(check: Any) -> str:
    params = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in sorted(check.params.items()))
    text = f"{check.id}: {check.type}" + (f" {params}" if params else "")
    return text + ("" if check.required else " (optional)")


def _assertion_texts(case: Case) -> list[str]:
    return [_check_text(c) for c in case.checks] + [r.text for r in case.rubric]


def _expectations(case: Case, grade: Mapping[str, Any] | None) -> tuple[list[dict[str, Any]], list[str]]:
    """[{text, passed, evidence}] from a grade, and the texts of rubric items left ungraded."""
    if not grade:
        return [], [r.text for r in case.rubric]
    checks = {c.id: c for c in case.checks}
    out = []
    for c in grade.get("checks", []):
        check = checks.get(c.get("id"))
        text = _check_text(check) if check is not None else f"{c.get('id')}: {c.get('type', 'check')}"
        out.append({"text": text, "passed": c.get("passed") is True, "evidence": str(c.get("evidence", ""))})
    ungraded = []
    for item in grade.get("rubric", []):
        if item.get("status") in ("passed", "failed"):
            out.append({"text": item.get("text", item.get("id", "")), "passed": item["status"] == "passed",
                        "evidence": str(item.get("evidence", ""))})
        else:
            ungraded.append(str(item.get("text", item.get("id", ""))))
    return out, ungraded


def _summary(expectations: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    passed = sum(1 for e in expectations if e["passed"])
    total = len(expectations)
    return {"passed": passed, "failed": total - passed, "total": total,
            "pass_rate": round(passed / total, 4) if total else 0.0}


def _stats(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "stddev": 0.0, "min": 0.0, "max": 0.0}
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return {"mean": round(mean, 4), "stddev": round(sd, 4), "min": round(min(values), 4),
            "max": round(max(values), 4)}


def _run_summary(runs: Sequence[Mapping[str, Any]], numeric_delta: bool) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for config in CONFIGURATIONS:
        mine = [r["result"] for r in runs if r["configuration"] == config]
        summary[config] = {"pass_rate": _stats([r["pass_rate"] for r in mine]),
                           "time_seconds": _stats([r["time_seconds"] for r in mine]),
                           "tokens": _stats([r["tokens"] for r in mine])}
    w, wo = summary["with_skill"], summary["without_skill"]
    d = {k: w[k]["mean"] - wo[k]["mean"] for k in ("pass_rate", "time_seconds", "tokens")}
    if numeric_delta:
        summary["delta"] = {"pass_rate": round(d["pass_rate"], 4),
                            "time_seconds": round(d["time_seconds"], 3), "tokens": round(d["tokens"], 1)}
    else:
        summary["delta"] = {"pass_rate": f"{d['pass_rate']:+.2f}",
                            "time_seconds": f"{d['time_seconds']:+.1f}", "tokens": f"{d['tokens']:+.0f}"}
    return summary


def _analyst_notes(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The patterns skill-creator's analyst looks for: expectations that pass everywhere."""
    seen: dict[str, list[bool]] = {}
    for r in runs:
        for e in r["expectations"]:
            seen.setdefault(f"{r['eval_name']}: {e['text']}", []).append(e["passed"])
    configs = {r["configuration"] for r in runs}
    if configs != set(CONFIGURATIONS):
        return []
    return [f"Expectation '{k}' passes in every run of both configurations - it may not show what "
            "the skill changes" for k, v in sorted(seen.items()) if v and all(v)]


def _transcript(case: Case, result: RunResult) -> str:
    lines = ["# Transcript (from the adapter's reported events)", "", "## Eval Prompt", "", case.prompt, "",
             "## Events", ""]
    lines += [f"- {e.type}" + (f": {e.name}" if e.name else "") for e in result.response.events] or ["(none)"]
    lines += ["", "## Final Response", "", result.output, ""]
    return "\n".join(lines)


def _analyzer(source: ResultSource) -> str:
    judge = source.suite.judge
    if judge is None:
        return "none (deterministic checks)"
    return str(judge.model or judge.builtin or "judge command")


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _benchmark_md(bench: Mapping[str, Any]) -> str:
    meta, s = bench["metadata"], bench["run_summary"]

    def cell(config: str, key: str, scale: float = 1.0, unit: str = "") -> str:
        v = s[config][key]
        return f"{v['mean'] * scale:.1f}{unit} ± {v['stddev'] * scale:.1f}{unit}"

    lines = [f"# Skill Benchmark: {meta['skill_name']}", "", f"**Model**: {meta['executor_model']}",
             f"**Date**: {meta['timestamp']}",
             f"**Evals**: {', '.join(map(str, meta['evals_run']))} "
             f"({meta['runs_per_configuration']} runs each per configuration)", "", "## Summary", "",
             "| Metric | With Skill | Without Skill | Delta |", "|---|---|---|---|",
             f"| Pass Rate | {cell('with_skill', 'pass_rate', 100, '%')} | "
             f"{cell('without_skill', 'pass_rate', 100, '%')} | {s['delta']['pass_rate']} |",
             f"| Time | {cell('with_skill', 'time_seconds', 1, 's')} | "
             f"{cell('without_skill', 'time_seconds', 1, 's')} | {s['delta']['time_seconds']}s |",
             f"| Tokens | {cell('with_skill', 'tokens')} | {cell('without_skill', 'tokens')} | "
             f"{s['delta']['tokens']} |"]
    if bench.get("notes"):
        lines += ["", "## Notes", ""] + [f"- {n}" for n in bench["notes"]]
    return "\n".join(lines) + "\n"


def _write(fmt: str, project: Project, source: ResultSource | None, out: Path) -> Exported:
    assert source is not None  # reads_store: the CLI hands the store in
    return Exported(export(source, fmt, out), "run", fmt)


SKILL_CREATOR = ExportFormat("skill-creator", "the stored results",
                             functools.partial(_write, "skill-creator"), reads_store=True)
AGENTSKILLS = ExportFormat("agentskills", "the stored results",
                           functools.partial(_write, "agentskills"), reads_store=True)
