"""The check registry: one small function per check type, looked up by ``Check.type``."""

from __future__ import annotations

from skill_eval.errors import InvalidInput, Problem
from skill_eval.grade.checks import (
    efficiency,
    files,
    plugin_text,
    plugin_tools,
    reference,
    skills,
    structured,
    text,
    trace,
)
from skill_eval.grade.checks.script import script
from skill_eval.grade.checks.secrets import no_secrets
from skill_eval.grade.checks.shared.context import (
    EVIDENCE_CHARS,
    CheckContext,
    CheckFn,
    CheckParamError,
    CheckResult,
    clip,
)
from skill_eval.intake.timedmatch import PatternTimedOut, pattern_budget
from skill_eval.model.cases import Check

__all__ = ["CHECKS", "CheckContext", "CheckFn", "CheckResult", "check_problem", "run_check"]

CHECKS: dict[str, CheckFn] = {
    "contains": text.contains,
    "not_contains": text.not_contains,
    "contains_all": text.contains_all,
    "contains_any": text.contains_any,
    "regex": text.regex,
    "not_regex": text.not_regex,
    "file_exists": files.file_exists,
    "loaded_skill": skills.loaded_skill,
    "json_path_equals": structured.json_path_equals,
    "json_schema": structured.json_schema,
    "max_tokens": efficiency.max_tokens,
    "max_seconds": efficiency.max_seconds,
    "script": script,
    "golden_output": reference.golden_output,
    "similarity": reference.similarity,
    "command_ran": trace.command_ran,
    "command_not_ran": trace.command_not_ran,
    "command_order": trace.command_order,
    "command_count_le": trace.command_count_le,
    "no_repeated_command_loop": trace.no_repeated_command_loop,
    "tool_call": trace.tool_call,
    "tool_count_le": trace.tool_count_le,
    "no_secrets": no_secrets,
    # claude plugin eval's graders, with its semantics (docs/dialects.md)
    "plugin_regex": plugin_text.plugin_regex,
    "plugin_tool_used": plugin_tools.plugin_tool_used,
    "plugin_tool_order": plugin_tools.plugin_tool_order,
    "plugin_file_exists": plugin_tools.plugin_file_exists,
}


def run_check(check: Check, ctx: CheckContext, source: str = "", line: int | None = None) -> CheckResult:
    """Grade one run with one check. A check that cannot be applied as written (unknown type,
    bad regex, invalid schema) raises InvalidInput naming ``source``: that is the eval set's
    fault, not the run's."""
    fn = CHECKS.get(check.type)
    if fn is None:
        raise InvalidInput([Problem(source or "<eval set>", f"check {check.id!r}: unknown type "
                                    f"{check.type!r}; known: {', '.join(sorted(CHECKS))}", line)])
    reads = ctx.session_reads[0]
    try:
        with pattern_budget():
            passed, evidence = fn(check.params, check.case_sensitive, ctx)
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


# The JavaScript patterns of each plugin-eval check type (a bad one is a load error).
_JS_PATTERNS = {"plugin_regex": ("pattern",), "plugin_tool_used": ("input_match",),
                "plugin_tool_order": ("before", "after")}


def check_problem(check: Check) -> str | None:
    """Why ``check`` cannot be applied, found without a run (for validate); None when fine."""
    if check.type not in CHECKS:
        return f"unknown check type {check.type!r}"
    if check.type == "regex" or check.type == "not_regex":
        try:
            text.compiled(str(check.params.get("pattern", "")), check.case_sensitive)
        except CheckParamError as e:
            return str(e)
    if check.type in _JS_PATTERNS:
        try:
            for key in _JS_PATTERNS[check.type]:
                side = check.params.get(key)
                pattern = side.get("input_match") if isinstance(side, dict) else side
                if pattern in (None, "") or (key in ("before", "after") and isinstance(side, str)):
                    continue
                flags = check.params.get("flags", "") if key == "pattern" else ""
                plugin_text.compile_js(pattern, flags, key)
        except CheckParamError as e:
            return str(e)
    if check.type == "json_schema" and isinstance(check.params.get("schema"), dict):
        try:
            structured.json_schema(check.params, False, CheckContext(output="null"))
        except CheckParamError as e:
            return str(e)
    return None
