"""The mock_calls target (grade/checks/plugin_mocks.py): each mocked call as plugin eval writes it."""

from __future__ import annotations

import json
from pathlib import Path

from skill_eval.grade.checks import CheckContext
from skill_eval.grade.checks.shared.plugin_mocks import mock_calls_text

RECORDS = ({"tool": "mcp__clock__now", "input": {"tz": "UTC"}, "output": "12:00 UTC", "error": False},)


def _session(tmp_path: Path) -> Path:
    lines = [
        {"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "a", "name": "mcp__clock__now", "input": {"tz": "UTC"}},
            {"type": "tool_use", "id": "b", "name": "Read", "input": {"file_path": "x"}}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "a",
             "content": [{"type": "text", "text": "12:00 UTC"}]}]}},
        {"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "c", "name": "mcp__clock__now", "input": {"tz": "CET"}}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "c", "content": "gone", "is_error": True}]}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    return path


def test_each_mocked_call_from_the_session_with_its_answer_and_verdict(tmp_path):
    ctx = CheckContext(output="", session_path=_session(tmp_path), mock_calls=RECORDS)
    assert mock_calls_text(ctx) == (
        '{"tool":"mcp__clock__now","input":{"tz":"UTC"},"output":"12:00 UTC","verdict":"ok"}\n'
        '{"tool":"mcp__clock__now","input":{"tz":"CET"},"output":"gone","isError":true,"verdict":"tool_error"}')


def test_no_mocks_is_none_and_no_session_reads_the_servers_record():
    assert mock_calls_text(CheckContext(output="")) is None
    assert mock_calls_text(CheckContext(output="", mock_calls=RECORDS)) == (
        '{"tool":"mcp__clock__now","input":{"tz":"UTC"},"output":"12:00 UTC","verdict":"ok"}')
