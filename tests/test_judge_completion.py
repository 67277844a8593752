"""The judge protocol's raw completion (an agent mock's question): the request and answer
schemas, the builtin judges that answer it (claude-code, openai) and the one that cannot (codex),
and ``JudgeProcess.complete`` with a command judge."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skill_eval.errors import JudgeError
from skill_eval.intake.schemas_io import validator
from skill_eval.model.config import load_suite
from skill_eval.run.adapters.shared.judge_prompt import flatten, judge_main
from skill_eval.run.adapters.shared.protocol_io import AdapterFailure
from skill_eval.run.judge_process import JudgeProcess, parse_completion

REQUEST = {"protocol_version": 1, "model": None,
           "completion": {"system": "You play a server.", "messages": [{"role": "user", "content": "Call."}]}}


def test_the_request_schema_takes_a_completion_or_a_rubric_request_and_nothing_else():
    check = validator("judge-request")
    assert check.is_valid(REQUEST)
    assert check.is_valid({"protocol_version": 1, "model": None, "prompt": "p", "output": "o",
                           "expected_output": "", "rubric": [{"id": "r", "text": "t"}]})
    assert not check.is_valid({"protocol_version": 1, "model": None})
    assert not check.is_valid({**REQUEST, "completion": {"system": "s", "messages": []}})
    assert validator("judge-completion").is_valid({"text": "x", "usage": {"input_tokens": 1}})
    assert not validator("judge-completion").is_valid({"text": "x", "verdicts": []})


def test_a_judge_with_a_chat_backend_answers_a_completion_with_the_reply_alone(monkeypatch):
    seen: list[Any] = []

    def chat(system: str, messages: list[dict[str, str]], model: str | None) -> tuple[str, dict[str, float]]:
        seen.append((system, messages, model))
        return "THE REPLY", {"input_tokens": 5, "note": "x"}  # type: ignore[dict-item]

    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    assert judge_main(lambda p, m: ("", {}), "small", io.StringIO(json.dumps(REQUEST)), chat) == 0
    assert json.loads(out.getvalue()) == {"text": "THE REPLY", "usage": {"input_tokens": 5}}
    assert seen == [("You play a server.", [{"role": "user", "content": "Call."}], "small")]


def test_a_judge_without_one_refuses_a_completion():
    with pytest.raises(AdapterFailure, match="cannot answer a completion request"):
        judge_main(lambda p, m: ("", {}), None, io.StringIO(json.dumps(REQUEST)))


def test_claude_codes_judge_sends_the_system_text_no_tools_and_one_turn(monkeypatch):
    from skill_eval.run.adapters import claude_code

    calls: list[Any] = []

    def run_claude(args: Any, prompt: str, workspace: Path, env: dict[str, str]) -> Any:
        calls.append((list(args.extra_arg or []), prompt, args.model))
        return SimpleNamespace(output="REPLY", usage={})

    monkeypatch.setattr(claude_code, "run_claude", run_claude)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({**REQUEST, "model": "haiku"})))
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    assert claude_code._main(["--judge"]) == 0
    assert calls == [(["--system-prompt=You play a server.", "--tools=", "--max-turns=1"], "Call.", "haiku")]
    assert json.loads(out.getvalue())["text"] == "REPLY"


def test_a_history_is_one_prompt_for_a_cli_judge():
    assert flatten([{"role": "user", "content": "a"}]) == "a"
    assert flatten([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                    {"role": "user", "content": "c"}]) == "[user]\na\n\n[assistant]\nb\n\n[user]\nc"


JUDGE = """import json, sys
request = json.load(sys.stdin)
c = request["completion"]
print(json.dumps({"text": c["system"] + "|" + c["messages"][0]["content"] + "|" + str(request["model"]),
                  "usage": {"output_tokens": 2}}))
"""


def test_a_command_judge_answers_through_judge_process(tmp_path):
    (tmp_path / "judge.py").write_text(JUDGE)
    (tmp_path / "skills").mkdir()
    (tmp_path / "suite.yaml").write_text(
        f"suite: s\nskills_dir: skills\nadapter: {{builtin: demo}}\n"
        f"judge:\n  command: [{sys.executable}, {tmp_path / 'judge.py'}]\n  model: tiny\n")
    judge = JudgeProcess(load_suite(tmp_path / "suite.yaml"))
    assert judge.complete("S", [{"role": "user", "content": "U"}]) == ("S|U|tiny", {"output_tokens": 2})


def test_an_answer_outside_the_protocol_is_a_judge_error():
    assert parse_completion(b'{"text": "ok"}') == ("ok", {})
    for raw in (b"not json", b'{"verdicts": []}', b'{"text": 1}'):
        with pytest.raises(JudgeError):
            parse_completion(raw)
