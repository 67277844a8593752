"""Agent mocks through a whole ``skill-eval run`` (run/mocks/served.py, run/mocks/server.py,
run/mocks/play.py, run/mocks/relay.py): the suite's judge (a command judge here, logging each
question) plays the server, asked through the run's relay; an unchanged re-run asks neither the
agent nor the judge; editing one case's agent mock re-runs that case only; an ``ABORT:`` reply
aborts the run; a recorded call in ``mocks/.replay/`` is answered with no judge call."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys

import pytest
from pluginkit import PluginKit
from test_mockrun import CLIENT

# Only whether the MCP SDK is there: importing it costs each test worker ~1.5 CPU-s at
# collection, and the servers run in their own processes anyway.
if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install -e '.[mcp]')", allow_module_level=True)

# Answers each question from its system text: ABORT where the mock says STRICT, else the call.
JUDGE = r'''
import json, sys
request = json.load(sys.stdin)
c = request["completion"]
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(c) + "\n")
user = c["messages"][-1]["content"]
if "STRICT" in c["system"]:
    text = "ABORT: asked for a note"
else:
    given = json.loads(user.split("Arguments:\n")[1])
    text = "AGENT " + c["system"].rsplit("\n\n", 1)[1] + " " + json.dumps(given)
print(json.dumps({"text": text, "usage": {"output_tokens": 1}}))
'''
MOCKS = {
    "evals/mocks/notes/lookup.md": "---\ntype: agent\nabort_when: never\n---\nNotes for {{input.id}}.\n",
    ".mcp.json": json.dumps({"mcpServers": {"notes": {"command": "never-started"}}}),
}


@pytest.fixture
def kit(tmp_path):  # noqa: ANN201
    kit = PluginKit.create(tmp_path, {"a": {"prompt.md": "Go a.\n"}, "b": {"prompt.md": "Go b.\n"}})
    kit.write({"adapter.py": CLIENT, "judge.py": JUDGE, **MOCKS})
    kit.write_suite(extra=f"judge:\n  command: [{json.dumps(sys.executable)}, judge.py, "
                          f"{json.dumps(str(tmp_path / 'judge.log'))}]\n")
    return kit


def _asked(kit) -> list[dict]:  # noqa: ANN001
    log = kit.root / "judge.log"
    return [json.loads(ln) for ln in log.read_text().splitlines()] if log.is_file() else []


def test_the_judge_plays_the_server_and_an_unchanged_rerun_asks_nobody(kit):
    code, _, err = kit.run()
    assert code == 0, err
    metas = {m["case"]: m for ms in kit.metas().values() for m in ms}
    [call] = metas["a"]["mock_calls"]
    assert call == {"tool": "mcp__plugin_p_notes__lookup", "input": {"id": "7"},
                    "output": 'AGENT Notes for 7. {"id": "7"}', "verdict": "ok"}
    assert metas["a"]["mock_judge"]["calls"] == 1
    [recording] = metas["a"]["mock_recordings"]
    assert recording["server"] == "notes" and recording["adopt_dir"].endswith("/evals/mocks/.replay/notes")
    assert recording["file"].startswith("lookup-")
    # Saved for adoption in results/, as plugin eval saves them.
    saved = kit.root / "results" / "mock-recordings" / "notes" / recording["file"]
    assert saved.read_text() == recording["text"]
    adopt = (kit.root / "results" / "mock-recordings" / "ADOPT.txt").read_text().splitlines()
    assert adopt[2].startswith(f"{saved}  sha256=") and adopt[3].endswith("/evals/mocks/.replay/notes/")
    asked = _asked(kit)
    assert len(asked) == 2 and 'MCP server "notes"' in asked[0]["system"]
    assert "never" in asked[0]["system"]
    assert asked[0]["messages"][0]["content"].startswith("Current call: lookup")
    kit.reset()
    code, _, err = kit.run()
    assert code == 0, err
    assert kit.requests() == [] and len(_asked(kit)) == 2  # no agent call, no judge call

    # Editing one case's own agent mock re-runs that case only.
    kit.write({"evals/b/mocks/notes/lookup.md": "---\ntype: agent\n---\nOther notes.\n"})
    code, out, _ = kit.status()
    assert "mock file b/mocks/notes/lookup.md added" in out and ", 1 to run," in out
    code, _, err = kit.run()
    assert code == 0, err
    assert {r["case"]["id"] for r in kit.requests()} == {"b"} and len(_asked(kit)) == 3

    # The recording, adopted, answers an identical call with no judge call.
    (kit.root / "evals/mocks/.replay/notes").mkdir(parents=True)
    (kit.root / "evals/mocks/.replay/notes" / recording["file"]).write_text(
        saved.read_text().replace("AGENT Notes", "REPLAYED Notes"))
    kit.reset()
    code, out, _ = kit.status()
    assert "mocks/.replay/notes/" in out and ", 1 to run," in out  # a's key has the recording; b's not
    kit.run()
    assert {r["case"]["id"] for r in kit.requests()} == {"a"} and len(_asked(kit)) == 3
    outputs = {c["output"] for m in kit.metas()["a"] for c in m["mock_calls"]}  # the old run is kept too
    assert outputs == {'AGENT Notes for 7. {"id": "7"}', 'REPLAYED Notes for 7. {"id": "7"}'}


def test_a_new_judge_reruns_the_cases_whose_agent_mocks_it_plays(kit, tmp_path):
    code, _, err = kit.run()
    assert code == 0, err
    kit.write_suite(extra=f"judge:\n  command: [{json.dumps(sys.executable)}, judge.py, "
                          f"{json.dumps(str(tmp_path / 'judge.log'))}]\n  model: other\n")
    code, out, _ = kit.status()
    assert "the judge playing its agent mocks changed" in out and ", 2 to run," in out


def test_a_run_that_reached_its_turn_limit_keeps_no_recording(kit):
    at_limit = '"events": [{"type": "stop", "name": "max_turns"}]'
    kit.write({"adapter.py": CLIENT.replace('"events": []', at_limit),
               "evals/a/prompt.md": "---\nmax_turns: 2\n---\nGo a.\n"})
    code, _, err = kit.run("--only", "s/a")
    [meta] = kit.metas()["a"]
    assert meta["run_error"].startswith("max_turns") and meta["mock_calls"], err
    assert meta["mock_recordings"] == []


def test_an_abort_reply_aborts_the_run_naming_server_tool_and_reason(kit):
    kit.write({"evals/b/mocks/notes/lookup.md":
               "---\ntype: agent\nabort_when: any note\n---\nSTRICT notes.\n"})
    code, _, err = kit.run()
    assert code == 2
    assert "aborted by mock notes/lookup: asked for a note" in err
    [error] = [e for e in kit.errors() if e["kind"] == "aborted"]
    assert error["message"] == "aborted by mock notes/lookup: asked for a note"


def test_a_sandboxed_agent_still_reaches_the_judge_through_the_relay(kit, tmp_path):
    kit.write_suite(extra=f"allow_tools: [Bash]\njudge:\n  command: [{json.dumps(sys.executable)}, judge.py, "
                          f"{json.dumps(str(tmp_path / 'judge.log'))}]\n")  # a Bash grant: in bwrap
    code, _, err = kit.run("--only", "s/a")
    if "bwrap" in err and code != 0:
        pytest.skip(f"no working bwrap here: {err.strip().splitlines()[-1]}")
    assert code == 0, err
    [meta] = kit.metas()["a"]
    assert meta["mock_calls"][0]["output"] == 'AGENT Notes for 7. {"id": "7"}'


def test_an_answer_holding_a_quoted_secret_keeps_the_results_whole(kit, tmp_path):
    # What a vault or config server returns: in the recording (JSON held in a string of
    # meta.json) the quotes are escaped, and redaction must not take them for the secret.
    kit.write({"judge.py": 'import json\nprint(json.dumps({"text": \'DB_PASSWORD="s3cret!"\', '
                           '"usage": {"output_tokens": 1}}))\n'})
    code, _, err = kit.run("--only", "s/a")
    assert code == 0, err
    [meta] = kit.metas()["a"]
    [recording] = meta["mock_recordings"]
    assert json.loads(recording["text"])["output"] == 'DB_PASSWORD="[REDACTED:password]"'
    saved = kit.root / "results" / "mock-recordings" / "notes" / recording["file"]
    assert saved.read_text() == recording["text"]
    code, _, err = kit.cli("report", str(kit.suite))
    assert code == 0, err
    store = (kit.root / ".store").rglob("*")
    assert not any(b"s3cret" in p.read_bytes() for p in store if p.is_file())


def test_a_recording_damaged_in_the_store_is_made_again_not_a_traceback(kit):
    code, _, err = kit.run("--only", "s/a")
    assert code == 0, err
    [path] = (kit.root / ".store").glob("runs/*/*/meta.json")
    meta = json.loads(path.read_text())  # as an older version's redaction left it
    meta["mock_recordings"][0]["text"] = '{"output": "DB_PASSWORD=[REDACTED:password]"s3cret!\\""}'
    path.write_text(json.dumps(meta))
    manifest = json.loads((path.parent / "COMPLETE.json").read_text())  # its checksums agree
    manifest["files"]["meta.json"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (path.parent / "COMPLETE.json").write_text(json.dumps(manifest))
    code, out, err = kit.cli("report", str(kit.suite))
    assert code == 2 and "s/a" in err and "damaged" in err, out + err
    code, out, _ = kit.status("--only", "s/a")
    assert "result missing from the store" in out and ", 1 to run," in out, out
    code, _, err = kit.run("--only", "s/a")
    assert code == 0, err
    assert (kit.root / "results" / "mock-recordings" / "notes").is_dir()
