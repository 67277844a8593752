"""The patterns an eval set gives a check, compiled for it: Python's on the time-limited matcher
(intake/timedmatch), JavaScript's (plugin eval's graders) translated faithfully or refused. A
pattern that cannot be used is CheckParamError: the eval set's fault, not the run's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skill_eval.grade.checks.shared.context import CheckParamError
from skill_eval.intake import timedmatch
from skill_eval.intake.javascript.regex import JsRegex, JsRegexError, JsSyntaxError, js_regex

if TYPE_CHECKING:
    import regex as rx


def compiled(pattern: str, case_sensitive: bool) -> rx.Pattern[str]:
    try:
        return timedmatch.compiled(pattern, case_sensitive)
    except timedmatch.BadPattern as e:
        raise CheckParamError(str(e)) from e


def compile_js(pattern: Any, flags: Any = "", key: str = "pattern") -> JsRegex | str:
    """The JavaScript regex, or why JavaScript throws on it (a str: the check fails with it)."""
    if not isinstance(pattern, str):
        raise CheckParamError(f"'{key}' must be a string (a JavaScript regular expression)")
    if not isinstance(flags, str):
        raise CheckParamError("'flags' must be a string such as \"i\" or \"gm\"")
    try:
        return js_regex(pattern, flags)
    except JsSyntaxError as e:
        return f"claude plugin eval's grader throws on /{pattern}/{flags}: {e}"
    except JsRegexError as e:
        raise CheckParamError(f"/{pattern}/{flags} has no faithful translation from JavaScript: {e}") from e
