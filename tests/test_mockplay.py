"""One call to an agent mock inside the mock server (run/mocks/play.py): expect, the judge's reply
read by plugin eval's conventions, the server's history, replays and recordings; and the relay
the mock server asks the judge through (run/mocks/relay.py)."""

from __future__ import annotations

import json
from typing import Any

from skill_eval.errors import JudgeError
from skill_eval.model.mockagent import call_digest, recording_name, recording_text
from skill_eval.run.mocks.play import AskFailed, Play, relay_ask
from skill_eval.run.mocks.relay import Relay
from skill_eval.run.mocks.server import answers

ENTRY = {"name": "lookup", "kind": "agent", "body": "A notes server for {{input.id}}.", "expect": [],
         "fixtures": {}, "abort_when": "the agent asks for note 13", "digest": "d" * 16, "replays": {}}
SPEC = {"server": "notes", "registered": "plugin_p_notes", "tools": [ENTRY], "model": "haiku"}
FULL = "mcp__plugin_p_notes__lookup"


class Judge:
    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.asked: list[tuple[str, str]] = []

    def __call__(self, system: str, user: str) -> str:
        self.asked.append((system, user))
        if not self.replies:
            raise AskFailed("judge down")
        return self.replies.pop(0)


def test_the_judge_answers_with_the_servers_history_and_the_answer_is_recorded():
    judge = Judge("NOTE 7", "ERROR: no such note")
    play = Play(SPEC, judge)
    first = answers(SPEC, "lookup", {"id": "7"}, play)
    assert first[0] == {"tool": FULL, "input": {"id": "7"}, "output": "NOTE 7", "verdict": "ok"}
    recording = first[1]["recording"]
    name = recording_name("lookup", call_digest("notes", "lookup", {"id": "7"}, "d" * 16,
                                                "A notes server for 7.", []))
    assert recording["server"] == "notes" and recording["file"] == name
    assert json.loads(recording["text"])["output"] == "NOTE 7"
    system, user = judge.asked[0]
    assert system.endswith("A notes server for 7.") and "the agent asks for note 13" in system
    assert user == 'Current call: lookup\nArguments:\n{\n  "id": "7"\n}'
    second = answers(SPEC, "lookup", {"id": "8"}, play)
    assert second[0] == {"tool": FULL, "input": {"id": "8"}, "output": "no such note", "isError": True,
                         "verdict": "tool_error"}
    assert judge.asked[1][1].startswith('Earlier calls this run:\n- lookup({"id":"7"}) \u2192 NOTE 7\n\n')


def test_an_abort_reply_aborts_the_run_naming_server_tool_and_reason():
    play = Play(SPEC, Judge("ABORT: asked for note 13"))
    assert answers(SPEC, "lookup", {"id": "13"}, play) == [
        {"aborted": {"server": "notes", "tool": "lookup", "reason": "asked for note 13"}}]


def test_a_broken_expect_aborts_before_the_judge_is_asked():
    judge = Judge("x")
    spec = {**SPEC, "tools": [{**ENTRY, "expect": [["id", "number"]]}]}
    assert answers(spec, "lookup", {"id": "7"}, Play(spec, judge)) == [{"aborted": {
        "server": "notes", "tool": "lookup", "reason": 'input violates expect: id = "7" is not a number'}}]
    assert judge.asked == []


def test_a_recorded_call_is_replayed_with_no_judge_call():
    name = recording_name("lookup", call_digest("notes", "lookup", {"id": "7"}, "d" * 16,
                                                "A notes server for 7.", []))
    saved = recording_text({"id": "7"}, "REPLAYED 7", "ok", "2026-01-01T00:00:00.000Z", None)
    spec = {**SPEC, "tools": [{**ENTRY, "replays": {name: saved}}]}
    judge = Judge()
    assert answers(spec, "lookup", {"id": "7"}, Play(spec, judge)) == [
        {"tool": FULL, "input": {"id": "7"}, "output": "REPLAYED 7", "verdict": "ok"}]
    assert judge.asked == []


def test_a_judge_that_cannot_answer_is_a_tool_error_and_nothing_more_is_recorded():
    play = Play(SPEC, Judge())
    [failed] = answers(SPEC, "lookup", {"id": "7"}, play)
    assert failed["verdict"] == "tool_error" and "judge down" in failed["output"]
    play.ask = Judge("later")
    assert [list(r) for r in answers(SPEC, "lookup", {"id": "8"}, play)] == [
        ["tool", "input", "output", "verdict"]]  # the server's history is no longer replayable


def test_the_relay_asks_the_judge_and_reports_its_failures(tmp_path):
    asked: list[Any] = []

    def complete(system: str, messages: list[dict[str, str]]) -> tuple[str, dict[str, float]]:
        asked.append((system, messages))
        if system == "fail":
            raise JudgeError("judge x exited with status 1")
        return "REPLY", {"input_tokens": 3}

    relay = Relay(tmp_path, complete)
    try:
        ask = relay_ask(str(relay.path), 10)
        assert ask("sys", "user") == "REPLY"
        assert asked == [("sys", [{"role": "user", "content": "user"}])]
        try:
            ask("fail", "user")
            raise AssertionError("no failure")
        except AskFailed as exc:
            assert "exited with status 1" in str(exc)
        assert relay.calls == 1 and relay.usage == {"input_tokens": 3.0}
    finally:
        relay.close()
    assert not relay.path.exists()
    try:
        relay_ask(str(relay.path), 1)("s", "u")
        raise AssertionError("answered with the relay closed")
    except AskFailed:
        pass
