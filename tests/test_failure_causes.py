"""Causes read from the transcripts the real CLIs produced (tests/data/*/real_*.jsonl, see
their SOURCES.md): what the adapters tell a user instead of "timed out"."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from fakemodel import free_port

from skill_eval.run.adapters.claude_code import _served_model, parse_claude_stream
from skill_eval.run.adapters.codex import provider_args
from skill_eval.run.adapters.codex_stream import parse_codex_stream
from skill_eval.run.adapters.shared.failure_causes import ClaudeWatch, CodexWatch, Watch

DATA = Path(__file__).parent / "data"


def watch_file(watch: Watch, path: Path):
    """The first fatal cause (as a live watch would stop on it), else the last cause."""
    for line in path.read_text().splitlines():
        cause = watch.see(json.loads(line))
        if cause is not None and cause.fatal:
            return cause
    return watch.last


def test_claude_401_is_fatal_with_the_key_named():
    cause = watch_file(ClaudeWatch(), DATA / "test_claude_code" / "real_401.jsonl")
    assert cause.fatal
    assert cause.message.startswith("authentication failed (HTTP 401) (retry 1 of 1)")
    assert "ANTHROPIC_API_KEY" in cause.message


def test_claude_server_down_gives_up_after_three_connection_failures():
    watch = ClaudeWatch(base_url="http://127.0.0.1:9")
    cause = watch_file(watch, DATA / "test_claude_code" / "real_server_down.jsonl")
    assert cause.fatal and watch.connect_failures == 3  # not the 10 retries (~3 min) of the CLI
    assert cause.message.startswith("could not reach the model API at http://127.0.0.1:9 (")
    assert cause.message.endswith("after 3 retries: check ANTHROPIC_BASE_URL (adapter: options: base_url) "
                                  "and that the endpoint is up")


def test_claude_server_down_with_its_own_retry_limit_names_the_cli_reason():
    # CLAUDE_CODE_MAX_RETRIES set: the CLI gives up itself and says why.
    watch = ClaudeWatch(base_url="http://127.0.0.1:9", connect_limit=None)
    cause = watch_file(watch, DATA / "test_claude_code" / "real_server_down_max_retries.jsonl")
    assert cause.fatal
    assert cause.message.startswith("could not reach the model API at http://127.0.0.1:9 (Connection "
                                    "refused")
    assert "(ECONNREFUSED)) after 1 retry: check ANTHROPIC_BASE_URL" in cause.message


def test_claude_2_1_245_server_down_with_its_own_retry_limit():
    # Claude Code 2.1.245 marks no api_error "connection_failed": its message text says it.
    watch = ClaudeWatch(base_url="http://127.0.0.1:9", connect_limit=None)
    cause = watch_file(watch, DATA / "test_claude_code" / "real_server_down_max_retries_2_1_245.jsonl")
    assert cause.fatal
    assert cause.message.startswith("could not reach the model API at http://127.0.0.1:9 (Connection "
                                    "refused — a firewall or proxy may be blocking it (ConnectionRefused)) "
                                    "after 1 retry: check ANTHROPIC_BASE_URL")


def test_hints_name_the_suite_block_that_set_the_cli_up():
    # A judge's key and endpoint are set under judge:, not adapter:.
    claude = ClaudeWatch(base_url="http://127.0.0.1:9", part="judge")
    bad_key = watch_file(claude, DATA / "test_claude_code" / "real_401.jsonl")
    assert "allow-list it in judge: env" in bad_key.message
    down = watch_file(ClaudeWatch(base_url="http://127.0.0.1:9", part="judge"),
                      DATA / "test_claude_code" / "real_server_down.jsonl")
    assert "check ANTHROPIC_BASE_URL (judge: options: base_url)" in down.message
    codex = watch_file(CodexWatch(part="judge"), DATA / "test_codex" / "real_401.jsonl")
    assert "allow-list it in judge: env) and judge: options: base_url" in codex.message


def test_probe_names_why_a_connection_fails():
    from fakemodel import free_port

    from skill_eval.run.adapters.shared.failure_causes import probe

    assert probe(f"http://127.0.0.1:{free_port()}/v1") == "connection refused"
    assert probe("http:///v1") == "the URL names no host"


def test_claude_real_skill_run_parses():
    read = parse_claude_stream(DATA / "test_claude_code" / "real_skill.jsonl")
    got, result = read.got, read.result
    assert {"type": "skill_loaded", "name": "csv-summary"} in got.events
    assert result["result"] == "Total sales: 42"
    assert _served_model(result) == "claude-opus-5-5"


def test_served_model_is_the_one_that_did_most_work():
    result = {"modelUsage": {"claude-haiku-4-5": {"outputTokens": 5},
                             "claude-opus-5-5": {"outputTokens": 900}}}
    assert _served_model(result) == "claude-opus-5-5"
    assert _served_model({"modelUsage": {}}) is None


def test_codex_401_is_fatal_with_the_key_named():
    cause = watch_file(CodexWatch("CODEX_API_KEY"), DATA / "test_codex" / "real_401.jsonl")
    assert cause.fatal
    assert cause.message.startswith("authentication failed (HTTP 401): 1/5 (unexpected status 401")
    assert "check CODEX_API_KEY" in cause.message


def test_codex_missing_key_is_fatal():
    cause = watch_file(CodexWatch(), DATA / "test_codex" / "real_no_key.jsonl")
    assert cause.fatal and cause.message.startswith("no API key: environment variable FAKE_KEY is not set")


def test_codex_server_down_gives_up_at_the_first_network_wait_when_the_connection_is_refused():
    url = f"http://127.0.0.1:{free_port()}/v1"
    watch = CodexWatch(base_url=url)
    cause = watch_file(watch, DATA / "test_codex" / "real_server_down.jsonl")
    assert cause.fatal and watch.network_waits == 1  # Codex alone would wait forever
    assert cause.message.startswith(f"could not reach the model API at {url} (connection refused) "
                                    'after 1 reconnect wait ("Reconnecting... waiting for network')
    assert cause.message.endswith("check adapter: options: base_url and that the endpoint is up")


def test_codex_gives_up_when_the_network_wait_repeats_on_an_endpoint_that_accepts_connections():
    with socket.socket() as server:  # e.g. a proxy that takes the connection, then fails the request
        server.bind(("127.0.0.1", 0))
        server.listen()
        url = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
        watch = CodexWatch(base_url=url)
        wait = {"type": "error", "message": "Reconnecting... waiting for network (Connection failed)"}
        assert watch.see(wait) is None and not watch.last.fatal  # a probe that connects: wait again
        cause = watch_file(watch, DATA / "test_codex" / "real_server_down.jsonl")
    assert cause.fatal and watch.network_waits == 2
    assert cause.message.startswith(f"could not reach the model API at {url} (it accepts connections now")
    assert 'after 2 reconnect waits ("Reconnecting... waiting for network' in cause.message


def test_codex_one_network_wait_is_only_a_cause():
    watch = CodexWatch()
    assert watch.see({"type": "error", "message": "Reconnecting... waiting for network"}) is None
    assert watch.last is not None and not watch.last.fatal


def test_codex_real_skill_run_keeps_every_usage_field():
    stream = parse_codex_stream(DATA / "test_codex" / "real_skill.jsonl")
    assert {"type": "skill_loaded", "name": "csv-summary"} in stream.got.events
    assert stream.last_message == "Total sales: 42"
    assert stream.got.usage == {"input_tokens": 240, "cached_input_tokens": 0, "cache_write_input_tokens": 0,
                                "output_tokens": 24, "reasoning_output_tokens": 0}


def test_codex_error_items_become_warnings(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in [
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "i0", "type": "error", "message": "model fell back"}},
        {"type": "turn.completed", "usage": {"input_tokens": 1}},
    ]))
    assert parse_codex_stream(path).warnings == ["model fell back"]


def test_provider_args_quote_toml():
    assert provider_args(None, None) == []
    args = provider_args('http://h/v1"x', "MY_KEY")
    assert args[:2] == ["-c", "model_provider=skill_eval"]
    assert args[3] == ('model_providers.skill_eval={name="skill-eval", base_url="http://h/v1\\"x", '
                       'env_key="MY_KEY", wire_api="responses"}')
