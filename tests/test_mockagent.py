"""An agent mock's prompt, reply conventions and call identity (model/mockagent.py); the identity
is checked against a recording ``claude plugin eval`` 2.1.332 wrote."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from skill_eval.model.mockagent import (
    agent_body,
    call_digest,
    history_entry,
    mock_digest,
    read_reply,
    recording_name,
    recording_text,
    replayed,
    system_text,
    user_text,
)

# A mock file and the recording name plugin eval gave its first call (tests/data: read off the CLI).
MOCK = "---\ntype: agent\n---\nA notes server: answer NOTE-AGENT and the id.\n"
REAL_NAME = "lookup-79b107ef9d0b012f1615a6ac2c3b25b8d1e2ee8febdb1b61bb7ddd01a1e113a5.json"


def test_the_first_call_has_the_name_plugin_eval_gave_its_recording():
    body = agent_body(MOCK.split("\n---\n", 1)[1])
    digest = call_digest("notes", "lookup", {"id": "7"}, mock_digest(MOCK), body, [])
    assert recording_name("lookup", digest) == REAL_NAME


def test_identity_follows_input_body_mock_file_and_history_but_not_key_order():
    base = ("notes", "lookup", {"a": 1, "b": [1, {"y": 2, "x": 1}]}, "abc", "body", [])
    same = call_digest(*base)
    assert call_digest("notes", "lookup", {"b": [1, {"x": 1, "y": 2}], "a": 1}, "abc", "body", []) == same
    assert call_digest("notes", "lookup", {"a": 2, "b": []}, "abc", "body", []) != same
    assert call_digest("notes", "lookup", base[2], "abd", "body", []) != same
    assert call_digest("notes", "lookup", base[2], "abc", "body2", []) != same
    assert call_digest("notes", "lookup", base[2], "abc", "body\r\n", []) == \
        call_digest("notes", "lookup", base[2], "abc", "body\n", [])
    earlier = [history_entry("list", {}, "ok", "[]")]
    assert call_digest("notes", "lookup", base[2], "abc", "body", earlier) != same


def test_the_prompt_names_the_server_the_conventions_abort_when_and_the_body():
    with_abort = system_text("notes", "the agent deletes a note", "A notes server.")
    assert 'MCP server "notes"' in with_abort and '"ERROR: "' in with_abort
    assert '"ABORT: "' in with_abort and "the agent deletes a note" in with_abort
    assert with_abort.endswith("\n\nA notes server.")
    plain = system_text("notes", None, "A notes server.")
    assert 'Never reply with a line starting "ABORT:"' in plain and "conditions" not in plain


def test_the_user_turn_is_the_servers_history_then_the_current_call():
    assert user_text("lookup", {"id": "7"}, []) == 'Current call: lookup\nArguments:\n{\n  "id": "7"\n}'
    history = [history_entry("list", {"q": 1}, "ok", "[1]"), history_entry("get", {}, "tool_error", "gone")]
    assert user_text("lookup", {}, history) == (
        "Earlier calls this run:\n- list({\"q\":1}) \u2192 [1]\n- get({}) \u2192 [tool_error] gone\n\n"
        "Current call: lookup\nArguments:\n{}")
    many = [history_entry("list", {}, "ok", "x")] * 45
    assert user_text("t", {}, many).startswith("Earlier calls this run (5 older omitted):")


def test_replies_read_by_plugin_evals_conventions():
    assert read_reply("  {\"id\": 7}\n", None) == ("ok", '{"id": 7}')
    assert read_reply("ERROR: not found", None) == ("tool_error", "not found")
    assert read_reply("ERROR:", None) == ("tool_error", "error")
    assert read_reply("ABORT: deleted a note", "deletes") == ("abort", "deleted a note")
    assert read_reply("ABORT:", "deletes") == ("abort", "abort_when condition met")
    # Without abort_when the model may not stop the run: an ABORT reply is a tool error.
    assert read_reply("ABORT: no", "  ") == ("tool_error", "no")
    long = read_reply("x" * 50000, None)[1]
    assert long.startswith("x" * 49152) and long.endswith("[848 more characters omitted]")


def test_a_recording_is_read_back_and_anything_else_is_not():
    text = recording_text({"id": "7"}, "NOTE 7", "ok", "2026-01-01T00:00:00.000Z", None)
    assert json.loads(text) == {"input": {"id": "7"}, "output": "NOTE 7", "verdict": "ok",
                                "recordedAt": "2026-01-01T00:00:00.000Z", "model": None}
    assert text.startswith('{\n  "input": {\n    "id": "7"\n  },') and text.endswith("}\n")
    assert replayed(text) == ("ok", "NOTE 7")
    assert replayed("") is None and replayed("[]") is None
    assert replayed(json.dumps({"output": "x", "verdict": "maybe"})) is None


@given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=4))
def test_any_input_has_one_identity_whatever_its_key_order(arguments):
    reordered = dict(reversed(list(arguments.items())))
    assert call_digest("s", "t", arguments, "m", "b", []) == call_digest("s", "t", reordered, "m", "b", [])


def test_the_history_keeps_long_inputs_and_answers_cut_as_plugin_eval_does():
    entry = history_entry("t", {"q": "x" * 20000}, "ok", "y" * 20000)
    assert isinstance(entry["input"], str) and len(entry["input"]) == 16385
    assert entry["input"].endswith("\u2026")
    assert len(entry["output"]) == 16385 and entry["output"].endswith("\u2026")
    assert history_entry("t", {"q": 1}, "ok", "y")["input"] == {"q": 1}
