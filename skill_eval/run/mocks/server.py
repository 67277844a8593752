"""One mocked MCP server for one run (``claude plugin eval``'s mocks, FORMAT.md §5), served over
stdio with the official MCP SDK (the optional extra ``skill-eval[mcp]``):

    python -m skill_eval.run.mocks.server SOCKET N

The spec comes from the runner's mock host (run/mocks/host.py) at SOCKET, as server N: the JSON
model/mocks.py's ``Mocks.spec`` makes (the server's mocked tools: entry, body, ``error``,
``expect``, fixtures; an agent mock's ``abort_when`` and recordings), with the path of the run's
judge relay where a tool is an agent mock (run/mocks/play.py answers those). The agent CLI
starts this process itself (claude-code: ``--mcp-config``); no spec and no log is a file the
agent could read or write.

Every call is sent to the host, on the connection that fetched the spec, as one JSON line: the
record plugin eval's ``mock_calls`` target shows (read off the real CLI, docs/dialects.md):
``{"tool", "input", "output", "verdict": "ok"}``, an error answer with ``"isError": true`` before
``"verdict": "tool_error"``; ``tool`` is the name the agent called, ``mcp__<registered>__<tool>``.
A call that breaks the tool's ``expect`` is not answered: a line
``{"aborted": {"server", "tool", "reason"}}`` is sent and
the agent (this process's parent) is stopped, as plugin eval ends such a run at once; the runner
records it as an aborted run (score 0). An agent mock's model answer adds a line
``{"recording": {server, file, text, adopt_dir}}`` (run/mocks/play.py).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
from typing import Any

from skill_eval.model.mockrules import check_expect, render
from skill_eval.model.mocks import EXTRA
from skill_eval.run.mocks.host import fetch_spec
from skill_eval.run.mocks.play import Play, relay_ask

_ABORT_WAIT = 30.0  # seconds; the stopped agent ends this process long before


def available() -> bool:
    """Whether the MCP SDK this server needs is installed."""
    try:
        import mcp.server.lowlevel  # noqa: F401
        import mcp.server.stdio  # noqa: F401
    except ImportError:
        return False
    return True


def answer(spec: dict[str, Any], tool: str, arguments: Any) -> dict[str, Any]:
    """One call -> its log record (plugin eval's mock_calls line) or ``{aborted: {...}}``."""
    full = f"mcp__{spec['registered']}__{tool}"
    entry = next((t for t in spec["tools"] if t["name"] == tool), None)
    if entry is None:  # never listed: plugin eval offers no unmocked tool
        return _record(full, arguments, f"no mock for tool {tool}", True)
    reason = check_expect(tuple((str(p), r) for p, r in entry.get("expect") or ()), arguments)
    if reason is not None:
        return {"aborted": {"server": spec["server"], "tool": tool, "reason": reason}}
    text, failed = render(entry["body"], arguments, entry.get("fixtures") or {})
    return _record(full, arguments, text, bool(entry.get("error")) or failed)


def answers(spec: dict[str, Any], tool: str, arguments: Any, play: Play | None) -> list[dict[str, Any]]:
    """One call -> its log lines: the call (or its abort), and for an agent mock's model answer
    its recording."""
    entry = next((t for t in spec["tools"] if t["name"] == tool), None)
    if entry is not None and entry.get("kind") == "agent" and play is not None:
        return play.answer(entry, f"mcp__{spec['registered']}__{tool}", arguments)
    return [answer(spec, tool, arguments)]


def _record(tool: str, arguments: Any, output: str, error: bool) -> dict[str, Any]:
    if error:
        return {"tool": tool, "input": arguments, "output": output, "isError": True, "verdict": "tool_error"}
    return {"tool": tool, "input": arguments, "output": output, "verdict": "ok"}


class Log:
    """The server's records, sent to the host on the connection that fetched its spec."""

    def __init__(self, conn: socket.socket) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    def append(self, record: dict[str, Any]) -> None:
        with self._lock:  # one whole line at a time
            self._conn.sendall(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")


def serve(spec: dict[str, Any], log: Log) -> None:
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name=t["name"], description=t.get("description") or "", input_schema=t["inputSchema"])
            for t in spec["tools"]])

    play = Play(spec, relay_ask(spec["relay"], float(spec.get("relay_timeout") or 600))) \
        if spec.get("relay") else None

    async def call_tool(ctx: Any, params: Any) -> Any:
        arguments = params.arguments if params.arguments is not None else {}
        # An agent mock asks the judge (a blocking call): off the event loop.
        lines = await anyio.to_thread.run_sync(answers, spec, params.name, arguments, play)
        for line in lines:
            log.append(line)
        record = next(r for r in lines if "recording" not in r)
        if "aborted" in record:
            os.kill(os.getppid(), signal.SIGTERM)  # the agent: the run ends here, as in plugin eval
            # Never answered: an answer could reach the model before the agent is gone.
            await anyio.sleep(_ABORT_WAIT)
            return types.CallToolResult(content=[types.TextContent(type="text", text="run aborted")],
                                        is_error=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=record["output"])],
                                    is_error=bool(record.get("isError")))

    server = Server(spec["registered"], on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or not args[1].isdigit():
        sys.stderr.write("usage: python -m skill_eval.run.mocks.server SOCKET N\n")
        return 2
    if not available():
        sys.stderr.write(f"the MCP SDK is not installed: pip install 'skill-eval[{EXTRA}]'\n")
        return 2
    try:
        conn, spec = fetch_spec(args[0], int(args[1]))
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"mocked MCP server {args[1]}: {exc}\n")
        return 2
    serve(spec, Log(conn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
