"""A plugin eval case's mocked MCP servers (``evals/mocks/``), run by the real ``claude`` CLI
against the scripted model server: skill-eval serves them as ``claude plugin eval`` does (the
same tools offered, the same answers, the same abort of a run whose call breaks ``expect``),
compared through tests/plugineval_oracle.py."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest
from fakemodel import Script
from plugineval_oracle import plugin_eval, skill_eval, write_plugin
from realcli import PLUGIN_EVAL_SETS, cli

from skill_eval.model.mockrules import call_line

# Only whether the MCP SDK is there: importing it costs each test worker ~1.5 CPU-s at
# collection, and the servers run in their own processes anyway.
if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install -e '.[mcp]')", allow_module_level=True)
pytestmark = pytest.mark.slow

# The looks-up case's one call as plugin eval's mock_calls target shows it (a regex grader's pattern).
CALL_LINE = (r'^\{"tool":"mcp__plugin_csvp_notes__lookup","input":\{"id":"7"\},'
             r'"output":"NOTE-ANSWER 7: seven apples","verdict":"ok"\}$')
HEAD = "---\nruns: 1\nallowed_tools: [Read, Glob, Grep, Skill, Agent]\n---\n"
GRADER = '---\ntype: regex\npattern: "never-there"\n---\n'
CASES = {
    # The suite's mock answers, with the call's input and a fixture named from it.
    "looks-up": {"prompt.md": HEAD + "Look up note 7.\n", "graders/g.md": GRADER,
                 "graders/calls.md": f"---\ntype: regex\ntarget: mock_calls\npattern: '{CALL_LINE}'\n---\n"},
    # The case's own lookup.md overrides the suite's: its expect wants a number, the call sends text.
    "breaks-expect": {"prompt.md": HEAD + "Look up the bad note.\n", "graders/g.md": GRADER,
                      "mocks/notes/lookup.md":
                          "---\nexpect:\n  id: number\n---\nCASE ANSWER {{input.id}}\n"},
    # error: true answers as a tool error, and the run goes on.
    # It lists no tools: a case with mocks is offered plugin eval's tool list all the same.
    "tool-error": {"prompt.md": "---\nruns: 1\n---\nLook up a broken note.\n", "graders/g.md": GRADER,
                   "mocks/notes/lookup.md": "---\nerror: true\n---\nNOTE {{input.id}} IS GONE\n"},
}
SUITE_MOCKS = {
    "notes/lookup.md":
        "---\nexpect:\n  id: /^[0-9]+$/\n---\nNOTE-ANSWER {{input.id}}: {{file:fixtures/{input.id}.txt}}\n",
    "notes/fixtures/7.txt": "seven apples",
    "notes/_tools.json": json.dumps({"tools": [
        {"name": "lookup", "description": "Look up a note by its id.",
         "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
        {"name": "delete", "description": "Not mocked: not served.", "inputSchema": {"type": "object"}}]}),
    # A server the plugin does not declare: served under its own name, in both arms.
    "clock/now.md": "12:00\n",
}


def mocked_plugin(root):  # noqa: ANN001, ANN201
    plugin = write_plugin(root / "plug", CASES)
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"notes": {"command": "false"}}}))
    for rel, text in SUITE_MOCKS.items():
        (plugin / "evals" / "mocks" / rel).parent.mkdir(parents=True, exist_ok=True)
        (plugin / "evals" / "mocks" / rel).write_text(text)
    return plugin


SCRIPT = Script(mcp_tool="lookup", mcp_input={"id": "7"}, answer_with_skill="done",
                answer_without_skill="done")


@pytest.fixture(scope="module", params=PLUGIN_EVAL_SETS)
def both(request, tmp_path_factory):  # noqa: ANN001, ANN201
    claude = cli("claude", request.param)
    root = tmp_path_factory.mktemp(f"pe-mocks-{request.param}")
    plugin = mocked_plugin(root)
    theirs = plugin_eval(claude, plugin, SCRIPT)
    ours = skill_eval(claude, plugin, SCRIPT, root / "se", arms=("with_skill", "without_skill"))
    return theirs, ours, root


def _metas(root):  # noqa: ANN001, ANN202
    metas = (json.loads(p.read_text()) for p in (root / "se" / ".store").glob("runs/*/*/meta.json"))
    return {(m["case"], m["variant"]): m for m in metas}


def test_each_run_ends_with_the_same_error_or_abort_record_as_plugin_eval(both):
    theirs, ours, _ = both
    assert ours.causes() == theirs.causes()
    causes = {(case, arm): c for case, arm, c in ours.causes()}
    assert causes[("breaks-expect", "with")] == (
        'aborted: notes/lookup: the model\'s call violates expect: id = "7" is not a number')
    assert causes[("looks-up", "with")] is None and causes[("tool-error", "with")] is None


def test_the_model_is_offered_the_same_tools_as_under_plugin_eval(both):
    theirs, ours, _ = both
    # As sets: under load a CLI may send one request again (its own retry), in either tool.
    assert set(ours.tool_lists()) == set(theirs.tool_lists())
    offered = {t for tools in ours.tool_lists() for t in tools}
    # The declared server under the plugin's name, the other under its own; no unmocked tool.
    assert {"mcp__plugin_csvp_notes__lookup", "mcp__clock__now"} <= offered
    assert not any(t.endswith("__delete") for t in offered)


def test_the_mocked_answer_reaches_the_model_as_under_plugin_eval(both):
    theirs, ours, _ = both
    # As sets: a retried request repeats one. The abort of the expect case is not an answer: the
    # real CLI stops that run at the call, but now and then (timing) its model request carrying
    # the abort notice as the tool result still goes out first.
    def answers(capture) -> set[str]:  # noqa: ANN001
        return {a for a in capture.mock_answers() if not a.startswith("eval aborted by mock")}

    assert answers(ours) == answers(theirs)
    assert "NOTE-ANSWER 7: seven apples" in ours.mock_answers()
    assert "NOTE 7 IS GONE" in ours.mock_answers()


def test_every_mock_call_is_recorded_with_the_run_as_plugin_eval_shows_it(both):
    theirs, ours, root = both
    metas = _metas(root)
    [call] = metas[("looks-up", "with_skill")]["mock_calls"]
    assert call == {"tool": "mcp__plugin_csvp_notes__lookup", "input": {"id": "7"},
                    "output": "NOTE-ANSWER 7: seven apples", "verdict": "ok"}
    assert metas[("tool-error", "with_skill")]["mock_calls"][0]["verdict"] == "tool_error"
    # The record is the line plugin eval's mock_calls target shows: its grader on it passed there.
    [case] = [c for c in theirs.document["cases"] if c["name"] == "looks-up"]
    [run] = case["arms"]["with"]
    assert {g["name"]: g["passed"] for g in run["graders"]}["calls"] is True
    assert re.search(CALL_LINE, call_line(call))
    # The without-skill arm has no plugin, so no plugin server to call: nothing recorded.
    assert metas[("looks-up", "without_skill")]["mock_calls"] == []
    assert ("breaks-expect", "with_skill") not in metas  # aborted: an error record, not a result
