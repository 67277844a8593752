"""What the gemini, opencode and vibe builtins read from their CLIs' output, on recorded output
of the real CLIs (Gemini CLI 0.61.0, OpenCode 1.18.33, Mistral Vibe 3.0.2 against
tests/fakeagents.py): the answer, every tool call with its input, the skill load (only a load
that succeeded), tokens as reported and no cost where the CLI gives none."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from skill_eval.run.adapters import vibe
from skill_eval.run.adapters.shared.gemini_stream import parse_gemini_stream
from skill_eval.run.adapters.shared.opencode_events import parse_opencode_events
from skill_eval.run.adapters.shared.protocol_io import AdapterFailure
from skill_eval.run.adapters.shared.vibe_output import export_failure, export_usage, parse_vibe_output

DATA = Path(__file__).parent / "data" / "test_more_agent_streams"


def _loads(events: list[dict]) -> list[str]:
    return [e["name"] for e in events if e["type"] == "skill_loaded"]


def test_gemini_stream_activate_skill_tokens_and_no_cost():
    read = parse_gemini_stream(DATA / "gemini-with-skill.jsonl")
    got = read.got
    assert got.output == "Total sales: 42"
    assert _loads(got.events) == ["csv-summary"]
    call = next(e for e in got.events if e["type"] == "tool_call")
    assert call["name"] == "activate_skill" and json.loads(call["input_json"]) == {"name": "csv-summary"}
    assert got.usage["input_tokens"] > 0 and got.usage["output_tokens"] > 0
    assert "cost_usd" not in got.usage
    assert got.model == "fake-model-1" and got.usage["model/fake-model-1/output_tokens"] > 0


def test_gemini_a_refused_activation_is_no_load(tmp_path):
    text = (DATA / "gemini-with-skill.jsonl").read_text().replace('"status":"success"', '"status":"error"', 1)
    (tmp_path / "s.jsonl").write_text(text)
    got = parse_gemini_stream(tmp_path / "s.jsonl").got
    assert _loads(got.events) == [] and [e["name"] for e in got.events if e["type"] == "tool_call"] == [
        "activate_skill"]


def test_gemini_reading_skill_md_is_the_load(tmp_path):
    line = {"type": "tool_use", "tool_name": "read_file", "tool_id": "t1",
            "parameters": {"file_path": "/ws/.gemini/skills/csv-summary/SKILL.md"}}
    done = {"type": "result", "status": "success", "stats": {"input": 5, "output_tokens": 1, "models": {}}}
    (tmp_path / "s.jsonl").write_text(json.dumps(line) + "\n" + json.dumps(done) + "\n")
    assert _loads(parse_gemini_stream(tmp_path / "s.jsonl").got.events) == ["csv-summary"]


def test_opencode_events_skill_tool_steps_and_tokens():
    run = parse_opencode_events(DATA / "opencode-with-skill.jsonl")
    got = run.got
    assert got.output == "Total sales: 42" and run.steps == 2 and run.stop == "stop"
    assert _loads(got.events) == ["csv-summary"]
    assert got.usage["input_tokens"] == 7817 + 7962 and got.usage["output_tokens"] == 42 + 12
    assert got.usage["num_turns"] == 2 and run.cost == 0  # the adapter leaves an unpriced 0 unknown


def test_vibe_output_and_export():
    got = parse_vibe_output(DATA / "vibe-with-skill.json")
    assert got.output == "Total sales: 42" and _loads(got.events) == ["csv-summary"]
    export = json.loads((DATA / "vibe-export.json").read_text())
    assert export_failure(export) is None
    assert export_usage(export, priced=False) == {"input_tokens": 16605, "cache_read_input_tokens": 0,
                                                  "output_tokens": 54, "num_turns": 2}
    assert export_usage(export, priced=True)["cost_usd"] == 0.0
    assert export_failure({**export, "outcome": "max_price", "stop_reason": "limit"}) == "max_price (limit)"
    assert export_failure({**export, "outcome": "turn_limit", "stop_reason": "limit"}) is None  # a stop


def test_vibe_output_that_is_not_json_is_a_failure(tmp_path):
    (tmp_path / "out").write_text("not json")
    with pytest.raises(AdapterFailure, match="not JSON"):
        parse_vibe_output(tmp_path / "out")


def test_vibe_config_names_the_provider_and_the_key_variable():
    args = argparse.Namespace(base_url="http://127.0.0.1:9/v1", model="m-1", env_key="MY_KEY",
                              disable_bundled_skills=True)
    text = vibe.vibe_config(args)
    assert 'api_base = "http://127.0.0.1:9/v1"' in text and 'api_key_env_var = "MY_KEY"' in text
    assert 'active_model = "m-1"' in text and 'disabled_skills = ["vibe", "skill-creator"]' in text
    assert "enable_telemetry = false" in text


def test_a_cli_version_comes_from_its_package_metadata(tmp_path):
    """Read without starting the CLI (seconds under load, past --version's timeout); the same
    text --version prints, so the run key does not depend on which way it was read."""
    from skill_eval.run.adapters import gemini
    from skill_eval.run.adapters.shared.cli_version import cli_version

    pkg = tmp_path / "node_modules" / "@google" / "gemini-cli"
    (pkg / "bundle").mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({"name": "@google/gemini-cli", "version": "9.9.9"}))
    (pkg / "bundle" / "gemini.js").write_text("#!/bin/sh\nexit 1\n")
    (tmp_path / "node_modules" / ".bin").mkdir()
    (tmp_path / "node_modules" / ".bin" / "gemini").symlink_to(pkg / "bundle" / "gemini.js")
    link = tmp_path / "node_modules" / ".bin" / "gemini"
    assert cli_version(str(link), gemini.AGENT_CLI) == "9.9.9"
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib" / "python3.12" / "site-packages" / "mistral_vibe-3.0.2.dist-info").mkdir(parents=True)
    (venv / "bin" / "vibe").write_text("")
    assert cli_version(str(venv / "bin" / "vibe"), vibe.AGENT_CLI) == "vibe 3.0.2"
