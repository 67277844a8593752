"""Claude Code's stream-json read (run/adapters/claude_stream.py): tool calls with their whole
input, subagents' calls marked, and the session as plugin eval's target: trace sees it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    read = parse_claude_stream(_write(tmp_path))
    got, result = read.got, read.result
    calls = [e for e in got.events if e["type"] == "tool_call"]
    assert [(c["name"], c["input_json"], c.get("subagent", False)) for c in calls] == [
        ("Agent", '{"prompt":"go","n":1}', False), ("Read", '{"file_path":"say \\"é\\""}', True)]
    assert got.events[-1] == {"type": "session", "name": "complete"} and result["result"] == "done"


def test_the_session_is_each_json_line_as_json_stringify_writes_it(tmp_path):
    lines = session_lines(_write(tmp_path, "not json\n\n"))  # plugin eval skips such lines too
    assert len(lines) == 4 and lines[0] == '{"type":"system","subtype":"init","model":"claude-x"}'
    assert '"input":{"prompt":"go","n":1}' in lines[1]
    write_session(parse_claude_stream(_write(tmp_path)).session_lines(), tmp_path / "tmp" / "session.jsonl")
    assert (tmp_path / "tmp" / "session.jsonl").read_text() == "\n".join(lines)


def test_whole_inputs_past_the_budget_stay_in_the_session_only():
    from skill_eval.run.adapters.shared.agentcli import INPUT_JSON_BUDGET, Collected

    got = Collected()
    big = "x" * (INPUT_JSON_BUDGET // 2 + 10)
    got.events = [{"type": "tool_call", "name": "Write", "input_json": big} for _ in range(3)]
    events = got.response()["events"]
    assert [("input_json" in e) for e in events[:3]] == [True, False, False]
    assert events[-1]["type"] == "warning" and "2 tool call(s)" in events[-1]["name"]


def _stream_of(lines: list[str], tmp_path: Path) -> Path:
    path = tmp_path / "stream.jsonl"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return path


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.tuples(_JSON, st.sampled_from([",", ", ", ",\r", "\r,"]),
                                 st.sampled_from(["", "\r", " \r "])), max_size=5))
def test_the_one_read_keeps_the_session_as_reading_it_alone_does(tmp_path, values):
    """Values that are not objects stay in the session (they carry no step); a CR inside a line
    splits it as the text read does."""
    lines = [pad + json.dumps(v, separators=(sep, ":")) + pad for v, sep, pad in values]
    path = _stream_of(lines, tmp_path)
    assert parse_claude_stream(path).session_lines() == session_lines(path)
    assert parse_claude_stream(path, session=False).session_lines() == []


def test_refused_skills_are_those_every_call_of_which_errored(tmp_path):
    def call(i: str, skill: str) -> str:
        return json.dumps({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": i, "name": "Skill", "input": {"skill": skill}}]}})

    def answer(i: str, error: bool) -> str:
        return json.dumps({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": i, "is_error": error}]}})

    path = _stream_of([call("a", "off"), answer("a", True), call("b", "pdf"), answer("b", True),
                       call("c", "pdf"), answer("c", False), call("d", "ghost"), "[1]"], tmp_path)
    read = parse_claude_stream(path)
    assert read.refused == {"off"}  # "ghost" was never answered: not a refusal
    assert {"type": "skill_loaded", "name": "pdf"} in read.got.events and read.session_lines()[-1] == "[1]"


def test_a_line_the_session_cannot_encode_fails_only_the_session(tmp_path):
    path = _stream_of([json.dumps(STREAM[-1]), '{"n": 1' + "0" * 400 + "}"], tmp_path)
    read = parse_claude_stream(path)
    assert read.result == STREAM[-1]
    with pytest.raises(OverflowError):
        read.session_lines()
    assert parse_claude_stream(path, session=False).session_lines() == []
