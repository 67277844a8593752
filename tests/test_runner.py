import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from skill_eval.errors import InvalidInput
from skill_eval.model.config import AdapterConfig
from skill_eval.model.results import RunError, RunResult
from skill_eval.run.protocol import planned_replay_key
from skill_eval.run.resolve import resolve_adapter
from skill_eval.run.runner import execute
from skill_eval.store.store import Store

ECHO = """#!/usr/bin/env python3
import json, os, pathlib, sys
req = json.load(sys.stdin)
ws = pathlib.Path(req["workspace"])
seen = sorted(str(p.relative_to(ws)) for p in ws.rglob("*") if p.is_file())
pathlib.Path("outputs/answer.md").write_text("kept " + req["mode"])
print(json.dumps({"output": json.dumps({"req": req, "seen": seen, "cwd": os.getcwd(),
                  "home": os.environ["HOME"]}),
                  "events": [{"type": "skill_loaded", "name": "demo-skill"}] if req["skill"] else [],
                  "usage": {"input_tokens": 7, "cost_usd": 0.01}}))
"""


def test_end_to_end_both_modes(run_setup, write_adapter, tmp_path):
    suite, spec = run_setup([write_adapter(ECHO, "echo.py")])
    store = Store(tmp_path / "store")
    for arm in ("with_skill", "without_skill"):
        s = spec(arm)
        result = execute(s, suite, store)
        assert isinstance(result, RunResult), result
        seen = json.loads(result.output)
        req = seen["req"]
        assert req["mode"] == arm and req["files"][0]["path"] == "inputs/data.txt"
        assert os.path.realpath(seen["cwd"]) == os.path.realpath(req["workspace"])
        assert seen["home"].startswith(req["workspace"])
        assert ("skills/demo-skill/SKILL.md" in seen["seen"]) == (arm == "with_skill")
        assert not any("evals" in p for p in seen["seen"])
        assert not Path(req["workspace"]).exists()  # the workspace is gone
        stored = store.get_run(s.key)
        assert stored.response == result.response and store.has_run(s.key)
        assert (stored.outputs_dir / "answer.md").read_text() == f"kept {arm}"
        meta = store.get_meta(s.key)
        assert meta["variant"] == arm and meta["case"] == "c1" and meta["adapter"] == "fake"
        assert store.get_json("replay", meta["replay_key"]) == {"run": s.key}
        # Known from the plan too (engine.grade_one indexes a slot that shared another's run).
        files = [[f["path"], f["sha256"]] for f in req["files"]]
        assert planned_replay_key(s, files) == meta["replay_key"]


def test_nonzero_exit_with_secret_in_stderr(run_setup, write_adapter, tmp_path):
    script = write_adapter("#!/bin/sh\necho 'auth failed for Bearer abcdef.123456 "
                           "(ANTHROPIC_API_KEY=sk-ant-xyz123456789)' >&2\nexit 7\n")
    suite, spec = run_setup([script])
    store = Store(tmp_path / "store")
    s = spec()
    err = execute(s, suite, store)
    assert isinstance(err, RunError) and err.kind == "exit"
    assert "status 7" in err.message and "auth failed" in err.message
    assert "abcdef.123456" not in err.message and "sk-ant-xyz" not in err.message
    assert store.get_error(s.key) == err
    assert not store.has_run(s.key) and store.get_run(s.key) is None
    for path in store.root.rglob("*"):
        if path.is_file():
            text = path.read_text("utf-8", "replace")
            assert "abcdef.123456" not in text and "sk-ant-xyz" not in text


@pytest.mark.slow
def test_error_kinds_and_retry_clears_error(run_setup, write_adapter, tmp_path):
    store = Store(tmp_path / "store")
    cases = {
        "invalid_response": write_adapter("#!/bin/sh\necho '{\"answer\": 1}'\n", "bad.sh"),
        "timeout": write_adapter("#!/bin/sh\nsleep 30\n", "slow.sh"),
        "unscorable": write_adapter("#!/bin/sh\nyes\n", "loud.sh"),  # truncated: cannot be scored
        "not_found": tmp_path / "missing.sh",
    }
    for kind, script in cases.items():
        suite, spec = run_setup([script], timeout_seconds=0.5, max_output_bytes=10_000)
        err = execute(spec(prompt=kind), suite, store)
        assert isinstance(err, RunError) and err.kind == kind, err
        assert "\n" not in err.message
    good = write_adapter("#!/bin/sh\nprintf '{\"output\": \"ok\"}'\n", "good.sh")
    suite, spec = run_setup([good])
    s = spec(prompt="timeout")
    assert store.get_error(s.key) is not None
    assert isinstance(execute(s, suite, store), RunResult)
    assert store.get_error(s.key) is None


def test_resolve_command_identity(tmp_path, run_setup):
    suite, _ = run_setup(["true"])
    (tmp_path / "adapters").mkdir()
    script = tmp_path / "adapters" / "a.py"
    script.write_text("print('v1')\n")
    suite = replace(suite, adapter=AdapterConfig(command=("python3", "adapters/a.py", "--fast"), version="2"))
    first = resolve_adapter(suite)
    assert first.argv == ("python3", str(script.resolve()), "--fast")
    assert first.identity["command"] == ["python3", "adapters/a.py", "--fast"]
    assert first.identity["version"] == "2" and len(first.identity["sha256"]) == 64
    script.write_text("print('v2')\n")
    assert resolve_adapter(suite).identity["sha256"] != first.identity["sha256"]
    exe = replace(suite, adapter=AdapterConfig(command=(str(script),)))
    assert resolve_adapter(exe).identity["command"] == ["adapters/a.py"]


def test_resolve_builtins(run_setup, tmp_path):
    suite, _ = run_setup(["true"])
    demo = resolve_adapter(replace(suite, adapter=AdapterConfig(builtin="demo", options={"x": 1})))
    assert demo.argv[:3] == (sys.executable, "-m", "skill_eval.run.adapters.demo")
    assert demo.identity["builtin"] == "demo" and demo.identity["options"] == {"x": 1}
    assert "builtin_version" in demo.identity and "/" not in json.dumps(demo.identity)
    with pytest.raises(InvalidInput, match="did you mean 'demo'"):
        resolve_adapter(replace(suite, adapter=AdapterConfig(builtin="dmeo")))
    with pytest.raises(InvalidInput, match="replay.*needs 'responses"):
        resolve_adapter(replace(suite, adapter=AdapterConfig(builtin="replay")))


REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_demo_adapter_answers_from_recordings(run_setup, tmp_path):
    suite, spec = run_setup(["true"])
    suite = replace(suite, adapter=AdapterConfig(builtin="demo", responses=REPO / "examples" / "responses"))
    adapter = resolve_adapter(suite)
    store = Store(tmp_path / "store")
    prompt = "I added a login page. Write the commit message for the diff in inputs/evals/files/login.diff."
    w = replace(spec("with_skill", prompt=prompt), adapter=adapter)
    b = replace(spec("without_skill", prompt=prompt), adapter=adapter)
    rw, rb = execute(w, suite, store), execute(b, suite, store)
    assert isinstance(rw, RunResult) and isinstance(rb, RunResult), (rw, rb)
    assert rw.output.lstrip("`\n").startswith("feat(web):") and rw.response.loaded_skills() == {"demo-skill"}
    assert not rb.response.loaded_skills() and rb.response.usage["cost_usd"] > 0
    unknown = replace(spec("with_skill", prompt="Something nobody recorded"), adapter=adapter)
    assert isinstance(execute(unknown, suite, store), RunResult)

    # replay from the store the demo just filled: same answers, a different adapter identity.
    replay = resolve_adapter(replace(suite, adapter=AdapterConfig(builtin="replay", responses=store.root)))
    again = execute(replace(w, key="f" * 64, adapter=replay), suite, Store(tmp_path / "s2"))
    assert isinstance(again, RunResult) and again.response == rw.response
    missing = execute(replace(w, key="e" * 64, iteration=9, adapter=replay), suite, Store(tmp_path / "s2"))
    assert isinstance(missing, RunError) and "no run recorded" in missing.message
    assert "iteration 9" in missing.message


SESSION_ADAPTER = """#!/usr/bin/env python3
import json, pathlib, sys
req = json.load(sys.stdin)
pathlib.Path(req["session"]).write_text('{"type":"assistant","secret":"sk-ant-api03-' + 'A' * 40 + '"}')
pathlib.Path("made.txt").write_text("new")
print(json.dumps({"output": "ok", "events": [{"type": "session", "name": "complete"}]}))
"""


def test_the_session_and_the_created_files_are_kept_with_the_run(run_setup, write_adapter, tmp_path):
    suite, spec = run_setup([write_adapter(SESSION_ADAPTER, "session.py")])
    store = Store(tmp_path / "store")
    result = execute(spec(), suite, store)
    assert isinstance(result, RunResult), result
    again = store.get_run(result.key)
    assert again.session_path is not None and again.session_path.name == "session.jsonl"
    session = again.session_path.read_text()
    assert session.startswith('{"type":"assistant"') and "REDACTED" in session  # redacted like the rest
    assert again.created == ("made.txt",)  # the session file (in tmp/) and the inputs are no file it made


def test_created_files_leave_out_what_was_there_and_sort_as_javascript():
    from skill_eval.run.runner import created_files

    assert created_files(["b.txt", "a.txt", "pre.md", "gone/"], {"pre.md": "0" * 64}) == ["a.txt", "b.txt"]
    # JavaScript sorts by UTF-16 code units: an astral character sorts before U+FF01
    assert created_files(["\uff01.txt", "\U0001f600.txt"], {}) == ["\U0001f600.txt", "\uff01.txt"]
    # A name that is not UTF-8 (os.listdir gives its bad byte as a lone surrogate) is listed as
    # Node lists it, so the run's meta.json can hold it.
    assert created_files(["caf\udce9.txt"], {}) == ["caf\ufffd.txt"]
