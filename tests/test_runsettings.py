"""A plugin eval case's own run settings (model/runsettings.py, read by
model/evalsets/claude_plugin/run_settings.py): what a run is given, what its key holds, what status says,
the scaffold, and what an adapter that cannot apply them does."""

from __future__ import annotations

import json

import pytest
from pluginkit import PluginKit

from skill_eval.model.runsettings import GATED_TOOLS, RunSettings

A = {"prompt.md": "---\nruns: 2\nmax_turns: 3\nallowed_tools: [Read, Bash]\nenv: {EVAL_X: '1'}\n"
                  "append_system_prompt: be brief\ntimeout_seconds: 30\n---\nGo a.\n"}
B = {"case.yaml": 'schema_version: "1.1"\nname: b\ncontext:\n  scaffold_script: s.sh\n',
     "prompt.md": "Go b.\n", "s.sh": "echo hi > staged.txt\n"}


@pytest.fixture
def kit(tmp_path):
    return PluginKit.create(tmp_path, {"a": A, "b": B})


def test_a_case_runs_its_own_number_of_times_with_its_settings_in_the_request(kit):
    code, _, err = kit.run()
    assert code == 0
    a = [r for r in kit.requests() if r["case"]["id"] == "a"]
    assert [r["case"]["iteration"] for r in a] == [1, 2]  # runs: 2 over the suite's iterations: 1
    settings = a[0]["settings"]
    assert {k: settings[k] for k in ("max_turns", "env", "append_system_prompt", "timeout_seconds")} == {
        "max_turns": 3, "env": {"EVAL_X": "1"}, "append_system_prompt": "be brief", "timeout_seconds": 30}
    # Only the read-only tool is granted; Bash is removed and named once as not granted.
    assert settings["allowed_tools"] == ["Read"] and "Bash" in settings["disallowed_tools"]
    assert "not granted: Bash (1 case)" in err
    assert kit.metas()["a"][0]["limits"]["timeout_seconds"] == 30
    # b lists no tools and sets no turn cap: plugin eval's grants all the same, none of its own
    # (FORMAT.md §7.3), and its default cap of 10 turns (§2).
    b = [r for r in kit.requests() if r["case"]["id"] == "b"][0]
    assert b["settings"] == {"allowed_tools": [], "disallowed_tools": list(GATED_TOOLS), "max_turns": 10}


def test_iterations_on_the_command_line_override_the_cases_runs(kit):
    kit.run("--iterations", "1")
    assert [r["case"]["iteration"] for r in kit.requests() if r["case"]["id"] == "a"] == [1]


def test_a_suite_grant_reaches_every_case_with_settings(kit):
    kit.run("--allow-tools", "Write")
    [first, *_] = [r for r in kit.requests() if r["case"]["id"] == "a"]
    assert first["settings"]["allowed_tools"] == ["Read", "Write"]
    assert "Write" not in first["settings"]["disallowed_tools"]


def test_changing_one_cases_setting_reruns_that_case_only_and_status_says_why(kit):
    kit.run()
    kit.reset()
    kit.write({"evals/a/prompt.md": A["prompt.md"].replace("max_turns: 3", "max_turns: 4")})
    code, out, _ = kit.status()
    assert "case setting max_turns changed" in out and ", 2 to run," in out
    kit.run()
    assert {r["case"]["id"] for r in kit.requests()} == {"a"}


def test_the_scaffold_runs_only_when_asked_and_its_files_are_there_before_the_agent(kit):
    _, _, err = kit.run()
    assert 'cases "b": their scaffold_script is not run without --scaffold' in err
    assert "staged.txt" not in [r for r in kit.requests() if r["case"]["id"] == "b"][0]["listing"]
    kit.reset()
    _, _, err = kit.run("--scaffold")
    assert "scaffold_script is not run" not in err
    [b] = kit.requests()  # only b's key changed: its script is in the key once it runs
    assert "staged.txt" in b["listing"]
    [meta] = [m for m in kit.metas()["b"] if "pre_existing" in m]
    assert list(meta["pre_existing"]) == ["staged.txt"]  # not created by the agent
    kit.reset()
    kit.write({"evals/b/s.sh": "echo other > staged.txt\n"})
    code, out, _ = kit.status("--scaffold")
    assert "scaffold script changed" in out
    assert ", 1 to run," in out


def test_a_failing_scaffold_fails_the_run_with_its_stderr(kit):
    kit.write({"evals/b/s.sh": "echo 'no fixture repo' >&2; exit 3\n"})
    code, _, err = kit.run("--scaffold")
    assert code == 2 and "scaffold failed: s.sh exited with status 3 | stderr: no fixture repo" in err
    assert [r["case"]["id"] for r in kit.requests()] == ["a", "a"]  # the agent never started for b


def test_an_env_key_outside_eval_fails_that_run_naming_it(tmp_path):
    kit = PluginKit.create(tmp_path, {"a": {"prompt.md": "---\nenv: {FOO: x}\n---\nGo.\n"}})
    code, _, err = kit.run()
    assert code == 2 and 'env key "FOO" is not allowed' in err
    assert kit.requests() == []


def test_an_adapter_that_cannot_apply_a_setting_refuses_the_case_at_validate(kit):
    kit.write_suite(adapter="{builtin: demo}")
    code, _, err = kit.cli("validate", str(kit.suite))
    assert code == 2
    assert ("case 'a' sets max_turns, append_system_prompt, env, allowed_tools, which adapter demo "
            "cannot apply") in err
    code, _, err = kit.run()
    assert code == 2 and "adapter demo cannot apply" in err


H = {"case.yaml": 'schema_version: "1.1"\nname: h\ncontext:\n  history_file: t.jsonl\n',
     "prompt.md": "Next.\n", "t.jsonl": '{"type": "user"}\n'}


def test_a_history_case_resumes_its_transcript_in_the_with_skill_arm_only(tmp_path):
    kit = PluginKit.create(tmp_path, {"h": H})
    kit.write_suite(arms="[with_skill, without_skill]")
    code, _, err = kit.run()
    assert code == 0 and "1 case run single-arm (no lift)" in err and ": h (both_arms" in err
    [req] = kit.requests()
    assert req["mode"] == "with_skill" and req["history"] == "tmp/skill-eval-history.jsonl"
    kit.reset()
    kit.write_suite(arms="[with_skill, without_skill]", extra="both_arms: true\n")
    kit.run()
    assert [r["mode"] for r in kit.requests()] == ["without_skill"]  # the with-skill run is stored
    kit.reset()
    kit.write({"evals/h/t.jsonl": '{"type": "assistant"}\n'})  # the transcript is in the key
    kit.run()
    assert sorted(r["mode"] for r in kit.requests()) == ["with_skill", "without_skill"]


def test_an_adapter_that_cannot_resume_refuses_a_history_case(tmp_path):
    kit = PluginKit.create(tmp_path, {"h": H})
    kit.write_suite(adapter="{builtin: demo}")
    code, _, err = kit.cli("validate", str(kit.suite))
    assert code == 2 and "case 'h' sets history, which adapter demo cannot apply" in err


def test_grants_follow_plugin_eval():
    s = RunSettings(allowed_tools=("Read", "Grep", "Write", "Bash(npm test *)"))
    assert s.granted() == ("Read", "Grep")
    assert s.not_granted() == ("Write", "Bash(npm test *)")
    assert s.granted(("Bash(npm test *)",)) == ("Read", "Grep", "Bash(npm test *)")
    assert "Bash" not in s.removed(("Bash(npm test *)",)) and "Write" in s.removed()


@pytest.mark.e2e  # bubblewrap
def test_a_bash_grant_runs_the_agent_sandboxed_and_is_refused_without_a_sandbox(kit, monkeypatch):
    from skill_eval.run import sandbox

    if sandbox._bwrap() is None or sandbox._probe(sandbox._bwrap()) is not None:
        pytest.skip("bwrap cannot create namespaces on this machine")
    code, _, err = kit.run("--allow-tools", "Bash(npm test *)")
    assert code == 0, err
    assert {m["limits"]["sandbox"]["kind"] for ms in kit.metas().values() for m in ms} == {"bwrap"}
    monkeypatch.setattr(sandbox, "_bwrap", lambda: None)
    code, _, err = kit.run("--allow-tools", "Bash")
    assert code == 2 and "allow_tools grants Bash, which runs the agent sandboxed" in err


def test_a_cases_model_applies_where_the_suite_names_none(tmp_path):
    kit = PluginKit.create(tmp_path, {"m": {"prompt.md": "---\nmodel: haiku\n---\nGo.\n"}})
    kit.run()
    assert [r["model"] for r in kit.requests()] == ["haiku"]
    kit.reset()
    kit.write_suite(extra="models: [opus]\n")  # a suite's model overrides it, as --model does
    kit.run()
    assert [r["model"] for r in kit.requests()] == ["opus"]


def test_a_cases_timeout_replaces_the_suites(tmp_path):
    kit = PluginKit.create(tmp_path, {"slow": {"prompt.md": "---\ntimeout_seconds: 1\n---\nGo.\n"}})
    code, _, err = kit.run()
    assert code == 2 and "timed out after 1s (raise timeout_seconds in the case" in err


def test_inspect_counts_the_settings_cases_carry(kit):
    code, out, _ = kit.cli("inspect", str(kit.root / "evals"), "--json")
    [found] = json.loads(out)
    assert found["settings"] == {"runs": 1, "max_turns": 1, "timeout_seconds": 1, "append_system_prompt": 1,
                                 "env": 1, "allowed_tools": 1, "scaffold": 1}
    code, out, _ = kit.cli("inspect", str(kit.root / "evals"))
    assert "case settings applied: runs (1 case), max_turns (1 case)" in out


def test_a_case_setting_nothing_runs_under_plugin_evals_grants_in_both_arms(tmp_path):
    kit = PluginKit.create(tmp_path, {"bare": {"prompt.md": "Go.\n"},
                                      "turns": {"prompt.md": "---\nmax_turns: 2\n---\nGo.\n"}})
    kit.write_suite(arms="[with_skill, without_skill]")
    code, _, err = kit.run()
    assert code == 0, err
    grants = {"allowed_tools": [], "disallowed_tools": list(GATED_TOOLS)}
    got = {(r["case"]["id"], r["mode"]): {k: r["settings"][k] for k in grants} for r in kit.requests()}
    assert got == {(c, m): grants for c in ("bare", "turns") for m in ("with_skill", "without_skill")}
    kit.reset()
    _, _, err = kit.run("--allow-tools", "Write")  # a suite grant reaches them too: they re-run
    assert {r["settings"]["allowed_tools"] == ["Write"] for r in kit.requests()} == {True}
    assert len(kit.requests()) == 4


def test_an_adapter_with_tools_of_its_own_refuses_a_case_that_sets_nothing(tmp_path):
    kit = PluginKit.create(tmp_path, {"bare": {"prompt.md": "Go.\n"}})
    kit.write_suite(adapter="{builtin: codex}")
    code, _, err = kit.cli("validate", str(kit.suite))
    assert code == 2 and "case 'bare' sets nothing, but runs under plugin eval's tool grants" in err
    kit.write_suite(adapter="{builtin: demo}")  # no builtin tools: nothing to remove
    code, _, err = kit.cli("validate", str(kit.suite))
    assert code == 0, err
