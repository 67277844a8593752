"""The blessed baseline, ``<suite>.baseline.json`` beside the suite (schemas/baseline.schema.json):
per skill x model x case, each arm's passed/graded counts, pass rate and a digest of its run
keys. Small, sorted, without dates, so it can be committed and reviewed as a diff, and a
regression gate works on a fresh machine without the cached store."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem
from skill_eval.fs.hashing import key_of
from skill_eval.intake.schemas_io import schema_problems
from skill_eval.store.history import ARMS, CaseCounts, History, HistoryRecord

SCHEMA_VERSION = 1


def baseline_path(suite_path: Path) -> Path:
    return suite_path.with_name(f"{suite_path.stem}.baseline.json")


def _arm(counts: tuple[int, int], keys: Sequence[str]) -> dict[str, Any]:
    passed, graded = counts
    return {"passed": passed, "graded": graded, "pass_rate": round(passed / graded, 6) if graded else None,
            "runs": key_of(sorted(keys))}


def baseline_json(suite: str, records: Sequence[HistoryRecord], history: History) -> dict[str, Any]:
    skills: dict[str, dict[str, Any]] = {}
    for r in sorted(records, key=lambda r: r.pair):
        assert r.cases is not None  # the current version's records, made with their cases
        keys = history.runs(r) or {}
        cases = {cid: {arm: _arm(c.arm(arm), [k[1] for k in keys.get(cid, {}).get(arm, [])]) for arm in ARMS}
                 for cid, c in sorted(r.cases.items())}
        skills.setdefault(r.skill, {})[r.model] = {
            "skill_hash": r.skill_hash,
            "pass_rate": {a: _round(r.pass_rate.get(a)) for a in ARMS},
            "lift": {"pass_rate": _round(r.lift.get("pass_rate")), "p_value": _round(r.lift.get("p_value")),
                     "ci95": None if r.lift.get("ci95") is None else [_round(x) for x in r.lift["ci95"]]},
            "cases": cases,
        }
    return {"schema_version": SCHEMA_VERSION, "suite": suite, "skills": skills}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def baseline_text(data: Mapping[str, Any]) -> str:
    """Indented JSON with one line per case, sorted: a re-bless that moved one case is a
    one-line diff."""
    nonce = secrets.token_hex(8)
    blocks: dict[str, str] = {}
    skills: dict[str, Any] = {}
    for skill, by_model in data["skills"].items():
        for model, version in by_model.items():
            token = f"{nonce}-{len(blocks)}"
            pad = " " * 10
            lines = [f"{pad}{json.dumps(cid, ensure_ascii=False)}: "
                     f"{json.dumps(case, sort_keys=True, ensure_ascii=False, separators=(', ', ': '))}"
                     for cid, case in sorted(version["cases"].items())]
            blocks[json.dumps(token)] = "{\n" + ",\n".join(lines) + "\n" + " " * 8 + "}" if lines else "{}"
            skills.setdefault(skill, {})[model] = {**version, "cases": token}
    text = json.dumps({**data, "skills": skills}, indent=2, sort_keys=True, ensure_ascii=False)
    for token, block in blocks.items():
        text = text.replace(token, block)
    return text + "\n"


def read_baseline(path: Path, display: str) -> list[HistoryRecord] | None:
    """The baseline's versions as history records (no date, no run keys); None when the file is
    not there; InvalidInput when it does not match its schema."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise InvalidInput([Problem(display, f"not a readable baseline ({exc}); write it again with "
                                             "skill-eval bless")]) from None
    problems = schema_problems("baseline", data, display)
    if problems:
        raise InvalidInput(problems)
    out = []
    for skill, by_model in data["skills"].items():
        for model, entry in by_model.items():
            cases = {cid: CaseCounts(*(_pair(c[a]) for a in ARMS)) for cid, c in entry["cases"].items()}
            out.append(HistoryRecord(suite=data["suite"], skill=skill, model=model,
                                     skill_hash=entry["skill_hash"], date="", git=None, cases=cases,
                                     pass_rate=entry["pass_rate"], lift=entry["lift"],
                                     cost_usd={a: None for a in ARMS}))
    return out


def _pair(arm: Mapping[str, Any]) -> tuple[int, int]:
    return (int(arm["passed"]), int(arm["graded"]))

