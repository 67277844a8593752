"""The check types: one descriptor each (``CheckType``, declared beside its function in its
module here), registered once below in ``CHECK_TYPES``, which everything that lists check types
reads: grading (``run_check``), ``check_problem``, the eval-set schema the model validates with
(completed from the registry through intake.schemas_io), docs/gen_reference.py."""

from __future__ import annotations

from functools import partial

from skill_eval.errors import InvalidInput, Problem
from skill_eval.grade.checks import (
    efficiency,
    files,
    plugin_text,
    plugin_tools,
    reference,
    script,
    secrets,
    skills,
    structured,
    text,
    trace,
)
from skill_eval.grade.checks.shared.checktype import CheckType, completed_schema
from skill_eval.grade.checks.shared.context import (
    EVIDENCE_CHARS,
    CheckContext,
    CheckFn,
    CheckParamError,
    CheckResult,
    clip,
)
from skill_eval.intake import schemas_io
from skill_eval.intake.timedmatch import PatternTimedOut, pattern_budget
from skill_eval.model.cases import Check
from skill_eval.registry import Registry

__all__ = ["CHECK_TYPES", "CheckContext", "CheckFn", "CheckResult", "CheckType", "check_problem", "run_check"]

CHECK_TYPES: Registry[CheckType] = Registry("check type")
for _type in (
    text.CONTAINS, text.NOT_CONTAINS, text.CONTAINS_ALL, text.CONTAINS_ANY, text.REGEX, text.NOT_REGEX,
    files.FILE_EXISTS, skills.LOADED_SKILL, structured.JSON_PATH_EQUALS, structured.JSON_SCHEMA,
    efficiency.MAX_TOKENS, efficiency.MAX_SECONDS, script.SCRIPT,
    reference.GOLDEN_OUTPUT, reference.SIMILARITY,
    trace.COMMAND_RAN, trace.COMMAND_NOT_RAN, trace.COMMAND_ORDER, trace.COMMAND_COUNT_LE,
    trace.NO_REPEATED_COMMAND_LOOP, trace.TOOL_CALL, trace.TOOL_COUNT_LE,
    secrets.NO_SECRETS,
    # claude plugin eval's graders, with its semantics (docs/dialects.md)
    plugin_text.PLUGIN_REGEX, plugin_tools.PLUGIN_TOOL_USED, plugin_tools.PLUGIN_TOOL_ORDER,
    plugin_tools.PLUGIN_FILE_EXISTS,
):
    CHECK_TYPES.add(_type)

# The eval-set schema the model loads: the file while it names every type registered here, else
# its check part generated from this registry (again whenever it changes), so a type registered
# at run time validates like a builtin. intake is below grade: the pieces are handed down.
schemas_io.complete("evals", lambda: CHECK_TYPES.generation, partial(completed_schema, types=CHECK_TYPES))


def run_check(check: Check, ctx: CheckContext, source: str = "", line: int | None = None) -> CheckResult:
    """Grade one run with one check. A check that cannot be applied as written (unknown type,
    bad regex, invalid schema) raises InvalidInput naming ``source``: that is the eval set's
    fault, not the run's."""
    kind = CHECK_TYPES.get(check.type)
    if kind is None:
        known = ", ".join(sorted(CHECK_TYPES.names()))
        raise InvalidInput([Problem(source or "<eval set>", f"check {check.id!r}: unknown type "
                                    f"{check.type!r}; known: {known}", line)])
    reads = ctx.session_reads[0]
    try:
        with pattern_budget():
            passed, evidence = kind.function(check.params, check.case_sensitive, ctx)
    except PatternTimedOut as e:
        # The eval set's pattern could not finish on this run's text: not shown, so failed.
        passed, evidence = False, clip(e.evidence())
    except CheckParamError as e:
        raise InvalidInput([Problem(source or "<eval set>", f"check {check.id!r} ({check.type}): {e}",
                                    line)]) from e
    note = ctx.session_note() if ctx.session_reads[0] > reads else ""
    if note:  # the check read the session's messages and some lines could not be read
        evidence = clip(evidence, EVIDENCE_CHARS - len(note)) + note
    return CheckResult(check.id, check.type, check.required, passed, evidence)


def check_problem(check: Check) -> str | None:
    """Why ``check`` cannot be applied, found without a run (for validate); None when fine."""
    kind = CHECK_TYPES.get(check.type)
    if kind is None:
        return f"unknown check type {check.type!r}"
    return kind.problem(check) if kind.problem is not None else None
