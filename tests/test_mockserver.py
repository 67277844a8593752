"""One mocked MCP server's answers (run/mocks/server.py) and how the claude-code adapter registers
it (run/adapters/claude_flags.py); served over stdio in tests/test_mockrun.py."""

from __future__ import annotations

import json

from skill_eval.run.adapters.claude_flags import mcp_args, settings_args
from skill_eval.run.mocks.server import answer

SPEC = {"server": "notes", "registered": "plugin_p_notes", "tools": [
    {"name": "lookup", "body": "NOTE {{input.id}}", "error": False, "expect": [["id", "string"]],
     "fixtures": {}},
    {"name": "gone", "body": "GONE", "error": True, "expect": [], "fixtures": {}}]}


def test_a_call_is_answered_and_recorded_under_the_tools_full_name():
    assert answer(SPEC, "lookup", {"id": "7"}) == {
        "tool": "mcp__plugin_p_notes__lookup", "input": {"id": "7"}, "output": "NOTE 7", "verdict": "ok"}
    # As plugin eval's mock_calls line shows an error answer (keys in this order).
    assert json.dumps(answer(SPEC, "gone", {}), separators=(",", ":")) == (
        '{"tool":"mcp__plugin_p_notes__gone","input":{},"output":"GONE","isError":true,"verdict":"tool_error"}')


def test_a_call_that_breaks_expect_is_an_abort_record_not_an_answer():
    assert answer(SPEC, "lookup", {"id": 7}) == {"aborted": {
        "server": "notes", "tool": "lookup",
        "reason": "the model's call violates expect: id = 7 is not a string"}}


def test_mocked_servers_are_the_sessions_only_mcp_servers_and_their_tools_are_granted():
    server = {"name": "plugin_p_notes", "command": "/py", "args": ["-m", "x"], "env": {"PYTHONPATH": "/r"},
              "tools": ["mcp__plugin_p_notes__lookup"]}
    [config, strict] = mcp_args([server])
    assert strict == "--strict-mcp-config"
    assert json.loads(config.split("=", 1)[1]) == {"mcpServers": {"plugin_p_notes": {
        "type": "stdio", "command": "/py", "args": ["-m", "x"], "env": {"PYTHONPATH": "/r"}}}}
    assert mcp_args([]) == []
    # No grants of its own: only the mocked tools are allowed, and the permission mode is left alone.
    assert settings_args({}, False, server["tools"]) == ["--allowedTools=mcp__plugin_p_notes__lookup"]
    assert settings_args({"allowed_tools": ["Read"]}, False, server["tools"]) == [
        "--permission-mode", "dontAsk", "--allowedTools=Read,mcp__plugin_p_notes__lookup"]
