"""Claude Code's stream-json read (run/adapters/claude_stream.py): tool calls with their whole
input, subagents' calls marked, and the session as plugin eval's target: trace sees it."""

from __future__ import annotations

import json
from pathlib import Path

from skill_eval.run.adapters.claude_stream import parse_claude_stream, session_lines, write_session

STREAM = [
    {"type": "system", "subtype": "init", "model": "claude-x"},
    {"type": "assistant", "parent_tool_use_id": None, "message": {"content": [
        {"type": "tool_use", "id": "t1", "name": "Agent", "input": {"prompt": "go", "n": 1.0}}]}},
    {"type": "assistant", "parent_tool_use_id": "t1", "message": {"content": [
        {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "say \"é\""}}]}},
    {"type": "result", "result": "done"},
]


def _write(tmp_path: Path, noise: str = "") -> Path:
    path = tmp_path / "stream.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in STREAM) + "\n" + noise)
    return path


def test_every_call_with_its_whole_input_and_the_subagents_marked(tmp_path):
    got, result = parse_claude_stream(_write(tmp_path))
    calls = [e for e in got.events if e["type"] == "tool_call"]
    assert [(c["name"], c["input_json"], c.get("subagent", False)) for c in calls] == [
        ("Agent", '{"prompt":"go","n":1}', False), ("Read", '{"file_path":"say \\"é\\""}', True)]
    assert got.events[-1] == {"type": "session", "name": "complete"} and result["result"] == "done"


def test_the_session_is_each_json_line_as_json_stringify_writes_it(tmp_path):
    lines = session_lines(_write(tmp_path, "not json\n\n"))  # plugin eval skips such lines too
    assert len(lines) == 4 and lines[0] == '{"type":"system","subtype":"init","model":"claude-x"}'
    assert '"input":{"prompt":"go","n":1}' in lines[1]
    write_session(_write(tmp_path), tmp_path / "tmp" / "session.jsonl")
    assert (tmp_path / "tmp" / "session.jsonl").read_text() == "\n".join(lines)


def test_whole_inputs_past_the_budget_stay_in_the_session_only():
    from skill_eval.run.adapters.shared.agentcli import INPUT_JSON_BUDGET, Collected

    got = Collected()
    big = "x" * (INPUT_JSON_BUDGET // 2 + 10)
    got.events = [{"type": "tool_call", "name": "Write", "input_json": big} for _ in range(3)]
    events = got.response()["events"]
    assert [("input_json" in e) for e in events[:3]] == [True, False, False]
    assert events[-1]["type"] == "warning" and "2 tool call(s)" in events[-1]["name"]
