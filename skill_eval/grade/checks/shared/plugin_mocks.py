"""The ``mock_calls`` target of ``claude plugin eval``'s ``regex`` graders: every call the agent
made to a mocked MCP tool, one per line, as plugin eval writes it (read from the CLI's code):
``JSON.stringify({tool, input, output, isError, verdict})``, in the order of the session, with
``output`` (the tool result's text) and ``isError: true`` only when there are, and ``verdict``
``ok``, ``tool_error`` or ``no_result``. Which tools are mocked comes from the mock servers'
own record of the run; the calls, their inputs and answers from the kept session (from that
record when no session was kept).
"""

from __future__ import annotations

from typing import Any

from skill_eval.grade.checks.shared.context import CheckContext
from skill_eval.intake.javascript.json_text import js_stringify

UNAVAILABLE = ("no mock stand-ins were active in this run (no mocks/ folder applies to this case): "
               "a mock_calls grader has nothing to check")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text") or "") for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _line(tool: str, given: Any, output: str | None, error: bool | None) -> str:
    record: dict[str, Any] = {"tool": tool}
    if given is not None:
        record["input"] = given
    if output is not None:
        record["output"] = output
    if error:
        record["isError"] = True
    record["verdict"] = "no_result" if error is None else "tool_error" if error else "ok"
    return js_stringify(record)


def mock_calls_text(ctx: CheckContext) -> str | None:
    """The target's text; None when no mocks were served in the run."""
    if ctx.mock_calls is None:
        return None
    mocked = {str(c.get("tool")) for c in ctx.mock_calls}
    messages = ctx.session_messages
    if messages is None:
        return "\n".join(_line(str(c.get("tool")), c.get("input"), str(c.get("output") or ""),
                               bool(c.get("isError") or c.get("error"))) for c in ctx.mock_calls)
    calls: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for message in messages:
        body = message.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if message.get("type") == "assistant" and block.get("type") == "tool_use" and \
                    block.get("name") in mocked:
                call = {"tool": block["name"], "input": block.get("input"), "output": None, "error": None}
                calls.append(call)
                if isinstance(block.get("id"), str):
                    by_id[block["id"]] = call
            elif message.get("type") == "user" and block.get("type") == "tool_result":
                call = by_id.get(str(block.get("tool_use_id")))
                if call is not None:
                    call["output"], call["error"] = _text(block.get("content")), block.get("is_error") is True
    return "\n".join(_line(c["tool"], c["input"], c["output"], c["error"]) for c in calls)
