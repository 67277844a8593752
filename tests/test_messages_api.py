"""One Messages API request (run/messages_api.py), as the claude-code judge asks each vote: the
system text, one user message, no tools; usage as billed; failures worded for the judge."""

from __future__ import annotations

import pytest
from fakemodel import FakeModel, Script, free_port

from skill_eval.errors import JudgeFatal
from skill_eval.run import messages_api
from skill_eval.run.messages_api import Endpoint, ask

VOTE = "Criterion: it is right (has 42).\n\nAnswer with one word, PASS or FAIL."
ASKED = [{"role": "user", "content": VOTE}]


def _headers(request: dict) -> dict[str, str]:
    return {k.lower(): v for k, v in request["headers"].items()}


def test_one_request_no_tools_system_text_and_usage_as_billed():
    with FakeModel(Script()) as fm:
        text, usage = ask(Endpoint(fm.url, "sk-test"), "m-1", "You judge.", ASKED, 30)
        [request] = [r for r in fm.requests if r["method"] == "POST"]
    assert text == "PASS"
    body = request["body"]
    assert request["path"] == "/v1/messages" and _headers(request)["x-api-key"] == "sk-test"
    assert "tools" not in body and body["system"] == "You judge." and body["model"] == "m-1"
    assert body["messages"] == [{"role": "user", "content": VOTE}]
    assert usage["input_tokens"] == fm.billed[0]["input_tokens"] > 0
    assert usage["output_tokens"] == fm.billed[0]["output_tokens"] > 0
    assert usage["model/m-1/input_tokens"] == usage["input_tokens"]


def test_a_bearer_token_when_there_is_no_key():
    with FakeModel(Script()) as fm:
        ask(Endpoint(fm.url, None, "tok"), "m", "s", ASKED, 30)
        assert _headers(fm.requests[-1])["authorization"] == "Bearer tok"


def test_a_rejected_key_is_fatal_and_says_which_variable():
    with FakeModel(Script(fault="401")) as fm, pytest.raises(JudgeFatal) as err:
        ask(Endpoint(fm.url, "bad", who="judge claude-code"), "m", "s", ASKED, 30)
    assert "judge claude-code cannot judge: authentication failed (HTTP 401)" in str(err.value)
    assert "check ANTHROPIC_API_KEY (allow-list it in judge: env)" in str(err.value)


def test_no_key_is_fatal_before_any_request():
    with pytest.raises(JudgeFatal, match="no ANTHROPIC_API_KEY"):
        ask(Endpoint(f"http://127.0.0.1:{free_port()}", None), "m", "s", ASKED, 30)


def test_an_endpoint_that_refuses_connections_is_fatal_after_retries(monkeypatch):
    # the back-off's length is not the point here: record the pauses instead of sleeping them
    pauses: list[int] = []
    monkeypatch.setattr(messages_api, "_pause", lambda attempt, retry_after, deadline: pauses.append(attempt))
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(JudgeFatal) as err:
        ask(Endpoint(url, "k"), "m", "s", ASKED, 30)
    assert f"could not reach the model API at {url} (connection refused) after 3 retries" in str(err.value)
    assert pauses == [0, 1, 2]

