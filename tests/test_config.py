"""Suite configs (skill_eval.model.config): loading, defaults, and one exact message per bad input.

Every bad config in tests/data/test_config/ must give one line per problem naming the file,
the line (and column where known), what is wrong and what to do; never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_eval.errors import InvalidInput
from skill_eval.model.config import Suite, load_suite

DATA = Path(__file__).parent / "data" / "test_config"
SUITE_KEYS = ("ablations, adapter, adaptive, agents, allow_scripts, allow_tools, both_arms, executor, gate, "
              "include_unscorable, iterations, jobs, judge, "
              "max_cost_usd, max_kept_files, max_output_bytes, minimum_lift, models, plugin, remote, "
              "results, "
              "scaffold, skill_name_check, skills, "
              "skills_dir, split, store, strict_skills, suite, threshold, timeout_seconds, variants")


@pytest.fixture(autouse=True)
def _in_data(monkeypatch):
    # Messages show paths relative to the current folder.
    monkeypatch.chdir(DATA)


def problems(name: str) -> list[str]:
    with pytest.raises(InvalidInput) as exc:
        load_suite(name)
    lines = [p.format() for p in exc.value.problems]
    assert all("\n" not in line for line in lines)
    return lines


# ---- good configs -----------------------------------------------------------------------------

def test_minimal_suite_gets_the_documented_defaults():
    suite = load_suite("minimal.yaml")
    assert isinstance(suite, Suite)
    assert suite.name == "minimal"
    assert suite.skills_dir == DATA / "skills"
    assert [s.pattern for s in suite.skills] == ["*"]
    assert suite.adapter.builtin == "demo" and suite.adapter.command is None
    assert suite.models == ("default",)
    assert suite.iterations == 3
    assert suite.arms == ("with_skill", "without_skill")
    assert suite.timeout_seconds == 120.0
    assert suite.max_output_bytes == 1_048_576
    assert suite.jobs == 4
    assert suite.minimum_lift is None
    assert suite.store == DATA / ".skill-eval" / "store"
    assert suite.results == DATA / "results"
    assert suite.judge is None
    assert suite.allow_scripts is False and suite.strict_skills is False
    assert suite.split == "all"


def test_every_key_is_read_and_relative_paths_resolve_from_the_config_folder(tmp_path, monkeypatch):
    # Loading from another folder must give the same paths: they are relative to the file.
    monkeypatch.chdir(tmp_path)
    suite = load_suite(DATA / "full.yaml")
    assert suite.path == DATA / "full.yaml"
    assert suite.root == DATA
    assert suite.name == "full-suite"
    assert [(s.pattern, s.format, s.evals) for s in suite.skills] == [
        ("h*", None, ()), ("hello", "native", ("evals/evals.json",))]
    assert [s.line for s in suite.skills] == [5, 6]
    assert suite.adapter.builtin is None
    assert suite.adapter.command == (str(DATA / "adapter.py"), "--fast")
    assert suite.adapter.env == ("MY_TOKEN",)
    assert suite.adapter.version == "2"
    assert suite.adapter.options == {"model": "small"}
    assert suite.adapter.name == "command"
    assert suite.models == ("m1", "m2")
    assert suite.iterations == 5
    assert suite.arms == ("with_skill",)
    assert suite.timeout_seconds == 30.0
    assert suite.max_output_bytes == 2048
    assert suite.jobs == 8
    assert suite.minimum_lift == 0.25
    assert suite.store == DATA / "cache" / "store"
    assert suite.results == DATA / "out"
    assert suite.judge is not None
    assert suite.judge.command == ("python3", "judge.py")  # a bare program name stays on PATH
    assert suite.judge.model == "judge-model" and suite.judge.timeout_seconds == 9
    assert suite.allow_scripts is True and suite.strict_skills is True
    assert suite.max_cost_usd == 1.5
    assert suite.split == "tune"


def test_the_demo_config_loads():
    suite = load_suite(Path(__file__).resolve().parents[1] / "configs" / "demo.yaml")
    assert suite.name == "demo" and suite.adapter.builtin == "demo"
    assert suite.skills_dir.name == "skills" and suite.skills_dir.is_dir()


# ---- bad configs: one exact line each ---------------------------------------------------------

BAD = {
    "misspelt-key.yaml": [
        f"misspelt-key.yaml:3:1: unknown key 'skils' (did you mean 'skills'?); remove or rename it "
        f"(allowed: {SUITE_KEYS})"],
    "unknown-keys.yaml": [
        f"unknown-keys.yaml:3:1: unknown key 'colour'; remove or rename it (allowed: {SUITE_KEYS})",
        f"unknown-keys.yaml:4:1: unknown key 'iterashuns' (did you mean 'iterations'?); remove or rename it "
        f"(allowed: {SUITE_KEYS})"],
    "nested-unknown-key.yaml": [
        "nested-unknown-key.yaml:5:3: adapter: unknown key 'comand' (did you mean 'command'?); remove or "
        "rename it (allowed: builtin, command, depends, env, env_preset, network, options, responses, "
        "sandbox, version)"],
    "wrong-types.yaml": [
        "wrong-types.yaml:3:1: iterations: must be an integer, got '3' (a string); remove the quotes around "
        "the number",
        "wrong-types.yaml:4:1: jobs: must be an integer, got 'many' (a string); change the value",
        "wrong-types.yaml:5:1: models: must be a list, got 'default' (a string); write it as a list: "
        "[default]",
        "wrong-types.yaml:6:1: allow_scripts: must be true or false, got 'yes' (a string); change the value",
        "wrong-types.yaml:7:1: timeout_seconds: must be a number, got a list; change the value"],
    "bad-values.yaml": [
        "bad-values.yaml:3:12: variants[0]: 'with_skil' is not one of with_skill, without_skill "
        "(did you mean 'with_skill'?)",
        "bad-values.yaml:4:1: iterations: 0 is less than the minimum of 1; change the value",
        "bad-values.yaml:5:1: models: must not be an empty list; add an item or remove the key",
        "bad-values.yaml:6:1: split: 'holdot' is not one of tune, holdout, holdback, all "
        "(did you mean 'holdout'?)",
        "bad-values.yaml:8:9: adapter.env[0]: 'MY-TOKEN' does not match the required pattern "
        "^[A-Za-z_][A-Za-z0-9_]*$; change it to match"],
    "bad-skills-entry.yaml": [
        "bad-skills-entry.yaml:4:5: skills[0]: must be a string or a mapping (key: value), got 3 (a number); "
        "change the value",
        "bad-skills-entry.yaml:5:19: skills[1]: unknown key 'fromat' (did you mean 'format'?); remove or "
        "rename it (allowed: evals, format, name)"],
    "missing-suite.yaml": ["missing-suite.yaml:1:1: 'suite' is required but missing; add it"],
    "syntax-error.yaml": [
        "syntax-error.yaml:5:2: YAML syntax error: expected <block end>, but found '<block mapping start>' "
        "(while parsing a block mapping started at line 1); check the indentation of this line and the one "
        "before it"],
    "unquoted-colon.yaml": [
        "unquoted-colon.yaml:2:19: YAML syntax error: mapping values are not allowed here; a value contains "
        "': '; put the whole value in quotes"],
    "python-tag.yaml": [
        "python-tag.yaml:1:8: YAML error: tag !!python/object/apply:os.system is not allowed (only plain "
        "YAML is loaded; remove the tag)"],
    "python-name-tag.yaml": [
        "python-name-tag.yaml:2:13: YAML error: tag !!python/name:os.getcwd is not allowed (only plain YAML "
        "is loaded; remove the tag)"],
    "duplicate-key.yaml": [
        "duplicate-key.yaml:4:1: YAML error: duplicate key 'iterations' (first at line 3); remove one of "
        "them"],
    "empty.yaml": ["empty.yaml: the file is empty; a suite needs at least 'suite: <name>'"],
    "comment-only.yaml": ["comment-only.yaml: the file is empty; a suite needs at least 'suite: <name>'"],
    "top-list.yaml": [
        "top-list.yaml:1:1: must be a mapping of keys (suite: ..., skills_dir: ...), got a list; "
        "see configs/demo.yaml"],
    "top-scalar.yaml": [
        "top-scalar.yaml:1:1: must be a mapping of keys (suite: ..., skills_dir: ...), got 'just a sentence' "
        "(a string); see configs/demo.yaml"],
    "missing-skills-dir.yaml": [
        "missing-skills-dir.yaml:2:1: skills_dir: folder no-such-folder does not exist; fix the path (it is "
        "relative to this file's folder)"],
    "skills-dir-file.yaml": [
        "skills-dir-file.yaml:2:1: skills_dir: a-file.txt is a file, not a folder; point skills_dir at the "
        "folder that holds one folder per skill"],
    "adapter-both.yaml": [
        "adapter-both.yaml:3:1: adapter: set either 'builtin' or 'command', not both; remove one of them"],
    "adapter-unknown-builtin.yaml": [
        "adapter-unknown-builtin.yaml:4:3: adapter.builtin: unknown builtin 'claude-cod' (did you mean "
        "'claude-code'?); use one of claude-code, codex, demo, gemini, openai, openai-compat, opencode, "
        "replay, vibe, or "
        "'command: [...]' for your own"],
    "judge-empty.yaml": [
        "judge-empty.yaml:3:1: judge: needs 'builtin' or 'command'; add one (e.g. command: [python3, "
        "judge.py])"],
    # Several problems in one file: all reported at once, in file order.
    "many-errors.yaml": [
        "many-errors.yaml:2:1: skills_dir: folder no-such-folder does not exist; fix the path (it is "
        "relative to this file's folder)",
        f"many-errors.yaml:3:1: unknown key 'skils' (did you mean 'skills'?); remove or rename it "
        f"(allowed: {SUITE_KEYS})",
        "many-errors.yaml:4:1: iterations: must be an integer, got 'three' (a string); change the value",
        "many-errors.yaml:5:1: adapter: set either 'builtin' or 'command', not both; remove one of them",
        "many-errors.yaml:6:1: judge: needs 'builtin' or 'command'; add one (e.g. command: [python3, "
        "judge.py])"],
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_config_message(name):
    assert problems(name) == BAD[name]


def test_every_bad_config_in_the_data_folder_is_covered():
    good = {"full.yaml", "minimal.yaml"}
    assert {p.name for p in DATA.glob("*.yaml")} - good == set(BAD)


def test_python_tags_are_never_executed():
    for name in ("python-tag.yaml", "python-name-tag.yaml"):
        problems(name)
    assert not (DATA / "PWNED").exists()


def test_problems_are_deterministic():
    assert problems("many-errors.yaml") == problems("many-errors.yaml")


def test_missing_file_and_folder_given_as_suite():
    assert problems("nope.yaml") == ["nope.yaml: file not found; check the path"]
    assert problems("skills") == ["skills: is a folder; give the suite's YAML file (skill-eval init writes "
                                  "one), or a Claude Code plugin's folder"]


def test_non_utf8_config(tmp_path):
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"suite: caf\xe9\n")
    with pytest.raises(InvalidInput) as exc:
        load_suite(bad)
    (line,) = [p.format() for p in exc.value.problems]
    assert line.startswith(f"{bad}: cannot read: ") and line.endswith("; save it as UTF-8 text")


def test_default_skills_dir_missing_says_how_to_set_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text("suite: s\n")
    with pytest.raises(InvalidInput) as exc:
        load_suite("s.yaml")
    assert [p.format() for p in exc.value.problems] == [
        "s.yaml: skills_dir: folder skills does not exist; fix the path (it is relative to this file's "
        "folder); set 'skills_dir' (the default is 'skills')"]


def test_merge_keys_are_plain_yaml_and_allowed(tmp_path):
    (tmp_path / "skills").mkdir()
    (tmp_path / "s.yaml").write_text(
        "suite: s\nadapter:\n  builtin: demo\n  env: &names [A, B]\n  options: &o {model: x, effort: low}\n"
        "judge:\n  command: [my-judge]\n  env: *names\n  options:\n    <<: *o\n    model: y\n")
    suite = load_suite(tmp_path / "s.yaml")
    assert suite.judge is not None and suite.judge.env == ("A", "B")
    assert suite.judge.options == {"model": "y", "effort": "low"}


def test_builtin_adapter_names_accept_hyphen_or_underscore(tmp_path):
    (tmp_path / "skills").mkdir()
    for name in ("claude-code", "claude_code", "openai", "replay"):
        (tmp_path / "s.yaml").write_text(f"suite: s\nadapter: {{builtin: {name}}}\n")
        assert load_suite(tmp_path / "s.yaml").adapter.builtin == name


def test_skills_dir_that_is_a_skill_itself(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "SKILL.md").write_text("---\nname: one\ndescription: d\n---\n")
    (tmp_path / "s.yaml").write_text("suite: s\nskills_dir: one\n")
    with pytest.raises(InvalidInput) as exc:
        load_suite("s.yaml")
    assert [p.format() for p in exc.value.problems] == [
        "s.yaml:2:1: skills_dir: one is a skill itself (it has SKILL.md); point skills_dir at the folder "
        "that holds it and name the skill in 'skills'"]


@pytest.mark.parametrize(("value", "shown"), [(".nan", ".nan"), (".inf", ".inf"), ("-.inf", "-.inf"),
                                              (".NaN", ".nan")])
def test_numbers_must_be_finite(tmp_path, value, shown):
    (tmp_path / "skills").mkdir()
    suite = tmp_path / "s.yaml"
    suite.write_text(f"suite: s\nadapter: {{builtin: demo}}\ntimeout_seconds: {value}\n")
    with pytest.raises(InvalidInput) as exc:
        load_suite(suite)
    texts = [p.format() for p in exc.value.problems]
    want = f"s.yaml:3:1: timeout_seconds: must be a finite number, got {shown}; write a number"
    assert any(t.endswith(want) for t in texts), texts


def test_a_store_folder_name_too_long_for_the_file_system_is_one_line(tmp_path):
    (tmp_path / "skills").mkdir()
    suite = tmp_path / "s.yaml"
    suite.write_text(f"suite: s\nadapter: {{builtin: demo}}\nstore: {'s' * 300}/x\n")
    with pytest.raises(InvalidInput) as exc:
        load_suite(suite)
    (problem,) = exc.value.problems
    assert problem.format().endswith("is 300 bytes long; file systems allow 255: shorten it")
    assert problem.line == 3


def test_the_remote_key_is_a_url_or_a_mapping_and_a_bad_one_is_one_line(tmp_path):
    from skill_eval.model.config import RemoteConfig

    (tmp_path / "skills").mkdir()
    suite = tmp_path / "s.yaml"
    suite.write_text("suite: s\nskills_dir: skills\nremote: s3://team/evals\n")
    assert load_suite(suite).remote == RemoteConfig("s3://team/evals")
    suite.write_text("suite: s\nskills_dir: skills\nremote: {url: 'file:///srv/x', push: false, "
                     "sign_key_env: TEAM_KEY}\n")
    assert load_suite(suite).remote == RemoteConfig("file:///srv/x", push=False, sign_key_env="TEAM_KEY")
    assert load_suite(DATA / "full.yaml").remote is None
    suite.write_text("suite: s\nskills_dir: skills\nremote: {url: 'http://x', pushh: true}\n")
    with pytest.raises(InvalidInput) as info:
        load_suite(suite)
    assert all(p.file == "s.yaml" or p.file.endswith("s.yaml") for p in info.value.problems)
    assert "remote" in str(info.value.problems[0].format())
