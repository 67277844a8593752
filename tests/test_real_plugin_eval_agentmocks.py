"""Agent mocks (``type: agent``, a model playing a mocked MCP server) run by the real ``claude``
CLI against the scripted model server, whose judge side plays the server under both tools:
``claude plugin eval --json`` and skill-eval (its claude-code judge, same CLI and server). The
answer reaches the model, an ``ABORT:`` reply aborts the run with the same record, and a call
recorded in ``mocks/.replay/`` (plugin eval's own recording, adopted) is answered with no model
request by both."""

from __future__ import annotations

import importlib.util
import json
import shutil

import pytest
from fakemodel import FakeModel, Script
from plugineval_oracle import plugin_eval, skill_eval, write_plugin
from realcli import PLUGIN_EVAL_SETS, cli

# Only whether the MCP SDK is there: importing it costs each test worker ~1.5 CPU-s at
# collection, and the servers run in their own processes anyway.
if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install -e '.[mcp]')", allow_module_level=True)
pytestmark = pytest.mark.slow

HEAD = "---\nruns: 1\nallowed_tools: [Read, Glob, Grep, Skill, Agent]\n---\n"
GRADER = '---\ntype: regex\npattern: "never-there"\n---\n'
CASES = {
    "asks": {"prompt.md": HEAD + "Look up note 7.\n", "graders/g.md": GRADER},
    "aborts": {"prompt.md": HEAD + "Look up the bad note.\n", "graders/g.md": GRADER,
               "mocks/notes/lookup.md":
                   "---\ntype: agent\nabort_when: the agent asks for any note\n---\n"
                   "A STRICT notes server.\n"},
}
SUITE_MOCK = "---\ntype: agent\n---\nA notes server: answer with the note.\n"
SCRIPT = Script(mcp_tool="lookup", mcp_input={"id": "7"}, answer_with_skill="done",
                answer_without_skill="done", mock_replies={"STRICT": "ABORT: asked for a note"})


def _plugin(root):  # noqa: ANN001, ANN201
    plugin = write_plugin(root / "plug", CASES)
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"notes": {"command": "false"}}}))
    (plugin / "evals/mocks/notes").mkdir(parents=True)
    (plugin / "evals/mocks/notes/lookup.md").write_text(SUITE_MOCK)
    return plugin


def _mock_requests(capture) -> int:  # noqa: ANN001
    """Distinct agent-mock requests (a CLI's own retry under load repeats one)."""
    return len({FakeModel.mock_prompt(r["body"]) for r in capture.requests
                if r["method"] == "POST" and FakeModel.mock_prompt(r["body"])})


@pytest.fixture(scope="module", params=PLUGIN_EVAL_SETS)
def both(request, tmp_path_factory):  # noqa: ANN001, ANN201
    claude = cli("claude", request.param)
    root = tmp_path_factory.mktemp(f"pe-agentmocks-{request.param}")
    plugin = _plugin(root)
    theirs = plugin_eval(claude, plugin, SCRIPT)
    ours = skill_eval(claude, plugin, SCRIPT, root / "se", arms=("with_skill", "without_skill"),
                      judge=True)
    return claude, plugin, root, theirs, ours


def test_the_judge_plays_the_server_and_its_answer_reaches_the_model_under_both(both):
    _, _, _, theirs, ours = both
    assert "AGENT-ANSWER lookup" in theirs.mock_answers()
    assert "AGENT-ANSWER lookup" in ours.mock_answers()
    # One model request per agent-mock call: the two with-arm runs (the server is the plugin's).
    assert _mock_requests(theirs) == _mock_requests(ours) == 2


def test_an_abort_reply_aborts_the_run_with_the_same_record(both):
    _, _, _, theirs, ours = both
    assert ours.causes() == theirs.causes()
    assert ("aborts", "with", "aborted: notes/lookup: asked for a note") in ours.causes()


def test_an_adopted_recording_answers_with_no_model_request_under_both(both):
    claude, plugin, root, _, ours = both
    [saved] = (plugin / "evals" / "results").glob("*/mock-recordings/notes/lookup-*.json")
    ours_saved = root / "se" / "results" / "mock-recordings" / "notes" / saved.name
    assert json.loads(ours_saved.read_text())["output"] == json.loads(saved.read_text())["output"]
    replay = plugin / "evals" / "mocks" / ".replay" / "notes"
    replay.mkdir(parents=True)
    shutil.copy(saved, replay / saved.name)
    (replay / saved.name).write_text(saved.read_text().replace("AGENT-ANSWER", "REPLAYED"))
    theirs = plugin_eval(claude, plugin, SCRIPT)
    again = skill_eval(claude, plugin, SCRIPT, root / "se", arms=("with_skill", "without_skill"),
                       judge=True)
    assert "REPLAYED lookup" in theirs.mock_answers() and "REPLAYED lookup" in again.mock_answers()
    # Only the aborting case asks the model (its own mock has no recording).
    assert _mock_requests(theirs) == 1 and _mock_requests(again) == 1
    # A new server port is a new adapter: every run re-ran, and the store keeps both rounds.
    assert sorted(set(again.causes())) == theirs.causes() == ours.causes()
