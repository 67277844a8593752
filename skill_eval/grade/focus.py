"""What a ``claude plugin eval`` judge sees of a run: the text of an llm grader's ``focus``.

``last_message`` is the final answer; ``file:<path>`` one kept workspace file; ``trace`` the
session as JSON lines, cut to its first and last 12 lines (``window``), as the first-party judge
sees it (FORMAT.md §4.2; the real CLI cuts a baseline's reference transcript the same way);
``files`` the paths the agent created, one a line; ``mock_calls`` the calls to mocked MCP tools.
Each is read as plugin eval's regex graders read the same target (grade/checks: the kept
session, the created-file list, the mock servers' record). A focus the run has no data for is
not judged: the grader fails, saying why.

Everything returned is redacted: a secret never reaches the judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from skill_eval.grade.checks.plugin_text import last_assistant_text
from skill_eval.grade.checks.shared.context import CheckContext
from skill_eval.grade.checks.shared.kept import resolve_output_file
from skill_eval.grade.checks.shared.plugin_mocks import mock_calls_text
from skill_eval.store.redact import redact

WINDOW = 12  # lines kept at each end of a long trace or reference transcript
NO_FILES = "(no file changes)"  # what the first-party judge is shown when nothing was created


@dataclass(frozen=True)
class Focus:
    """The judged text and its label (``last_message``, ``trace``, ``file <path>``...). ``text``
    is None when the run has no such data; ``why`` then says so (the grader's evidence)."""

    label: str
    text: str | None
    why: str = ""


def window(text: str, keep: int = WINDOW) -> str:
    """JSON lines as the judge sees them: blank lines dropped; more than 2*keep lines become the
    first and last ``keep`` with a line saying how many were left out between them."""
    # Split on newlines only: a JSON line may hold a raw U+2028 that splitlines() would cut at.
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) <= 2 * keep:
        return "\n".join(lines)
    return "\n".join([*lines[:keep], f"[…{len(lines) - 2 * keep} messages elided…]", *lines[-keep:]])


def session_trace(ctx: CheckContext) -> str | None:
    """The kept session as JSON lines, or None when the adapter kept none."""
    return ctx.session_text


def _file(ctx: CheckContext, rel: str) -> Focus:
    label = f"file {rel}"
    path, why = resolve_output_file(ctx, rel)  # never a file outside the run's workspace
    if path is None and why.startswith("refused"):
        return Focus(label, None, why)
    if path is None or not path.is_file():
        return Focus(label, None, f"focus file {rel!r} does not exist after the run")
    try:
        return Focus(label, redact(path.read_text(encoding="utf-8")))
    except UnicodeDecodeError:
        return Focus(label, None, f"focus file {rel!r} is not UTF-8 text; the judge takes text only")
    except OSError as exc:
        return Focus(label, None, f"focus file {rel!r} cannot be read ({exc.strerror or exc})")


def focus_text(focus: str, ctx: CheckContext) -> Focus:
    """The text a judge sees for ``focus`` (a RubricItem focus) of the run in ``ctx``."""
    if focus.startswith("file:"):
        return _file(ctx, focus[len("file:"):])
    if focus == "trace":
        trace = session_trace(ctx)
        return Focus("trace", None if trace is None else window(redact(trace)),
                     "this run's record keeps no session trace")
    if focus == "files":
        made = ctx.created_files()
        return Focus("files", redact("\n".join(made) or NO_FILES),
                     "this run's record does not list the files the agent created")
    if focus == "mock_calls":
        calls = mock_calls_text(ctx)
        return Focus("mock_calls", None if calls is None else redact(calls),
                     "no mock stand-ins were active in this run: a mock_calls focus has nothing to judge")
    # Plugin eval's last_message is the last assistant text of the session, as its regex graders
    # see it (the output where no session was kept).
    return Focus("last_message", redact(last_assistant_text(ctx)))
