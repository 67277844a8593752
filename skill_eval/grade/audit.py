"""Grader audits, free and before any adapter call: would a case's checks pass a useless answer?

Each task case's deterministic checks (as they apply to the with-skill arm) grade two answers no
agent should get credit for: the empty output and an echo of the prompt. A case that passes on
either is flagged (its checks cannot tell a useless answer from a good one). A case whose
expected_output is an exact answer (a golden_output or similarity check compares against that
very text) and fails its own checks is flagged ``reference-fails``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skill_eval.errors import InvalidInput, Problem
from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.model.cases import Case
from skill_eval.model.evaldraft import MARK as DRAFT_MARK

PASSES_ON_EMPTY = "passes-on-empty"
PASSES_ON_ECHO = "passes-on-echo"
REFERENCE_FAILS = "reference-fails"
FLAGS = (PASSES_ON_EMPTY, PASSES_ON_ECHO, REFERENCE_FAILS)

WHY = {
    PASSES_ON_EMPTY: "its checks pass on an empty output, so they cannot tell a useless answer from a "
                     "good one; add a check the answer must meet (contains, regex, json_path_equals, ...)",
    PASSES_ON_ECHO: "its checks pass on an echo of the prompt, so repeating the question scores as an "
                    "answer; check for something the prompt does not already say",
    REFERENCE_FAILS: "its expected_output (the exact answer its golden_output/similarity check "
                     "compares with) fails its own checks; fix the answer or the checks",
}


@dataclass(frozen=True)
class CaseAudit:
    case: Case
    flags: tuple[str, ...]


def _passes(case: Case, output: str, skill_names: Sequence[str]) -> bool:
    checks = [c for c in case.checks if c.applies_to("with_skill") and c.required]
    if not checks:
        return False
    ctx = CheckContext(output=output, skill_name=skill_names[0] if skill_names else "",
                       skill_aliases=tuple(skill_names[1:]))
    try:
        return all(run_check(c, ctx, case.source, case.line).passed for c in checks)
    except InvalidInput:
        return False  # a check that cannot be applied is validate's own error, not an audit's


def _exact_answer(case: Case) -> bool:
    expected = case.expected_output.strip()
    return bool(expected) and any(
        c.type in ("golden_output", "similarity") and str(c.params.get("expected", "")).strip() == expected
        and c.params.get("file") in (None, "", "output") for c in case.checks)


def audit_case(case: Case, skill_names: Sequence[str] = ()) -> CaseAudit:
    flags = []
    if case.kind == "task":
        if _passes(case, "", skill_names):
            flags.append(PASSES_ON_EMPTY)
        if _passes(case, case.prompt, skill_names):
            flags.append(PASSES_ON_ECHO)
        if _exact_answer(case) and not _passes(case, case.expected_output, skill_names):
            flags.append(REFERENCE_FAILS)
    return CaseAudit(case, tuple(flags))


def audit_problems(cases: Sequence[Case], skill_names: Sequence[str] = ()) -> list[Problem]:
    """One warning per flag, at the case's place in its eval set. A case `skill-eval init`
    drafted, still holding its placeholder prompt, gets one warning that says so: what to do
    is to write the case, not to mend checks that were never meant to last."""
    out = []
    for a in (audit_case(c, skill_names) for c in cases):
        if a.flags and DRAFT_MARK in a.case.prompt:
            out.append(Problem(a.case.source or "<eval set>", f"case {a.case.id!r} is still the draft "
                               f"`skill-eval init` wrote ({DRAFT_MARK} in its prompt), and its checks "
                               f"pass a useless answer ({', '.join(a.flags)}): write a real request and "
                               "check for what a good answer must say", a.case.line, severity="warning"))
            continue
        for flag in a.flags:
            out.append(Problem(a.case.source or "<eval set>", f"case {a.case.id!r}: {flag}: {WHY[flag]}",
                               a.case.line, severity="warning"))
    return out
