"""``claude plugin eval``'s llm and baseline graders, judged its way: ``item.votes`` (3) separate
one-word PASS/FAIL judge calls on the text of the grader's focus, passing on a strict majority
(2 of 3). A baseline grader's calls also carry the case's reference transcript, and ask whether
the run meets the criterion at least as well as the reference.

Each vote is one judge request (protocol v1 with a ``vote`` object: the focus label and, for
baseline, the reference) and is cached on its own, in store kind ``judge``, under a key of the
run, the judge identity, the item, the focus text, the reference, the task prompt, the vote's
number and the judge prompt version. Each run's votes are its own draws, as in plugin eval: two
runs with identical output are judged apart. An unchanged re-run makes no judge call, an edited
criterion re-judges that grader only, and a judge error after two votes keeps those two for the
next run. A focus the run has no data for (see focus.py) fails the grader without a call, saying
why. The votes still to ask are handed back as ``Ask``s: judging.py asks them concurrently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skill_eval.fs.hashing import key_of, sha256_bytes
from skill_eval.grade.checks.shared.context import CheckContext
from skill_eval.grade.focus import focus_text, window
from skill_eval.grade.judge import Ask, JudgeOutcome, JudgePort, add_usage, stored_answer
from skill_eval.model.cases import RubricItem
from skill_eval.model.config import Suite
from skill_eval.model.results import RunResult
from skill_eval.plan.types import RunSpec
from skill_eval.store.redact import redact, redact_json
from skill_eval.store.store import Store


def _sha(text: str | None) -> str | None:
    return None if text is None else sha256_bytes(text.encode("utf-8"))


def vote_key(ident: dict[str, Any], item: RubricItem, label: str, text: str, reference: str | None,
             prompt: str, vote: int, prompt_version: str, run_key: str) -> str:
    return key_of({"judge": ident, "item": {"id": item.id, "text": item.text}, "focus": label,
                   "text_sha256": _sha(text), "reference_sha256": _sha(reference),
                   "prompt_sha256": _sha(prompt), "vote": vote, "votes": item.votes,
                   "prompt_version": prompt_version, "run": run_key})


def tally(votes: list[bool], size: int) -> bool:
    """A strict majority of ``size`` votes passed (2 of 3)."""
    return sum(votes) * 2 > size


@dataclass(frozen=True)
class Ballot:
    """One voted item of one run: its votes' stored answers (None: still to ask) and requests."""

    item: RubricItem
    seen: str  # the evidence shown for the item: the judged text (a baseline's: empty)
    asks: tuple[Ask, ...]
    stored: tuple[dict[str, Any] | None, ...]


def plan_votes(judge: JudgePort, store: Store, suite: Suite, spec: RunSpec, result: RunResult,
               item: RubricItem, ctx: CheckContext) -> Ballot | JudgeOutcome:
    """The votes of one voted rubric item, those already stored and those to ask; or, when the
    run has no data for its focus, the failed verdict at once. ``ctx`` is the run's context,
    shared by every item of the run."""
    focus = focus_text(item.focus, ctx)
    if focus.text is None:
        return JudgeOutcome({item.id: {"passed": False, "evidence": f"not judged: {focus.why}", "votes": []}},
                            {}, True)
    reference = window(redact(item.reference)) if item.reference is not None else None
    vote: dict[str, Any] = {"focus": focus.label}
    if reference is not None:
        vote["reference"] = reference
    request = redact_json({"prompt": spec.case.prompt, "output": focus.text, "expected_output": "",
                           "rubric": [{"id": item.id, "text": item.text}],
                           "model": suite.judge.model if suite.judge else None, "vote": vote})
    keys = [vote_key(judge.identity, item, focus.label, focus.text, reference, spec.case.prompt, n,
                     judge.prompt_version, result.key) for n in range(item.votes)]
    seen = "" if item.reference is not None else focus.text  # a baseline's evidence is its votes
    return Ballot(item, seen, tuple(Ask(k, request) for k in keys),
                  tuple(stored_answer(store, k, {item.id}) for k in keys))


def count_votes(ballot: Ballot, answers: list[dict[str, Any]]) -> JudgeOutcome:
    """The verdict of one voted item from its votes' answers (in vote order):
    ``{id: {passed, evidence, votes: [{passed, evidence}]}}``, ``evidence`` being what the judge
    saw (as the first-party report shows it)."""
    item = ballot.item
    usage: dict[str, float] = {}
    for answer in answers:
        add_usage(usage, answer.get("usage"))
    cast = [answer["verdicts"][item.id] for answer in answers]
    votes = [{"passed": b.get("passed") is True, "evidence": str(b.get("evidence", ""))} for b in cast]
    passed = tally([v["passed"] for v in votes], item.votes)
    return JudgeOutcome({item.id: {"passed": passed, "evidence": ballot.seen, "votes": votes}}, usage,
                        all(s is not None for s in ballot.stored))
