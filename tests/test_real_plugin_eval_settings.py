"""A plugin eval case's own run settings and scaffold, run by the real ``claude`` CLI against the
scripted model server: skill-eval does what ``claude plugin eval`` does (the same per-run error
causes, the same tools offered to the model), compared through tests/plugineval_oracle.py."""

from __future__ import annotations

import json

import pytest
from fakemodel import Script
from plugineval_oracle import plugin_eval, skill_eval, transcript, write_plugin
from realcli import PLUGIN_EVAL_SETS, cli

pytestmark = pytest.mark.slow

GRADER = '---\ntype: regex\npattern: "never-there"\n---\n'
CASES = {
    # Read only (Bash and Write are listed, but a case cannot grant itself those); a loop the
    # turn cap ends after two model calls.
    "turns": {"prompt.md": "---\nruns: 1\nmax_turns: 2\nallowed_tools: [Read, Glob, Bash, Write]\n"
                           "append_system_prompt: APPENDED-MARKER\n---\nList the files.\n",
              "graders/g.md": GRADER},
    "read-only": {"prompt.md": "---\nruns: 1\nmax_turns: 1\nallowed_tools: [Read]\n---\nSay hi.\n",
                  "graders/g.md": GRADER},
    "bad-env": {"prompt.md": "---\nruns: 1\nenv: {FOO: bar, EVAL_OK: '1'}\n---\nSay hi.\n",
                "graders/g.md": GRADER},
    "staged": {"case.yaml": 'schema_version: "1.1"\nname: staged\nruns: 1\nexecution:\n  max_turns: 2\n'
                            "  allowed_tools: [Glob]\ncontext:\n  scaffold_script: setup.sh\n",
               "prompt.md": "Show the staged files.\n", "setup.sh": "echo staged > made-by-scaffold.txt\n",
               "graders/g.md": GRADER},
}


def _tool_results(capture, case_marker: str) -> str:  # noqa: ANN001
    """Everything the model was told back in the requests of the run whose prompt has the marker."""
    return "\n".join(json.dumps(r["body"]["messages"]) for r in capture.model_requests()
                     if case_marker in json.dumps(r["body"]["messages"][:1]))


@pytest.fixture(scope="module", params=PLUGIN_EVAL_SETS)
def both(request, tmp_path_factory):  # noqa: ANN001, ANN201
    claude = cli("claude", request.param)
    root = tmp_path_factory.mktemp(f"pe-{request.param}")
    plugin = write_plugin(root / "plug", CASES)
    script = Script(loop_tool="Glob", answer_with_skill="done", answer_without_skill="done")
    theirs = plugin_eval(claude, plugin, script, "--ablation", "none", "--scaffold")
    ours = skill_eval(claude, plugin, script, root / "se", "--scaffold")
    return theirs, ours, root


def test_each_run_ends_with_the_same_error_cause_as_plugin_eval(both):
    theirs, ours, _ = both
    assert ours.causes() == theirs.causes()
    causes = {case: c for case, _, c in ours.causes()}
    assert causes["turns"] == "max_turns" and causes["bad-env"] == "env:FOO"


def test_the_model_is_offered_the_same_tools_as_under_plugin_eval(both):
    theirs, ours, _ = both
    assert sorted(ours.tool_lists()) == sorted(theirs.tool_lists())
    offered = {t for tools in ours.tool_lists() for t in tools}
    assert "Read" in offered and not offered & {"Bash", "Write", "Edit", "WebFetch"}


def test_max_turns_two_makes_two_model_calls_and_is_graded_with_that_cause(both):
    theirs, ours, root = both
    runs = [r for r in ours.model_requests() if "List the files" in json.dumps(r["body"]["messages"][:1])]
    assert len(runs) == 2
    [meta] = [json.loads(p.read_text()) for p in (root / "se" / ".store").glob("runs/*/*/meta.json")
              if json.loads(p.read_text())["case"] == "turns"]
    assert meta["run_error"].startswith("max_turns")  # a result, graded: not an error, not unscorable
    assert all("APPENDED-MARKER" in json.dumps(r["body"].get("system")) for r in runs)


def test_the_scaffolds_files_are_in_the_workspace_when_the_agent_starts(both):
    theirs, ours, root = both
    # The agent's first Glob (turn 1) already lists the scaffold's file, under both tools.
    assert "made-by-scaffold.txt" in _tool_results(ours, "Show the staged files")
    assert "made-by-scaffold.txt" in _tool_results(theirs, "Show the staged files")
    [meta] = [json.loads(p.read_text()) for p in (root / "se" / ".store").glob("runs/*/*/meta.json")
              if json.loads(p.read_text())["case"] == "staged"]
    assert list(meta["pre_existing"]) == ["made-by-scaffold.txt"]


def test_an_env_key_outside_eval_fails_that_run_naming_it(both):
    _, ours, _ = both
    [bad] = [r for r in ours.runs if r.case == "bad-env"]
    assert bad.error is not None and '"FOO"' in bad.error and "EVAL_" in bad.error
    ran = {r.case for r in ours.runs if r.error is None or r.error.startswith("max_turns")}
    assert ran == {"turns", "read-only", "staged"}  # the other cases' runs are results


@pytest.mark.parametrize("which", PLUGIN_EVAL_SETS)
def test_a_history_case_resumes_the_transcript_in_the_with_arm_only_as_plugin_eval_does(which, tmp_path):
    claude = cli("claude", which)
    script = Script(answer_with_skill="done", answer_without_skill="done")
    history = transcript(claude, tmp_path, "Remember the word PINEAPPLE.", script)
    plugin = write_plugin(tmp_path / "plug", {"resumed": {
        "case.yaml": 'schema_version: "1.1"\nname: resumed\nruns: 1\ncontext:\n  history_file: t.jsonl\n',
        "prompt.md": "Which word did I ask you to remember?\n", "t.jsonl": history, "graders/g.md": GRADER}})
    theirs = plugin_eval(claude, plugin, script)  # a path target: plugin eval decides the arms
    ours = skill_eval(claude, plugin, script, tmp_path / "se", arms=("with_skill", "without_skill"))
    assert ours.causes() == theirs.causes() == [("resumed", "with", None)]
    for capture in (ours, theirs):
        asked = [r for r in capture.model_requests() if "Which word" in json.dumps(r["body"]["messages"])]
        # Every call of the run carries the earlier turn, before the prompt: a resumed session.
        assert asked and all("PINEAPPLE" in json.dumps(r["body"]["messages"]) for r in asked)


@pytest.mark.parametrize("which", PLUGIN_EVAL_SETS)
def test_both_arms_end_and_are_offered_tools_as_under_plugin_eval(which, tmp_path):
    claude = cli("claude", which)
    script = Script(loop_tool="Glob", answer_with_skill="done", answer_without_skill="done")
    plugin = write_plugin(tmp_path / "plug", {"turns": CASES["turns"], "bad-env": CASES["bad-env"]})
    theirs = plugin_eval(claude, plugin, script)  # a plugin resolves: with-without by default
    ours = skill_eval(claude, plugin, script, tmp_path / "se", arms=("with_skill", "without_skill"))
    assert ours.causes() == theirs.causes()
    assert {arm for _, arm, _ in ours.causes()} == {"with", "without"}
    assert sorted(ours.tool_lists()) == sorted(theirs.tool_lists())


# Cases that list no tools: with no settings at all, and with only max_turns. plugin eval offers
# them its read-only set all the same (FORMAT.md §7.3: allowed_tools defaults to []), in both arms.
UNLISTED = {
    "bare": {"prompt.md": "Say hi.\n", "graders/g.md": GRADER},
    "turns-only": {"prompt.md": "---\nmax_turns: 3\n---\nSay hello.\n", "graders/g.md": GRADER},
}


@pytest.mark.parametrize("which", PLUGIN_EVAL_SETS)
def test_a_case_listing_no_tools_is_offered_plugin_evals_tools_in_both_arms(which, tmp_path):
    claude = cli("claude", which)
    script = Script(answer_with_skill="done", answer_without_skill="done")
    plugin = write_plugin(tmp_path / "plug", UNLISTED)
    theirs = plugin_eval(claude, plugin, script, "--runs", "1")  # with-without, as by default
    ours = skill_eval(claude, plugin, script, tmp_path / "se", "--iterations", "1",
                      arms=("with_skill", "without_skill"))
    assert ours.causes() == theirs.causes()
    assert sorted(ours.tool_lists()) == sorted(theirs.tool_lists())
    offered = {t for tools in ours.tool_lists() for t in tools}
    assert "Read" in offered and not offered & {"Bash", "Write", "Edit", "WebFetch"}


@pytest.mark.parametrize("which", PLUGIN_EVAL_SETS)
def test_a_case_that_sets_no_turn_cap_stops_at_plugin_evals_default_of_ten(which, tmp_path):
    claude = cli("claude", which)
    script = Script(loop_tool="Glob", answer_with_skill="done", answer_without_skill="done")
    plugin = write_plugin(tmp_path / "plug", {"endless": {"prompt.md": "---\nruns: 1\nallowed_tools: [Glob]\n"
                                                                        "---\nKeep looking.\n",
                                                          "graders/g.md": GRADER}})
    theirs = plugin_eval(claude, plugin, script, "--ablation", "none")
    ours = skill_eval(claude, plugin, script, tmp_path / "se")
    assert ours.causes() == theirs.causes() == [("endless", "with", "max_turns")]
    assert len(ours.model_requests()) == len(theirs.model_requests()) == 10
