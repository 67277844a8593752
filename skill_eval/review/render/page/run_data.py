"""What the review page shows of each run, read from the results folder's per-run view (the
layout ``views.write_view`` writes) and the benchmarks. Plain dicts and lists, embedded in
the page once as JSON; every string in it is untrusted and the page treats it as text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from skill_eval.fs.safenames import arm_folder, path_component
from skill_eval.review.comparison.benchmark import ARMS, usage_tokens
from skill_eval.review.render.page.cache import PageCache, run_rel

MAX_OUTPUT_CHARS = 20_000  # per run; the full text is one click away under results/
MAX_KEPT_FILES = 50
MAX_STEPS = 200  # per run: a runaway agent's thousand tool calls stay one click away
_STEP_CHARS = 300


def steps(events: list[Any]) -> list[list[str]]:
    """A run's trajectory, in order: [kind, label] per tool call, shell command and stop (the
    page numbers them and compares the arms' tools and commands)."""
    out: list[list[str]] = []
    for e in events:
        if not isinstance(e, dict):
            continue
        kind, name = e.get("type"), str(e.get("name") or "")
        if kind == "tool_call":
            preview = e.get("input")
            inside = "[subagent] " if e.get("subagent") is True else ""
            shown = f": {preview}" if isinstance(preview, str) and preview else ""
            out.append(["tool", inside + name + shown])
        elif kind == "command" and isinstance(e.get("argv"), list):
            out.append(["command", " ".join(str(a) for a in e["argv"])])
        elif kind == "stop" and name:
            out.append(["stop", name])
        elif kind == "skill_loaded" and name:
            out.append(["skill", name])
    return [[k, label[:_STEP_CHARS]] for k, label in out[:MAX_STEPS]]


def href(results: Path, path: Path) -> str:
    """A relative link from <results>/index.html: every segment percent-encoded, so a case id
    like ``javascript:x`` can never become a URL scheme."""
    return "/".join(quote(part, safe="") for part in path.relative_to(results).parts)


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def _text(path: Path) -> str | None:
    try:
        return path.read_text("utf-8", errors="replace")
    except OSError:
        return None


def _unscorable(error: Any, events: list[Any]) -> str | None:
    if isinstance(error, dict) and error.get("kind") == "unscorable":
        return str(error.get("message", ""))
    return next((str(e.get("name") or "") for e in events
                 if isinstance(e, dict) and e.get("type") == "unscorable"), None)


def _status(grade: Any, error: Any, output: str | None, unscorable: str | None = None) -> str:
    if unscorable is not None:
        return "unscorable"
    if isinstance(error, dict):
        return "error"
    if output is None:
        return "missing"
    if not isinstance(grade, dict):
        return "ungraded"
    return "pass" if grade.get("passed") is True else "fail"


def _kept(results: Path, run_dir: Path) -> list[list[str]]:
    root = run_dir / "outputs"
    if not root.is_dir():
        return []
    files = sorted(p for p in root.rglob("*") if p.is_file())[:MAX_KEPT_FILES]
    return [[str(p.relative_to(root)), href(results, p)] for p in files]


def run_entry(results: Path, run_dir: Path, arm: str, iteration: int, skill: str) -> dict[str, Any]:
    error = _json(run_dir / "error.json")
    output = None if isinstance(error, dict) else _text(run_dir / "output.txt")
    grade = _json(run_dir / "grading.json") if output is not None else None
    response = _json(run_dir / "response.json") if output is not None else None
    usage = (response or {}).get("usage") or {} if isinstance(response, dict) else {}
    events = (response or {}).get("events") or [] if isinstance(response, dict) else []
    timing = _json(run_dir / "timing.json") if output is not None else None
    tokens = usage_tokens(usage) if isinstance(usage, dict) else None
    cost = usage.get("cost_usd") if isinstance(usage, dict) else None
    text = output or ""
    credit = grade.get("partial_credit") if isinstance(grade, dict) else None
    entry: dict[str, Any] = {
        # skill-creator's run_id: the run folder's path under the folder reviewed, '/' as '-'.
        "rid": "-".join(run_dir.relative_to(results).parts),
        "arm": arm, "it": iteration, "st": _status(grade, error, output, _unscorable(error, events)),
        "unscorable": _unscorable(error, events),
        "credit": credit if isinstance(credit, int | float) and not isinstance(credit, bool) else None,
        "out": text[:MAX_OUTPUT_CHARS], "clipped": len(text) > MAX_OUTPUT_CHARS,
        "err": f"{error.get('kind')}: {error.get('message')}" if isinstance(error, dict) else None,
        "tok": int(tokens) if tokens is not None else None,
        "cost": cost if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        "dur": timing.get("duration_s") if isinstance(timing, dict) else None,
        "loaded": any(isinstance(e, dict) and e.get("type") == "skill_loaded" and e.get("name") == skill
                      for e in events),
        "href": href(results, run_dir) + "/" if run_dir.is_dir() else None,
        "files": _kept(results, run_dir),
        "steps": steps(events if isinstance(events, list) else []),
        "checks": [], "rubric": [],
    }
    if isinstance(grade, dict):
        entry["checks"] = [[str(c.get("id")), _check_kind(c), bool(c.get("required")),
                            bool(c.get("passed")), str(c.get("evidence", ""))]
                           for c in grade.get("checks", [])]
        entry["rubric"] = [[str(r.get("id")), str(r.get("text", "")), str(r.get("status")),
                            str(r.get("evidence", "")), bool(r.get("required", True)), _votes(r)]
                           for r in grade.get("rubric", [])]
    return entry


def _check_kind(check: Mapping[str, Any]) -> str:
    """A check's type, with its claude plugin eval weight and indicator badge where it has them."""
    weight = check.get("weight")
    return (str(check.get("type")) + (f", weight {weight:g}" if isinstance(weight, int | float) else "")
            + (", plugin-fired indicator: not scored in a two-arm case" if check.get("indicator") else ""))


def _votes(item: Mapping[str, Any]) -> str:
    """A plugin-eval grader's judge votes as the page shows them ("votes PASS FAIL PASS"), or ""."""
    votes = item.get("votes")
    if not isinstance(votes, list):
        return ""
    if not votes:
        return "not judged"
    return "votes " + " ".join("PASS" if isinstance(v, dict) and v.get("passed") is True else "FAIL"
                               for v in votes)


def _rate(arm: Mapping[str, Any]) -> str:
    return (f"{arm['passed']}/{arm['graded']}" + (f" +{arm['errors']} err" if arm.get("errors") else "")
            + (f" +{arm['unscorable']} unscorable" if arm.get("unscorable") else ""))


def case_entry(results: Path | None, out: Path | None, bench: Mapping[str, Any], cid: str, kind: str,
               iterations: int, moved: set[str], cache: PageCache | None = None) -> dict[str, Any]:
    """``cache``: page data of unchanged runs, kept from the last build (None: read every view)."""
    if results is None or out is None:
        return {"id": cid, "kind": kind, "prompt": "", "expected": "", "moved": cid in moved, "runs": []}
    folder = "eval-" + path_component(cid)
    case_dir_by_it = {i: out / f"iteration-{i}" / folder for i in range(1, iterations + 1)}

    def read_meta() -> Any:
        return next((_json(d / "case.json") for d in case_dir_by_it.values() if (d / "case.json").is_file()),
                    None) or {}

    meta = read_meta() if cache is None else cache.case(folder, read_meta)
    runs = []
    ablations = tuple(str(a["variant"]) for a in bench.get("ablations") or [])
    arms = (*ARMS, *ablations) if kind == "task" else ("with_skill",)
    for i, case_dir in case_dir_by_it.items():
        for arm in arms:
            arm_dir = case_dir / arm_folder(arm)

            def read(run_dir: Path = arm_dir, arm: str = arm, i: int = i) -> dict[str, Any] | None:
                return run_entry(results, run_dir, arm, i, bench["skill"]) if run_dir.is_dir() else None

            entry = read() if cache is None else cache.run(run_rel(i, cid, arm), read)
            if entry is not None:
                runs.append(entry)
    return {"id": cid, "kind": kind, "prompt": str(meta.get("prompt", "")),
            "expected": str(meta.get("expected_output") or ""), "moved": cid in moved, "runs": runs}


def bench_entry(results: Path | None, out: Path | None, bench: Mapping[str, Any],
                moved: set[str], cache: PageCache | None = None) -> dict[str, Any]:
    cases = []
    for c in bench["cases"]:
        n = max(c["with_skill"]["runs"], c["without_skill"]["runs"])
        entry = case_entry(results, out, bench, str(c["id"]), "task", n, moved, cache)
        entry.update({"flags": list(c["flags"]), "w": _rate(c["with_skill"]), "wo": _rate(c["without_skill"]),
                      "wrate": c["with_skill"]["pass_rate"], "worate": c["without_skill"]["pass_rate"],
                      "delta": c["delta"], "other_skills": dict(c.get("other_skills") or {})})
        cases.append(entry)
    triggers = []
    for q in (bench.get("triggers") or {}).get("queries", []):
        entry = case_entry(results, out, bench, str(q["id"]), "trigger", int(q["runs"]), moved, cache)
        ok = q["runs"] - q["errors"]
        loaded = round(q["trigger_rate"] * ok) if q["trigger_rate"] is not None else 0
        entry.update({"should": bool(q["should_trigger"]), "loads": f"{loaded}/{ok}",
                      "verdict": q["verdict"] or "error", "prompt": str(q["query"]),
                      "flags": ["error"] if q["errors"] else []})
        triggers.append(entry)
    iterations = max([max(c["with_skill"]["runs"], c["without_skill"]["runs"])
                      for c in bench["cases"]] or [0])
    return {"skill": bench["skill"], "model": bench["model"], "iterations": iterations,
            "cases": cases, "triggers": triggers}


def moved_ids(bench: Mapping[str, Any], moved: Sequence[Mapping[str, Any]]) -> set[str]:
    """The ids of ``bench``'s cases among the moved ones."""
    return {str(m["id"]) for m in moved if m.get("skill") == bench["skill"]
            and m.get("model") in (None, bench["model"])}


def review_data(results: Path | None, benches: Sequence[tuple[Mapping[str, Any], Path | None]],
                moved: Sequence[Mapping[str, Any]],
                caches: Mapping[Path, PageCache] | None = None) -> dict[str, Any]:
    """``benches``: each benchmark with the folder its per-run view is under (None: figures only);
    ``caches``: by folder, the page data kept from the last build (see review/render/page/cache.py)."""
    suite = str(benches[0][0]["suite"]) if benches else "skill-eval"
    out = []
    for bench, folder in benches:
        cache = (caches or {}).get(folder) if folder is not None else None
        out.append(bench_entry(results, folder, bench, moved_ids(bench, moved), cache))
    return {"suite": suite, "skills": out}
