"""Trigger evals: does the installed (not forced) skill get picked when it should, and only then?"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from skill_eval.model.results import RunError, RunResult
from skill_eval.plan.types import RunSpec

BROKEN_WARNING = ("every should-trigger query scored 0 and no run errored: the measurement is probably "
                  "broken (adapter not reporting skill_loaded events, the skill installed where the agent "
                  "does not look, or shadowed by a same-named installed skill)")


def trigger_block(records: list[tuple[RunSpec, RunResult | RunError, Any]]) -> dict[str, Any]:
    """benchmark.json's ``triggers``: per query rate and verdict; precision, recall, accuracy."""
    by_query: dict[str, list[tuple[RunSpec, RunResult | RunError]]] = defaultdict(list)
    for spec, result, _grade in records:
        by_query[spec.case.id].append((spec, result))
    queries = []
    tp = fp = tn = fn = 0
    errors = 0
    for qid in sorted(by_query, key=lambda q: (len(q), q)):
        runs = by_query[qid]
        case = runs[0][0].case
        ok = [(s, r) for s, r in runs if isinstance(r, RunResult)]
        errors += len(runs) - len(ok)
        loaded = sum(1 for s, r in ok if set(s.skill_names or (s.skill_name,)) & r.response.loaded_skills())
        rate = loaded / len(ok) if ok else None
        triggered = rate is not None and rate >= 0.5
        expected = bool(case.should_trigger)
        if rate is not None:
            if triggered and expected:
                tp += 1
            elif triggered:
                fp += 1
            elif expected:
                fn += 1
            else:
                tn += 1
        queries.append({"id": qid, "query": case.prompt, "should_trigger": expected, "runs": len(runs),
                        "errors": len(runs) - len(ok), "trigger_rate": rate, "triggered": triggered,
                        "verdict": None if rate is None else ("pass" if triggered == expected else "fail")})
    total = tp + fp + tn + fn
    block: dict[str, Any] = {
        "queries": queries,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
        "accuracy": (tp + tn) / total if total else None,
        "counts": {"tp": tp, "fp": fp, "tn": tn, "fn": fn, "errors": errors},
        "warnings": [],
    }
    should = [q for q in queries if q["should_trigger"] and q["trigger_rate"] is not None]
    if should and errors == 0 and all(q["trigger_rate"] == 0 for q in should):
        block["warnings"].append(BROKEN_WARNING)
    return block
