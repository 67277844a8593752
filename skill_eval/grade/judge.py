"""Judged rubric items: verdicts for a run's plain-sentence assertions, cached in the store.

A suite's ``judge:`` is either ``{command: [...]}`` (any executable speaking the judge protocol)
or ``{builtin: claude-code|codex|openai, model, options, env}``. Grading never starts it: the
engine hands in a ``JudgePort`` (``skill_eval.run.judge_process.JudgeProcess``).

Verdicts are cached in the store (kind ``judge``) under a key of the run, the judge identity, the
output's hash, the prompt, the rubric items, expected_output and the judge prompt version: each
run's verdicts are its own draws (two runs with the same output are judged apart, as a sampling
judge would judge them), re-grading after a check edit, or re-running an unchanged suite, makes
no judge call; a rubric edit re-judges only the cases it touched; a judge change re-judges
everything and re-runs nothing. A failure is a ``JudgeError``: nothing is cached, so the next
run asks again.

``claude plugin eval`` graders (rubric items with ``votes``/``focus``) are not in this batch
request: votes.py judges them the first-party way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from skill_eval.fs.hashing import key_of, sha256_bytes
from skill_eval.model.cases import RubricItem
from skill_eval.model.config import Suite
from skill_eval.model.results import RunResult
from skill_eval.plan.types import RunSpec
from skill_eval.store.redact import redact, redact_json
from skill_eval.store.store import Store


class JudgePort(Protocol):
    """What grading needs of a judge: who it is (for keys) and one call per request."""

    name: str
    prompt_version: str
    concurrency: int  # requests in flight at once (the port enforces it; grading uses it as pool size)

    @property
    def identity(self) -> dict[str, Any]: ...

    def call(self, request: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, float]]: ...


@dataclass(frozen=True)
class JudgeOutcome:
    verdicts: dict[str, dict[str, Any]]  # rubric id → {passed, evidence}
    usage: dict[str, float]  # what these verdicts were billed, asked now or earlier
    cached: bool


@dataclass(frozen=True)
class Ask:
    """One judge request still to make, and the store key its answer is kept under."""

    key: str
    request: dict[str, Any]


def add_usage(total: dict[str, float], usage: Any) -> None:
    for name, value in (usage or {}).items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            total[name] = total.get(name, 0) + value


def stored_answer(store: Store, key: str, ids: set[str]) -> dict[str, Any] | None:
    """A stored judge answer covering every id in ``ids``, or None."""
    hit = store.get_json("judge", key)
    if isinstance(hit, dict) and isinstance(hit.get("verdicts"), dict) and ids <= set(hit["verdicts"]):
        return hit
    return None


def ask_judge(judge: JudgePort, store: Store, ask: Ask) -> dict[str, Any]:
    """Make one request and keep its answer (``{verdicts, usage, judge}``) under its key."""
    verdicts, usage = judge.call(ask.request)
    entry = {"verdicts": verdicts, "usage": usage, "judge": judge.name}
    store.put_json("judge", ask.key, entry)
    return entry


def voted(item: RubricItem) -> bool:
    """Is this rubric item judged by votes on a focus (a plugin-eval grader), not in the batch?"""
    return item.votes != 1 or bool(item.focus)


def verdict_key(ident: dict[str, Any], prompt: str, output: str, rubric: list[dict[str, str]],
                expected_output: str, prompt_version: str, run_key: str) -> str:
    return key_of({"judge": ident, "prompt_sha256": sha256_bytes(prompt.encode("utf-8")),
                   "output_sha256": sha256_bytes(output.encode("utf-8")), "rubric": rubric,
                   "expected_output": expected_output, "prompt_version": prompt_version,
                   "run": run_key})


def verdict_ask(judge: JudgePort, store: Store, suite: Suite, spec: RunSpec, result: RunResult
                ) -> tuple[Ask, dict[str, Any] | None, list[str]]:
    """The batch request for a run's native rubric items, its stored answer if any, and the ids."""
    case = spec.case
    # What the judge sees is what the store keeps: the redacted output (a secret never leaves).
    output = redact(result.output)
    rubric = [{"id": r.id, "text": r.text} for r in case.rubric if not voted(r)]
    key = verdict_key(judge.identity, case.prompt, output, rubric, case.expected_output,
                      judge.prompt_version, result.key)
    ids = [r["id"] for r in rubric]
    request = redact_json({"prompt": case.prompt, "output": output, "expected_output": case.expected_output,
                           "rubric": rubric, "model": suite.judge.model if suite.judge else None})
    cached = stored_answer(store, key, set(ids))
    return Ask(key, request), cached, ids

