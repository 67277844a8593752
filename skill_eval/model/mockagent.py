"""How a ``type: agent`` mock answers one call (``claude plugin eval``'s mocked MCP servers,
FORMAT.md §5): a model, the suite's judge, plays the server. Pure functions only: the prompt it is
asked with, how its reply reads, and the identity of a call for replays (``mocks/.replay/``).

The shapes are plugin eval's, as its 2.1.332 code builds them (docs/dialects.md): one request per
call with no tools; the system text says the model stands in for the MCP server ``<server>``,
gives the ``ERROR: `` and ``ABORT: `` conventions (``ABORT: `` only where the mock has
``abort_when``, whose text follows), then the mock's body with its substitutions filled in. The
user turn lists the server's earlier calls of the run (newest 40, in at most 240,000 characters),
then ``Current call: <tool>``, ``Arguments:`` and the input as 2-space JSON. The prose is ours.

A call is identical to a recorded one when the server, the tool, the input (keys sorted), the
mock file's text (a sha256), the filled-in body and the server's earlier calls of the run (tool,
input, verdict and answer each) are: plugin eval's recording name is ``<tool>-<sha256 of
those>.json``, and skill-eval computes the same digest, so a recording made by either is replayed
by both.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

ABORT = "ABORT:"
ERROR = "ERROR:"
MAX_ANSWER = 49152  # characters of an answer kept (plugin eval cuts longer ones)
MAX_ARGUMENTS = 16384  # characters of the arguments shown
MAX_HISTORY = 40  # earlier calls shown
MAX_HISTORY_CHARS = 240000
MAX_KEPT = 16384  # characters of an input or answer kept in the history
RECORDING = re.compile(r"^[A-Za-z0-9_-]+-[0-9a-f]{64}\.json$")
MAX_RECORDING_BYTES = 262144


def has_abort_when(abort_when: str | None) -> bool:
    return abort_when is not None and abort_when.strip() != ""


def system_text(server: str, abort_when: str | None, body: str) -> str:
    """The instructions of one agent-mock call (our words; plugin eval's conventions)."""
    parts = [
        f'You are playing the MCP server "{server}" in an automated evaluation of a coding agent\'s '
        "plugin. Each user turn is one tool call the agent just made; the server's earlier calls "
        "in this run and your answers come first, as history. Answer with the tool's result "
        "content only, as the real server would return it (JSON where the server returns JSON), "
        "with no comments and no markdown fences unless the real result has them. Keep to what "
        "you answered earlier in this run.",
        f'To answer with an ordinary tool error the agent should handle (bad arguments, not found, '
        f'rate limited), reply with one line starting "{ERROR} " and then the error text.',
    ]
    if has_abort_when(abort_when):
        parts.append(
            "The author of the evaluation listed conditions under which this run must be STOPPED "
            "because the agent went off course. If, and only if, the current call meets one of "
            f'them, reply with one line starting "{ABORT} " and a short reason naming the '
            f"condition. The conditions:\n{(abort_when or '').strip()}")
    else:
        parts.append(f'Never reply with a line starting "{ABORT}".')
    parts.append("The author's description of the server you are playing follows.")
    return "\n\n".join([*parts, body])


def _cut(text: str, size: int) -> str:
    return f"{text[:size]}\u2026 [{len(text) - size} more characters omitted]" if len(text) > size else text


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def user_text(tool: str, arguments: Any, history: list[dict[str, Any]]) -> str:
    """The user turn: the server's earlier calls, then this one."""
    shown: list[str] = []
    size = 0
    for call in reversed(history[-MAX_HISTORY:]):
        given = call["input"] if isinstance(call["input"], str) else _compact(call["input"])
        mark = "" if call["verdict"] == "ok" else f"[{call['verdict']}] "
        line = f"- {call['tool']}({given}) \u2192 {mark}{call['output']}"
        if size + len(line) > MAX_HISTORY_CHARS:
            break
        shown.insert(0, line)
        size += len(line)
    parts = []
    if shown:
        older = len(history) - len(shown)
        parts.append(f"Earlier calls this run{f' ({older} older omitted)' if older else ''}:\n"
                     + "\n".join(shown))
    args = json.dumps(arguments, indent=2, ensure_ascii=False)
    parts.append(f"Current call: {tool}\nArguments:\n{_cut(args, MAX_ARGUMENTS)}")
    return "\n\n".join(parts)


def read_reply(reply: str, abort_when: str | None) -> tuple[str, str]:
    """(verdict ok | tool_error | abort, text) of the model's reply. ``ABORT: `` aborts only
    where the mock has ``abort_when``; elsewhere it is a tool error."""
    text = reply.strip()
    if text.startswith(ABORT):
        reason = text[len(ABORT):].strip() or "abort_when condition met"
        return ("abort" if has_abort_when(abort_when) else "tool_error"), reason
    if text.startswith(ERROR):
        return "tool_error", text[len(ERROR):].strip() or "error"
    return "ok", _cut(text, MAX_ANSWER)


def history_entry(tool: str, arguments: Any, verdict: str, output: str) -> dict[str, Any]:
    """What later calls of the run see of this one (long inputs and answers cut)."""
    given = _compact(arguments)
    kept = arguments if len(given) <= MAX_KEPT else given[:MAX_KEPT] + "\u2026"
    return {"tool": tool, "input": kept, "verdict": verdict,
            "output": output if len(output) <= MAX_KEPT else output[:MAX_KEPT] + "\u2026"}


def _canonical(value: Any) -> str:
    """JSON with object keys sorted at every level (JavaScript's ``JSON.stringify`` spacing)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def call_digest(server: str, tool: str, arguments: Any, mock_sha256: str, prompt: str,
                history: list[dict[str, Any]]) -> str:
    """The identity of a call (see the module's doc): the same calls give the same digest."""
    earlier = _sha("\n".join(_compact([h["tool"], _canonical(h["input"]), h["verdict"], h["output"]])
                              for h in history))
    body = _sha(prompt.replace("\r\n", "\n"))
    return _sha(" ".join([server, tool, _canonical(arguments), mock_sha256, body, earlier]))


def mock_digest(text: str) -> str:
    """A mock file's part of a call's identity (its text, line ends as ``\\n``; 16 hex digits)."""
    return _sha(text.replace("\r\n", "\n"))[:16]


def agent_body(body: str) -> str:
    """The description an agent mock gives (its body without leading blank lines or trailing space)."""
    return body.lstrip("\n").rstrip()


def recording_name(tool: str, digest: str) -> str:
    return f"{tool}-{digest}.json"


def recording_text(arguments: Any, output: str, verdict: str, recorded_at: str, model: str | None) -> str:
    """A recording file, as plugin eval writes one (2-space JSON and a newline)."""
    return json.dumps({"input": arguments, "output": output, "verdict": verdict,
                       "recordedAt": recorded_at, "model": model}, indent=2, ensure_ascii=False) + "\n"


def replayed(text: str) -> tuple[str, str] | None:
    """(verdict, answer) of a recording file's text, or None when it is not one."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("output"), str) or \
            data.get("verdict") not in ("ok", "tool_error", "abort") or len(data["output"]) > MAX_ANSWER:
        return None
    return data["verdict"], data["output"]

