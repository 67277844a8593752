"""The OpenAI-compatible adapter against a local chat-completions server (127.0.0.1, ephemeral
port), plus the judging prompt's verdict parser."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakechat import FakeChat

from skill_eval.run.adapters import openai_compat
from skill_eval.run.adapters.shared.judge_prompt import (
    JUDGE_PROMPT_VERSION,
    build_judge_prompt,
    parse_verdicts,
)
from skill_eval.run.protocol import parse_response

REPO = Path(__file__).resolve().parents[1]


def completion(
    content: str | None, model: str = "gpt-4o-mini-2024-07-18", tool_calls=None, usage=None
) -> dict:
    message: dict = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}
        ],
        "usage": usage or {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


def scripted(script: list[tuple[int, dict, object]]) -> FakeChat:
    """Answers from a script of (status, headers, body); the last entry repeats."""
    script = list(script)
    return FakeChat(lambda body: script.pop(0) if len(script) > 1 else script[0])


@pytest.fixture
def serve():
    servers = []

    def start(*script):
        server = scripted(list(script))
        servers.append(server)
        return server

    yield start
    for s in servers:
        s.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "inputs").mkdir(parents=True)
    (ws / "inputs" / "sales.csv").write_text("region,amount\nnorth,10\nsouth,32\n")
    (ws / "inputs" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    skill = ws / "skills" / "csv-summary"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: csv-summary\ndescription: Summarise CSV files.\n---\nAlways end with TOTAL=<sum>.\n"
    )
    (skill / "scripts" / "sum.py").write_text("print(42)\n")
    (ws / "home").mkdir()
    return ws


def request(ws: Path, mode: str = "without_skill", **extra) -> dict:
    req = {
        "protocol_version": 1,
        "mode": mode,
        "skill": {"name": "csv-summary", "path": "skills/csv-summary"} if mode == "with_skill" else None,
        "prompt": "Summarise the sales file.",
        "files": [
            {"path": "inputs/sales.csv", "sha256": "0" * 64},
            {"path": "inputs/logo.png", "sha256": "1" * 64},
        ],
        "workspace": str(ws),
        "model": "default",
        "case": {"id": "c1", "iteration": 1},
    }
    req.update(extra)
    return req


def run(ws: Path, req: dict, *args: str, **env_extra: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ws / "home"), "LANG": "C.UTF-8", "PYTHONPATH": str(REPO)}
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", "skill_eval.run.adapters.openai_compat", *args],
        input=json.dumps(req),
        capture_output=True,
        text=True,
        cwd=ws,
        env=env,
        timeout=60,
    )


def ok(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    parse_response(proc.stdout.encode(), "test")
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_normal_answer_with_usage(workspace, serve):
    server = serve((200, {}, completion("Total is 42.")))
    proc = run(
        workspace,
        request(workspace),
        "--model=gpt-4o-mini",
        "--temperature=0.2",
        "--max-tokens=300",
        OPENAI_BASE_URL=server.url,
        OPENAI_API_KEY="sk-test-123",
    )
    resp = ok(proc)
    assert resp == {
        "output": "Total is 42.",
        "events": [{"type": "model", "name": "gpt-4o-mini-2024-07-18"}],
        "usage": {"input_tokens": 12, "output_tokens": 5, "num_requests": 1},
    }
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-test-123"
    body = req["body"]
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.2 and body["max_tokens"] == 300
    assert [m["role"] for m in body["messages"]] == ["user"]  # no skill, no system prompt
    user = body["messages"][0]["content"]
    assert user.startswith("Summarise the sales file.")
    assert '<file path="inputs/sales.csv">\nregion,amount\nnorth,10\nsouth,32\n' in user
    assert "[inputs/logo.png: binary file" in user
    assert "csv-summary" not in user


@pytest.mark.slow
def test_with_skill_puts_skill_md_in_system_prompt(workspace, serve):
    server = serve((200, {}, completion("TOTAL=42")))
    proc = run(workspace, request(workspace, mode="with_skill", model="my-model"), f"--base-url={server.url}")
    resp = ok(proc)
    assert {"type": "skill_loaded", "name": "csv-summary"} in resp["events"]
    body = server.requests[0]["body"]
    assert body["model"] == "my-model"  # the suite's model wins over --model / default
    assert "Authorization" not in server.requests[0]["headers"]  # no key: local server
    system = body["messages"][0]
    assert system["role"] == "system"
    assert "Always end with TOTAL=<sum>." in system["content"]
    assert "- scripts/sum.py" in system["content"]
    assert "tools" not in body


@pytest.mark.slow
def test_trigger_mode_loads_skill_only_through_the_tool(workspace, serve):
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "load_skill", "arguments": '{"name": "csv-summary"}'},
    }
    server = serve((200, {}, completion(None, tool_calls=[call])), (200, {}, completion("TOTAL=42")))
    proc = run(
        workspace,
        request(workspace, mode="with_skill", trigger=True),
        "--model=m",
        f"--base-url={server.url}",
    )
    resp = ok(proc)
    assert resp["output"] == "TOTAL=42"
    assert resp["events"][1:] == [{"type": "skill_loaded", "name": "csv-summary"}]
    assert resp["usage"] == {"input_tokens": 24, "output_tokens": 10, "num_requests": 2}
    first, second = (r["body"] for r in server.requests)
    assert "Always end with" not in first["messages"][0]["content"]
    assert "csv-summary: Summarise CSV files." in first["messages"][0]["content"]
    assert first["tools"][0]["function"]["name"] == "load_skill"
    tool_msg = second["messages"][-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_1"
    assert "Always end with TOTAL=<sum>." in tool_msg["content"]


@pytest.mark.slow
def test_fixture_text_is_capped(workspace, serve):
    (workspace / "inputs" / "sales.csv").write_text("x" * 5000)
    server = serve((200, {}, completion("ok")))
    ok(run(workspace, request(workspace), "--model=m", "--max-file-bytes=100", f"--base-url={server.url}"))
    user = server.requests[0]["body"]["messages"][0]["content"]
    assert "x" * 100 in user and "x" * 101 not in user
    assert "[... truncated: 4900 more bytes not included]" in user


@pytest.mark.slow
def test_429_then_success_retries(workspace, serve):
    server = serve(
        (429, {"Retry-After": "0"}, {"error": {"message": "Rate limit reached", "type": "requests"}}),
        (200, {}, completion("after retry")),
    )
    resp = ok(run(workspace, request(workspace), "--model=m", f"--base-url={server.url}"))
    assert resp["output"] == "after retry"
    assert resp["usage"]["num_requests"] == 2
    assert len(server.requests) == 2


@pytest.mark.slow
def test_500_until_deadline_fails(workspace, serve):
    server = serve((500, {}, {"error": {"message": "The server had an error"}}))
    started = time.monotonic()
    proc = run(workspace, request(workspace), "--model=m", "--timeout=1.5", f"--base-url={server.url}")
    assert time.monotonic() - started < 15
    assert proc.returncode == 1
    assert (
        "gave up after" in proc.stderr
        and "HTTP 500" in proc.stderr
        and "The server had an error" in proc.stderr
    )
    assert len(server.requests) >= 2
    assert proc.stderr.count("\n") == 1


@pytest.mark.slow
def test_400_fails_at_once_with_the_server_message(workspace, serve):
    server = serve(
        (400, {}, {"error": {"message": "The model `nope` does not exist", "code": "model_not_found"}})
    )
    proc = run(workspace, request(workspace), "--model=nope", f"--base-url={server.url}")
    assert proc.returncode == 1
    assert (
        proc.stderr.strip() == f"HTTP 400 from {server.url}/chat/completions: The model `nope` does not exist"
    )
    assert len(server.requests) == 1


def test_no_model_is_a_clear_error(workspace):
    proc = run(workspace, request(workspace), "--base-url=http://127.0.0.1:9/v1")
    assert proc.returncode == 1
    assert "no model" in proc.stderr


@pytest.mark.slow
def test_judge_mode(workspace, serve):
    reply = 'Here you go:\n```json\n{"verdicts": [{"id": "r1", "passed": true, "evidence": "says 42"}]}\n```'
    server = serve((200, {}, completion(reply)))
    judge_request = {
        "protocol_version": 1,
        "prompt": "Sum the sales.",
        "output": "The total is 42.",
        "rubric": [{"id": "r1", "text": "States the total 42"}],
        "model": "judge-model",
    }
    proc = run(workspace, judge_request, "--judge", f"--base-url={server.url}")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer == {
        "verdicts": [{"id": "r1", "passed": True, "evidence": "says 42"}],
        "usage": {"input_tokens": 12, "output_tokens": 5, "num_requests": 1},
    }
    body = server.requests[0]["body"]
    assert body["model"] == "judge-model" and body["temperature"] == 0.0
    assert "States the total 42" in body["messages"][0]["content"]


@pytest.mark.slow
def test_judge_mode_answers_a_completion_with_the_system_text_and_messages(workspace, serve):
    server = serve((200, {}, completion("NOTE 7")))
    completion_request = {"protocol_version": 1, "model": "judge-model", "completion": {
        "system": "You play a notes server.", "messages": [{"role": "user", "content": "Current call: x"}]}}
    proc = run(workspace, completion_request, "--judge", f"--base-url={server.url}")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["text"] == "NOTE 7"
    body = server.requests[0]["body"]
    assert body["messages"] == [{"role": "system", "content": "You play a notes server."},
                                {"role": "user", "content": "Current call: x"}]
    assert "tools" not in body


# --------------------------------------------------------------------------- judge_prompt


def test_judge_prompt_is_versioned_and_deterministic():
    rubric = [{"id": "a", "text": "Names Paris"}]
    assert JUDGE_PROMPT_VERSION == "2"
    assert build_judge_prompt("Q", "A", rubric) == build_judge_prompt("Q", "A", rubric)
    assert '"a"' in build_judge_prompt("Q", "A", rubric)


_V = '{"verdicts": [{"id": "a", "passed": true, "evidence": "x"}, {"id": "b", "passed": false}]}'
_V_LOOSE = '{"verdicts": [{"id": "a", "passed": "true", "evidence": "x"}, {"id": "b", "passed": "no"}]}'


@pytest.mark.parametrize(
    "text",
    [_V, f"```json\n{_V}\n```", f"Sure.\n```\n{_V_LOOSE}\n```", f"My verdicts: {_V} ok?"],
)
def test_parse_verdicts_tolerates_fences_and_prose(text):
    assert parse_verdicts(text, ["a", "b"]) == {"a": (True, "x"), "b": (False, "")}


@pytest.mark.parametrize(
    "text, message",
    [
        ("I think it passes.", "no JSON object"),
        ('{"verdicts": [{"id": "a", "passed": true}]}', "no verdict for rubric id(s): b"),
        ('{"verdicts": [{"id": "a", "passed": "maybe"}, {"id": "b", "passed": true}]}', "'passed' must be"),
    ],
)
def test_parse_verdicts_rejects_bad_replies(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_verdicts(text, ["a", "b"])


def test_build_args_maps_suite_options():
    assert openai_compat.build_args(
        {"model": "gpt-4o", "base_url": "http://localhost:8000/v1", "temperature": 0}
    ) == [
        "--base-url=http://localhost:8000/v1",
        "--model=gpt-4o",
        "--temperature=0",
    ]
