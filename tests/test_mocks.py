"""Reading a plugin eval case's mocked MCP servers (model/mocks.py): the suite's ``mocks/`` and the
case's own, file by file; the names servers are registered under; ``_tools.json``; what
skill-eval refuses (agent mocks) named at load."""

from __future__ import annotations

import json
from pathlib import Path

from skill_eval.model.evalsets import read_evalset
from skill_eval.model.mocks import PERMISSIVE, declared_servers, read_mocks


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _read(root: Path, case: str = "c"):  # noqa: ANN202
    problems: list[str] = []
    return read_mocks(root / "evals", root / "evals" / case, root, problems.append), problems


SUITE = {".claude-plugin/plugin.json": json.dumps({"name": "notes-plugin"}),
         ".mcp.json": json.dumps({"mcpServers": {"notes": {"command": "x"}}}),
         "evals/mocks/notes/lookup.md": "---\nexpect:\n  id: string\n---\nsuite lookup\n",
         "evals/mocks/notes/list.md": "suite list\n",
         "evals/mocks/notes/fixtures/a.txt": "A",
         "evals/mocks/notes/_tools.json": json.dumps({"tools": [
             {"name": "lookup", "description": "Find a note.",
              "inputSchema": {"type": "object", "required": ["id"]}},
             {"name": "drop", "description": "unmocked", "inputSchema": {"type": "object"}}]}),
         "evals/mocks/web/get.md": "---\nerror: true\n---\nofflne\n",
         "evals/c/prompt.md": "Go.\n", "evals/c/mocks/notes/lookup.md": "case lookup\n"}


def test_a_cases_files_override_the_suites_file_by_file(tmp_path):
    _write(tmp_path, SUITE)
    mocks, problems = _read(tmp_path)
    assert problems == []
    notes = {s.name: s for s in mocks.servers}["notes"]
    tools = {t.name: t for t in notes.tools}
    assert tools["lookup"].body.strip() == "case lookup" and tools["lookup"].expect == ()
    assert tools["list"].body.strip() == "suite list"
    assert tools["lookup"].source == "c/mocks/notes/lookup.md"
    assert tools["list"].fixtures == (("fixtures/a.txt", "A"),)  # beside its own file
    assert tools["lookup"].fixtures == ()


def test_declared_servers_take_the_plugins_name_and_only_the_with_skill_arm(tmp_path):
    _write(tmp_path, SUITE)
    mocks, _ = _read(tmp_path)
    assert mocks.tool_names(True) == ["mcp__plugin_notes-plugin_notes__list",
                                      "mcp__plugin_notes-plugin_notes__lookup", "mcp__web__get"]
    assert mocks.tool_names(False) == ["mcp__web__get"]


def test_tools_json_gives_mocked_tools_their_real_entry_and_serves_no_unmocked_tool(tmp_path):
    _write(tmp_path, SUITE)
    mocks, _ = _read(tmp_path)
    notes = {s.name: s for s in mocks.servers}["notes"]
    spec = mocks.spec(notes)
    entries = {t["name"]: t for t in spec["tools"]}
    assert set(entries) == {"list", "lookup"}
    assert entries["lookup"]["description"] == "Find a note."
    assert entries["lookup"]["inputSchema"] == {"type": "object", "required": ["id"]}
    assert entries["list"]["description"] == "" and entries["list"]["inputSchema"] == PERMISSIVE


def test_every_file_is_in_the_key_by_its_path_and_a_suite_without_mocks_has_none(tmp_path):
    _write(tmp_path, SUITE)
    mocks, _ = _read(tmp_path)
    keys = mocks.key_material()
    assert {"mocks mocks/notes/list.md", "mocks c/mocks/notes/lookup.md", "mocks mocks/notes/fixtures/a.txt",
            "mocks mocks/notes/_tools.json"} <= set(keys)
    assert "mocks mocks/notes/lookup.md" not in keys  # overridden: the case never uses it
    assert keys["mock_servers"] == "plugin_notes-plugin_notes,web"
    _write(tmp_path / "bare", {"evals/c/prompt.md": "Go.\n"})
    assert _read(tmp_path / "bare") == (None, [])


def test_agent_mocks_and_server_md_are_read_with_their_recordings(tmp_path):
    recording = "find-" + "a" * 64 + ".json"
    _write(tmp_path, {**SUITE, "evals/mocks/notes/_server.md":
                      "---\ntype: agent\ntools: [lookup, list, find]\nabort_when: deletes\n---\n"
                      "\nPlay notes.\n",
                      "evals/c/mocks/web/get.md": "---\ntype: agent\n---\nPlay the web.\n",
                      f"evals/mocks/.replay/notes/{recording}": '{"output": "x", "verdict": "ok"}',
                      "evals/mocks/.replay/notes/other.json": "{}"})
    mocks, problems = _read(tmp_path)
    assert problems == []
    tools = {(s.name, t.name): t for s in mocks.servers for t in s.tools}
    # A <tool>.md wins over _server.md: lookup (the case's) and list stay fixed; find is the agent.
    assert tools[("notes", "lookup")].kind == tools[("notes", "list")].kind == "fixed"
    find = tools[("notes", "find")]
    assert (find.kind, find.body, find.abort_when, find.source) == (
        "agent", "Play notes.", "deletes", "mocks/notes/_server.md")
    assert tools[("web", "get")].kind == "agent" and tools[("web", "get")].abort_when is None
    assert mocks.agent_sources() == ["c/mocks/web/get.md", "mocks/notes/_server.md"]
    # The recordings are the run's inputs (one key entry each); only the tool's own are replayed.
    assert f"mocks mocks/.replay/notes/{recording}" in mocks.key_material()
    assert find.replays == ((recording, '{"output": "x", "verdict": "ok"}'),)
    spec = mocks.spec({s.name: s for s in mocks.servers}["notes"])
    [entry] = [t for t in spec["tools"] if t["name"] == "find"]
    assert entry["replay_dir"] == str((tmp_path / "evals/mocks/.replay/notes").resolve())
    assert entry["kind"] == "agent"


def test_misplaced_agent_mock_keys_and_unknown_keys_are_named_at_load(tmp_path):
    _write(tmp_path, {**SUITE, "evals/mocks/notes/_server.md": "---\ntools: [x]\n---\nPlay it.\n",
                      "evals/c/mocks/web/get.md": "---\ntype: agent\nerror: true\n---\n\n",
                      "evals/c/mocks/web/put.md": "---\nwhen: always\nexpect: [1]\nabort_when: x\n---\nok\n",
                      "evals/c/mocks/web/post.md": "---\ntools: [a]\n---\nok\n"})
    _, problems = _read(tmp_path)
    assert any(p.startswith("mocks/notes/_server.md: only type: agent") for p in problems)
    assert any(p.startswith("c/mocks/web/get.md: error: applies to type: fixed") for p in problems)
    assert any(p.startswith("c/mocks/web/get.md: an agent mock needs a description") for p in problems)
    assert any(p.startswith("c/mocks/web/put.md: abort_when: needs type: agent") for p in problems)
    assert any(p.startswith("c/mocks/web/post.md: tools: belongs in _server.md") for p in problems)
    assert any("unknown key 'when'" in p for p in problems) and any("expect: must map" in p for p in problems)


def test_servers_declared_in_plugin_json_count_too(tmp_path):
    _write(tmp_path, {"plugin.json": json.dumps({"name": "p", "mcpServers": {"db": {}}}),
                      ".mcp.json": json.dumps({"search": {"command": "x"}})})
    assert declared_servers(tmp_path) == {"db", "search"}
    _write(tmp_path, {"plugin.json": json.dumps({"name": "p", "mcpServers": "./servers.json"}),
                      "servers.json": json.dumps({"mcpServers": {"other": {}}})})
    assert declared_servers(tmp_path) == {"other", "search"}


def test_agent_mocks_need_a_judge_that_answers_completions(tmp_path, capsys):
    from skill_eval.cli.main import main

    _write(tmp_path, {**SUITE, "skills/s/SKILL.md": "---\nname: s\ndescription: S.\n---\nS.\n",
                      "evals/c/graders/g.md": '---\ntype: regex\npattern: "x"\n---\n',
                      "evals/c/mocks/web/get.md": "---\ntype: agent\n---\nPlay it.\n"})
    base = "suite: s\nskills_dir: skills\nadapter: {builtin: claude-code}\n"

    def validate(judge: str) -> tuple[int, str]:
        (tmp_path / "suite.yaml").write_text(base + judge)
        code = main(["validate", str(tmp_path / "suite.yaml")])
        return code, capsys.readouterr().err

    code, err = validate("")
    assert code == 2 and "agent mock c/mocks/web/get.md is played by the suite's judge, and the suite " \
        "has none" in err
    code, err = validate("judge: {builtin: codex}\n")
    assert code == 2 and "judge codex cannot answer a completion request" in err
    code, err = validate("judge: {builtin: claude-code}\n")
    assert "agent mock" not in err


def test_inspect_counts_the_cases_with_mocks_as_applied_and_names_none_as_not_used(tmp_path, capsys):
    from skill_eval.cli.main import main

    _write(tmp_path, {**SUITE, "skills/s/SKILL.md": "---\nname: s\ndescription: S.\n---\nS.\n",
                      "evals/c/graders/g.md": '---\ntype: regex\npattern: "x"\n---\n'})
    assert main(["inspect", str(tmp_path / "evals"), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    found = found[0] if isinstance(found, list) else found
    assert found["settings"] == {"mocks": 1}
    assert not [p for p in found["problems"] if "not used" in p or "mock" in p]


def test_a_case_with_mocks_gets_plugin_evals_grants_even_when_it_lists_no_tools(tmp_path):
    from skill_eval.model.runsettings import GATED_TOOLS, RunSettings

    _write(tmp_path, SUITE)
    mocks, _ = _read(tmp_path)
    # As every plugin eval case (gated): tests/test_runsettings.py has those without mocks.
    carried = RunSettings(mocks=mocks, gated=True).request()
    assert carried["allowed_tools"] == [] and carried["disallowed_tools"] == list(GATED_TOOLS)
    assert "tools" in RunSettings(mocks=mocks, gated=True).key_material((), False)
    assert RunSettings(max_turns=2).request() == {"max_turns": 2}  # not gated: as before


def test_a_cases_mocks_are_hashable_like_the_rest_of_its_settings(tmp_path):
    _write(tmp_path, {**SUITE, "evals/c/mocks/notes/lookup.md": "---\nexpect:\n  id: [a, b]\n---\nx\n"})
    mocks, problems = _read(tmp_path)
    assert problems == [] and hash(mocks)
    lookup = {t.name: t for s in mocks.servers for t in s.tools}["lookup"]
    assert lookup.expect == (("id", ("a", "b")),)


def test_a_mock_calls_grader_is_an_indicator_only_when_every_mocked_server_is_the_plugins(tmp_path):
    graders = {"evals/c/graders/called.md": "---\ntype: regex\ntarget: mock_calls\npattern: lookup\n---\n",
               "evals/c/graders/says.md": "---\ntype: regex\npattern: note\n---\n"}
    own = {k: v for k, v in SUITE.items() if not k.startswith("evals/mocks/web/")}
    _write(tmp_path / "own", {**own, **graders})
    _write(tmp_path / "mixed", {**SUITE, **graders})

    def indicators(root: Path) -> dict[str, bool]:
        [case] = read_evalset(root / "evals", root).cases
        return {ch.id: ch.indicator for ch in case.checks}

    # §8: left out of the score (graded in the with-arm only) when the plugin's own servers answer.
    assert indicators(tmp_path / "own") == {"called": True, "says": False}
    # A mocked server the plugin does not declare: the call says nothing of the plugin firing.
    assert indicators(tmp_path / "mixed") == {"called": False, "says": False}


def test_a_fixture_linked_from_outside_the_suite_is_refused_and_named(tmp_path):
    # issue 54: the linked file was served to the agent as a mock's answer.
    _write(tmp_path, SUITE)
    (tmp_path / "secret.txt").write_text("token")
    (tmp_path / "evals/mocks/notes/fixtures/leak.txt").symlink_to(tmp_path / "secret.txt")
    mocks, problems = _read(tmp_path)
    [problem] = problems
    assert problem.startswith("mocks/notes/fixtures/leak.txt: is a link to ") and "outside evals/" in problem
    listed = {t.name: t for s in mocks.servers for t in s.tools}["list"]
    assert listed.fixtures == (("fixtures/a.txt", "A"),)


def test_a_fixture_over_the_size_cap_is_named_not_dropped_in_silence(tmp_path):
    _write(tmp_path, SUITE)
    (tmp_path / "evals/mocks/notes/fixtures/big.json").write_bytes(b"x" * (4 * 1024 * 1024 + 1))
    _, problems = _read(tmp_path)
    [problem] = problems
    assert problem.startswith("mocks/notes/fixtures/big.json: is over 4 MiB") and "no such fixture" in problem


def test_suite_wide_mocks_are_read_once_for_all_cases(tmp_path, monkeypatch):
    # issue 54: 60 cases with 10 MB of suite mocks read 1.2 GB per validate or status.
    import skill_eval.fs.confined as confined

    files = {**SUITE, "evals/c/graders/g.md": "---\ntype: regex\npattern: x\n---\n",
             **{f"evals/c{i}/prompt.md": "Go.\n" for i in range(5)},
             **{f"evals/c{i}/graders/g.md": "---\ntype: regex\npattern: x\n---\n" for i in range(5)}}
    files["evals/mocks/notes/fixtures/a.txt"] = "A" * 100_000
    _write(tmp_path, files)
    opened: list[str] = []
    real_open = confined.os.open
    monkeypatch.setattr(confined.os, "open", lambda p, *a: (opened.append(str(p)), real_open(p, *a))[1])
    es = read_evalset(tmp_path / "evals")
    assert len(es.cases) == 6 and not [p for p in es.problems if p.is_error]
    assert opened.count(str(tmp_path / "evals/mocks/notes/fixtures/a.txt")) == 1
    assert opened.count(str(tmp_path / "evals/mocks/notes/list.md")) == 1
    assert {c.settings.mocks.files for c in es.cases if c.id != "c"} == {es.cases[1].settings.mocks.files}
