"""The suite-level fast path: a stat fingerprint that makes an unchanged suite a no-op."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from suitekit import Kit

import skill_eval.model.project


@pytest.fixture
def kit(tmp_path):
    return Kit.warm(tmp_path)


def test_noop_loads_nothing(kit, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the fast path must not load the project")

    monkeypatch.setattr(skill_eval.model.project, "load_project", boom)
    code, out, err = kit.run()
    assert code == 0 and out.startswith("Up to date: 18 runs")


def test_noop_replays_the_exit_code(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    kit.edit_case("alpha", "a1", checks=[{"id": "never", "type": "contains", "value": "zzz"}])
    kit.write_suite(iterations=1, extra="minimum_lift: 0.9\n")
    first = kit.run()[0]
    assert first == 1
    assert kit.run() [0] == 1 and kit.run()[1].startswith("Up to date")


@pytest.mark.parametrize("what", ["touch-skill", "touch-suite", "touch-adapter", "options"])
def test_stat_changes_look_closer_but_run_nothing(kit, what):
    args = []
    if what == "touch-skill":
        os.utime(kit.skill_dir("beta") / "SKILL.md")
    elif what == "touch-suite":
        os.utime(kit.suite)
    elif what == "touch-adapter":
        os.utime(kit.root / "adapter.py")
    else:
        args = ["--iterations", "3"]
    code, out, err = kit.run(*args)
    assert code == 0 and not out.startswith("Up to date")
    assert kit.calls() == 0


def test_deleted_run_entry_defeats_it(kit):
    key = kit.stored_runs()[5]
    shutil.rmtree(kit.store / "runs" / key[:2] / key)
    code, out, err = kit.run()
    assert code == 0 and kit.calls() == 1


def test_deleted_table_is_rebuilt(kit):
    kit.bench("beta").unlink()
    code, out, err = kit.run()
    assert code == 0 and kit.calls() == 0
    assert kit.bench("beta").is_file()


@pytest.mark.parametrize("name", ["index.html", "summary.md", "summary.json", "junit.xml",
                                  "alpha/benchmark.md", "beta/benchmark.json"])
def test_any_deleted_results_file_is_written_again(kit, name):
    path = kit.results / name
    good = path.read_text()
    path.unlink()
    code, out, err = kit.run()
    assert code == 0 and not out.startswith("Up to date") and kit.calls() == 0
    assert path.read_text() == good
    assert kit.run()[1].startswith("Up to date")  # and the fast path vouches for it again


@pytest.mark.parametrize("name", ["index.html", "summary.md", "junit.xml", "alpha/benchmark.md"])
def test_a_results_file_edited_by_hand_is_written_again(kit, name):
    path = kit.results / name
    good = path.read_text()
    path.write_text("edited by hand\n")
    assert kit.run()[0] == 0 and kit.calls() == 0
    assert path.read_text() == good


def test_edited_table_is_rebuilt(kit):
    good = kit.bench("alpha").read_text()
    kit.bench("alpha").write_text("{}")
    assert kit.run()[0] == 0
    assert json.loads(kit.bench("alpha").read_text()) == json.loads(good)


def test_damaged_fast_state_is_ignored(kit):
    path = kit.store / "state" / "kit.fast.json"
    for bad in ("", "[]", '{"version": 1, "fingerprint": 3, "runs": []}', "{\"runs\": {"):
        path.write_text(bad)
        code, out, err = kit.run()
        assert code == 0 and err == "" and kit.calls() == 0


def test_partial_runs_do_not_vouch(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    assert kit.run("--only", "beta/*")[0] == 0
    assert not (kit.store / "state" / "kit.fast.json").exists()
    kit.reset()
    assert kit.run()[0] == 0
    assert kit.calls() == 4


@pytest.fixture
def loaded(monkeypatch) -> list[set[str] | None]:
    """The ``only_skills`` of every project load: None means the whole suite was planned."""
    seen: list[set[str] | None] = []
    real = skill_eval.model.project.load_project

    def spy(*a, **k):
        seen.append(k.get("only_skills"))
        return real(*a, **k)

    monkeypatch.setattr(skill_eval.model.project, "load_project", spy)
    return seen


def test_one_skill_edited_plans_only_that_skill(kit, loaded):
    """Only alpha's folder changed: only alpha is loaded and planned, beta's tables stay, and the
    summary still covers both skills."""
    beta_bench = kit.bench("beta").stat().st_mtime_ns
    (kit.skill_dir("alpha") / "SKILL.md").write_text(
        (kit.skill_dir("alpha") / "SKILL.md").read_text() + "\nOne more rule.\n")
    code, out, err = kit.run()
    assert code == 0, out + err
    assert loaded == [{"alpha"}]
    assert kit.calls_by() == {"with_skill a1": 3, "with_skill a2": 3}
    assert kit.bench("beta").stat().st_mtime_ns == beta_bench
    summary = json.loads((kit.results / "summary.json").read_text())
    assert sorted(s["skill"] for s in summary["skills"]) == ["alpha", "beta"]
    # The merged fast state vouches for both skills again: the next run is a no-op.
    assert kit.run()[1].startswith("Up to date: 18 runs")
    assert kit.status_json()["run"] == []


def test_a_folder_beside_the_skills_defeats_the_partial_plan(kit, loaded):
    """Eval sets may live in a non-skill folder under skills_dir: a change there plans everything."""
    kit.suite.write_text(kit.suite.read_text().replace('skills: ["*"]', "skills: [alpha, beta]"))
    shared = kit.suite.parent / "skills" / "shared-evals"
    shared.mkdir()
    assert kit.run()[0] == 0
    (shared / "notes.txt").write_text("x")
    assert kit.run()[0] == 0
    assert loaded == [None, None] and kit.calls() == 0


def test_a_grader_version_bump_regrades_without_calls(kit, monkeypatch):
    import skill_eval.engine.engine
    import skill_eval.engine.fastpath
    import skill_eval.engine.reasons
    import skill_eval.grade.grading
    import skill_eval.plan.keys

    for module in (skill_eval.plan.keys, skill_eval.engine.engine, skill_eval.engine.fastpath,
                   skill_eval.engine.reasons, skill_eval.grade.grading):
        monkeypatch.setattr(module, "GRADER_VERSION", "next")
    code, out, err = kit.run()
    assert code == 0 and not out.startswith("Up to date"), out + err
    assert kit.calls() == 0
    grades = [json.loads(p.read_text()) for p in kit.store.glob("grades/*/*.json")]
    assert sum(g["grader_version"] == "next" for g in grades) == 18


def _same_size_same_mtime(path, text: str) -> None:
    """What cp -p, touch -r, rsync -a and a restored CI cache do: new bytes, old size and mtime."""
    st = path.stat()
    assert len(text.encode()) == st.st_size
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    kit.use_content_adapter()
    assert kit.run()[0] == 0
    kit.reset()
    fixture = kit.skill_dir("alpha") / "evals" / "files" / "a1.txt"
    old = fixture.read_text()
    _same_size_same_mtime(fixture, old.upper())
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls_by() == {"with_skill a1": 1, "without_skill a1": 1}
    shown = (kit.results / "alpha" / "iteration-1" / "eval-a1" / "with_skill" / "output.txt").read_text()
    from skill_eval.fs.hashing import sha256_bytes

    assert sha256_bytes(old.upper().encode())[:8] in shown


def test_a_fingerprint_recorded_in_the_tick_of_a_change_is_not_trusted(kit):
    """Racy: the suite's stat fingerprint was written in the same clock tick as an input last
    changed, so a second change in that tick would be invisible to it: the plan looks closer."""
    fast = kit.store / "state" / "kit.fast.json"
    assert kit.run()[1].startswith("Up to date")
    tick = (kit.skill_dir("beta") / "SKILL.md").stat().st_ctime_ns
    os.utime(fast, ns=(tick, tick))
    code, out, err = kit.run()
    assert code == 0 and not out.startswith("Up to date") and kit.calls() == 0, out + err
    assert kit.run()[1].startswith("Up to date")  # recorded again, later: trusted



DECLARES = json.dumps({"mcpServers": {"notes": {"command": "never-started"}}})
MANIFEST = ".claude-plugin/plugin.json"


@pytest.mark.parametrize(("before", "edit"), [
    ({".mcp.json": DECLARES}, {".mcp.json": '{"mcpServers": {}}'}),  # notes no longer the plugin's
    ({".mcp.json": DECLARES}, {MANIFEST: '{"name": "renamed"}'}),
    ({MANIFEST: None, "plugin.json": '{"name": "p"}', ".mcp.json": DECLARES},
     {"plugin.json": '{"name": "renamed"}'}),
    ({MANIFEST: json.dumps({"name": "p", "mcpServers": "servers.json"}), "servers.json": "{}"},
     {"servers.json": json.dumps({"notes": {"command": "never-started"}})}),
], ids=["mcp.json", "manifest", "root-manifest", "named-config"])
@pytest.mark.e2e  # the runs start the MCP SDK's mock servers
def test_a_plugin_file_the_eval_reader_reads_is_watched(tmp_path, before, edit):
    """A plugin eval suite's reader reads the plugin's manifest and MCP configuration (they name
    the mocked servers, so they are in the run key): an edit to one defeats the fast path."""
    from pluginkit import PluginKit

    pytest.importorskip("mcp")
    kit = PluginKit.create(tmp_path, {"a": {"prompt.md": "Go a.\n"}})
    kit.write({"evals/mocks/notes/lookup.md": "NOTE\n"})
    for rel, text in before.items():
        if text is None:
            (kit.root / rel).unlink()
        else:
            kit.write({rel: text})
    assert kit.run()[0] == 0
    assert kit.run()[1].startswith("Up to date")
    kit.reset()
    kit.write(edit)
    _, out, _ = kit.status()
    assert ", 1 to run," in out
    assert "mocked servers' names (plugin manifest or MCP configuration) changed" in out
    code, out, err = kit.run()
    assert code == 0 and not out.startswith("Up to date"), out + err
    assert [r["case"]["id"] for r in kit.requests()] == ["a"]
