"""``claude plugin eval``'s llm and baseline graders, judged its way: ``item.votes`` (3) separate
one-word PASS/FAIL judge calls on the text of the grader's focus, passing on a strict majority
(2 of 3). A baseline grader's calls also carry the case's reference transcript, and ask whether
the run meets the criterion at least as well as the reference.

Each vote is one judge request (protocol v1 with a ``vote`` object: the focus label and, for
baseline, the reference) and is cached on its own, in store kind ``judge``, under a key of the
judge identity, the item, the focus text, the reference, the task prompt, the vote's number and
the judge prompt version. So an unchanged re-run makes no judge call, an edited criterion
re-judges that grader only, and a judge error after two votes keeps those two for the next run.
A focus the run has no data for (see focus.py) fails the grader without a call, saying why.
"""

from __future__ import annotations

from typing import Any

from skill_eval.fs.hashing import key_of, sha256_bytes
from skill_eval.grade.checks.context import CheckContext
from skill_eval.grade.focus import focus_text, window
from skill_eval.grade.judge import JudgeOutcome, JudgePort
from skill_eval.model.cases import RubricItem
from skill_eval.model.config import Suite
from skill_eval.model.results import RunResult
from skill_eval.plan.types import RunSpec
from skill_eval.store.redact import redact, redact_json
from skill_eval.store.store import Store


def _sha(text: str | None) -> str | None:
    return None if text is None else sha256_bytes(text.encode("utf-8"))


def vote_key(ident: dict[str, Any], item: RubricItem, label: str, text: str, reference: str | None,
             prompt: str, vote: int, prompt_version: str) -> str:
    return key_of({"judge": ident, "item": {"id": item.id, "text": item.text}, "focus": label,
                   "text_sha256": _sha(text), "reference_sha256": _sha(reference),
                   "prompt_sha256": _sha(prompt), "vote": vote, "votes": item.votes,
                   "prompt_version": prompt_version})


def tally(votes: list[bool], size: int) -> bool:
    """A strict majority of ``size`` votes passed (2 of 3)."""
    return sum(votes) * 2 > size


def judge_votes(judge: JudgePort, store: Store, suite: Suite, spec: RunSpec, result: RunResult,
                item: RubricItem, ctx: CheckContext) -> JudgeOutcome:
    """The verdict of one voted rubric item: ``{id: {passed, evidence, votes: [{passed, evidence}]}}``,
    ``evidence`` being what the judge saw (as the first-party report shows it); ``ctx`` is the
    run's context, shared by every item of the run."""
    focus = focus_text(item.focus, ctx)
    if focus.text is None:
        return JudgeOutcome({item.id: {"passed": False, "evidence": f"not judged: {focus.why}", "votes": []}},
                            {}, True)
    reference = window(redact(item.reference)) if item.reference is not None else None
    ballots: list[dict[str, Any]] = []
    usage: dict[str, float] = {}
    cached_all = True
    for n in range(item.votes):
        key = vote_key(judge.identity, item, focus.label, focus.text, reference, spec.case.prompt, n,
                       judge.prompt_version)
        hit = store.get_json("judge", key)
        if isinstance(hit, dict) and isinstance(hit.get("verdicts"), dict) and item.id in hit["verdicts"]:
            ballots.append(hit["verdicts"][item.id])
            continue
        cached_all = False
        vote: dict[str, Any] = {"focus": focus.label}
        if reference is not None:
            vote["reference"] = reference
        request = redact_json({"prompt": spec.case.prompt, "output": focus.text, "expected_output": "",
                               "rubric": [{"id": item.id, "text": item.text}],
                               "model": suite.judge.model if suite.judge else None, "vote": vote})
        verdicts, spent = judge.call(request)
        store.put_json("judge", key, {"verdicts": verdicts, "usage": spent, "judge": judge.name})
        ballots.append(verdicts[item.id])
        for name, value in spent.items():
            usage[name] = usage.get(name, 0) + value
    votes = [{"passed": b.get("passed") is True, "evidence": str(b.get("evidence", ""))} for b in ballots]
    passed = tally([v["passed"] for v in votes], item.votes)
    seen = "" if item.reference is not None else focus.text  # a baseline's evidence is its votes
    return JudgeOutcome({item.id: {"passed": passed, "evidence": seen, "votes": votes}}, usage, cached_all)
