"""Golden run keys: what is in a key (DESIGN §8) and what is not."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest
from suitekit import Kit

from skill_eval.engine.engine import Engine
from skill_eval.fs.hashing import HashCache, canonical_json, key_of, sha256_bytes, tree_digest
from skill_eval.model.project import load_project
from skill_eval.plan.planner import make_plan
from skill_eval.store.store import Store

SLOT = "alpha/a1/with_skill/default/1"
# The key of SLOT in a fresh Kit (suitekit's adapter script, skills and fixtures as written there).
# If this changes, every stored result of every user is invalidated: bump it only on purpose.
# (The adapter script's bytes are an input: a new kit adapter is a new golden. Check the old
# script still gives the old one, as was done when suitekit's adapter moved to FAST_JSON.)
GOLDEN = "42011f28769557d4751e1ab8494536b7cd83944cce4b9da703a740bb17034b36"


def keys(kit: Kit) -> dict[str, str]:
    project = load_project(kit.suite)
    engine = Engine(project, Store(kit.store))
    return {engine.slot(s): s.key for s in engine.plan.runs}


@pytest.fixture
def kit(tmp_path):
    return Kit.create(tmp_path)


def test_golden_key(kit):
    assert keys(kit)[SLOT] == GOLDEN


def test_key_ignores_location_mtimes_and_environment(kit, tmp_path, monkeypatch):
    before = keys(kit)
    for p in kit.root.rglob("*"):
        os.utime(p, (1, 1))
    monkeypatch.setenv("KIT_SECRET", "one")
    assert keys(kit) == before
    moved = tmp_path / "elsewhere" / "deeper"
    moved.parent.mkdir()
    shutil.move(kit.root, moved)
    monkeypatch.setenv("KIT_SECRET", "two")
    assert keys(Kit(moved)) == before
    assert keys(Kit(moved))[SLOT] == GOLDEN


def test_iteration_count_and_limits_not_in_key(kit):
    before = keys(kit)
    kit.write_suite(iterations=5, extra="max_output_bytes: 2048\n")
    text = kit.suite.read_text().replace("timeout_seconds: 30", "timeout_seconds: 999")
    text = text.replace("jobs: 2", "jobs: 7")
    kit.suite.write_text(text)
    after = keys(kit)
    assert {k: v for k, v in after.items() if k in before} == before


@pytest.mark.parametrize("change", ["fixture", "prompt", "adapter", "model", "skill"])
def test_inputs_change_the_key(kit, change):
    before = keys(kit)
    if change == "fixture":
        path = kit.skill_dir("alpha") / "evals" / "files" / "a1.txt"
        path.write_bytes(path.read_bytes() + b"x")
    elif change == "prompt":
        kit.edit_case("alpha", "a1", prompt="Task a1: write it!")
    elif change == "adapter":
        (kit.root / "adapter.py").write_text((kit.root / "adapter.py").read_text() + "\n")
    elif change == "model":
        kit.write_suite(extra="models: [other]\n")
    elif change == "skill":
        (kit.skill_dir("alpha") / "SKILL.md").write_text("---\nname: alpha\ndescription: x.\n---\n")
    after = keys(kit)
    slot = SLOT.replace("/default/", "/other/") if change == "model" else SLOT
    assert after[slot] != before[SLOT]
    if change in ("fixture", "prompt"):  # only that case
        assert after["alpha/a2/with_skill/default/1"] == before["alpha/a2/with_skill/default/1"]
    if change == "skill":  # only the with_skill arm of that skill
        assert after["alpha/a1/without_skill/default/1"] == before["alpha/a1/without_skill/default/1"]
        assert after["beta/b1/with_skill/default/1"] == before["beta/b1/with_skill/default/1"]


def test_canonical_json_and_key_of():
    assert canonical_json({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'
    assert key_of({"b": 1, "a": 2}) == key_of({"a": 2, "b": 1})
    assert key_of("x") == "ba2df4903a2c14e86dc3bcca58911b44ac1d2514b7227bf6eb08cfb978f55a1b"


def test_hash_cache_reads_a_file_once_and_survives_damage(tmp_path):
    f = tmp_path / "f.txt"
    f.write_text("hello")
    cache = HashCache(tmp_path / "cache.json")
    h = cache.file(f)
    cache.file(f)
    assert cache.hashed == 1
    cache.save()
    _written_later(tmp_path / "cache.json", f)
    again = HashCache(tmp_path / "cache.json")
    assert again.file(f) == h and again.hashed == 0
    os.utime(f, (5, 5))  # touch: re-hashed once, same digest
    assert again.file(f) == h and again.hashed == 1
    (tmp_path / "cache.json").write_text("[1,2")
    assert HashCache(tmp_path / "cache.json").file(f) == h


def _written_later(cache: Path, f: Path) -> None:
    """As if the cache were written a clock tick after ``f`` last changed (a test writes both
    within one tick, which makes the entry racy: see the racy test below)."""
    later = f.stat().st_ctime_ns + 10**9
    os.utime(cache, ns=(later, later))


def test_same_size_same_mtime_edit_is_seen(tmp_path):
    """cp -p, touch -r, rsync -a: the bytes change, size and mtime are put back. ctime moves."""
    f = tmp_path / "f.txt"
    f.write_text("hello")
    cache = HashCache(tmp_path / "cache.json")
    old = cache.file(f)
    cache.save()
    _written_later(tmp_path / "cache.json", f)
    st = f.stat()
    f.write_text("HELLO")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    assert HashCache(tmp_path / "cache.json").file(f) == sha256_bytes(b"HELLO") != old


def test_an_entry_recorded_in_the_tick_of_its_change_is_hashed_again(tmp_path):
    """Racy git: a file changed at or after the cache was written may change again within that
    clock tick without its stamp moving, so its stamp proves nothing: it is re-hashed."""
    f = tmp_path / "f.txt"
    f.write_text("hello")
    cache = HashCache(tmp_path / "cache.json")
    cache.file(f)
    cache.save()
    tick = f.stat().st_ctime_ns
    os.utime(tmp_path / "cache.json", ns=(tick, tick))  # written in the same tick as the change
    racy = HashCache(tmp_path / "cache.json")
    assert racy.file(f) == sha256_bytes(b"hello") and racy.hashed == 1
    racy.file(f)
    assert racy.hashed == 1  # one invocation sees one version
    racy.save()  # written after: the stamp is trusted from now on
    _written_later(tmp_path / "cache.json", f)
    trusted = HashCache(tmp_path / "cache.json")
    trusted.file(f)
    assert trusted.hashed == 0


def test_tree_digest_excludes_evals(tmp_path):
    root = tmp_path / "s"
    (root / "evals").mkdir(parents=True)
    (root / "SKILL.md").write_text("a")
    cache = HashCache()
    d1, items = tree_digest(root, cache)
    (root / "evals" / "e.json").write_text("{}")
    assert tree_digest(root, cache)[0] == d1
    assert [i[0] for i in items] == ["SKILL.md"]


# A plugin eval case's own settings (model/runsettings.py) are in its runs' keys; a case without
# settings keeps the key it always had (GOLDEN above). Bump only on purpose.
SETTINGS_GOLDEN = "546e9cc730bc5bfa7cb3b58b819cd85c9498436cc9f172df297f3921bdbc50cf"
_SETTINGS_CASE = ("---\nruns: 1\nmax_turns: 3\nallowed_tools: [Read, Bash]\nenv: {EVAL_X: '1'}\n"
                  "append_system_prompt: be brief\ntimeout_seconds: 30\nmodel: sonnet\n---\nGo a.\n")


def _settings_keys(root: Path, scaffold: bool = False) -> dict[str, str]:
    from skill_eval.run.resolve import resolve_adapter

    project = load_project(root / "suite.yaml", use_cache=False)
    if scaffold:
        on = dataclasses.replace(project.suite.case_runs, scaffold=True)
        project = dataclasses.replace(project, suite=dataclasses.replace(project.suite, case_runs=on))
    plan = make_plan(project, resolve_adapter(project.suite), HashCache(None))
    return {r.case.id: r.key for r in plan.runs}


@pytest.fixture
def plugin(tmp_path):
    from pluginkit import PluginKit

    kit = PluginKit.create(tmp_path, {
        "a": {"prompt.md": _SETTINGS_CASE},
        "b": {"case.yaml": 'schema_version: "1.1"\nname: b\ncontext:\n  scaffold_script: s.sh\n',
              "prompt.md": "Go b.\n", "s.sh": "echo hi > staged.txt\n"}})
    kit.write({"adapter.py": "print('{\"output\": \"\"}')\n"})  # fixed bytes: the key hashes the script
    kit.write_suite(adapter="{command: [python3, adapter.py]}")  # no machine's own path in the key
    return kit


def test_golden_key_of_a_case_with_settings(plugin):
    assert _settings_keys(plugin.root)["a"] == SETTINGS_GOLDEN


# A plugin eval case that sets nothing that runs (b's scaffold runs only under --scaffold) runs
# under plugin eval's tool grants and its default turn cap of 10 all the same, so both are in its
# key. Semantic changes (issue 43): it was
# f3d8ab17874d05e0c853d9c8542c3146d11ec90247fbe57a4ffcbe53657c459c while such a case ran with the
# adapter's full tool set, then
# 19eeaf907c01811d3a5a08b391875966161bcc3be02dedef0dd22c3556cfc14a while it ran without a turn cap.
# Bump only on purpose.
UNSET_GOLDEN = "c0a21c5086befe3567c4ffe7b325699e89f39290452c3899733cb1c693341931"


def test_golden_key_of_a_case_that_sets_nothing(plugin):
    assert _settings_keys(plugin.root)["b"] == UNSET_GOLDEN


@pytest.mark.parametrize(("old", "new"), [
    ("max_turns: 3", "max_turns: 4"), ("timeout_seconds: 30", "timeout_seconds: 31"),
    ("model: sonnet", "model: opus"), ("be brief", "be terse"), ("EVAL_X: '1'", "EVAL_X: '2'"),
    ("[Read, Bash]", "[Read, Grep, Bash]")])
def test_each_setting_changes_that_cases_key_only(plugin, old, new):
    before = _settings_keys(plugin.root)
    prompt = plugin.root / "evals" / "a" / "prompt.md"
    prompt.write_text(prompt.read_text().replace(old, new))
    after = _settings_keys(plugin.root)
    assert after["a"] != before["a"] and after["b"] == before["b"]


def test_what_a_case_lists_but_cannot_grant_itself_leaves_the_key(plugin):
    before = _settings_keys(plugin.root)
    prompt = plugin.root / "evals" / "a" / "prompt.md"
    prompt.write_text(prompt.read_text().replace("[Read, Bash]", "[Read, Bash, Write]"))
    assert _settings_keys(plugin.root) == before  # Write is not granted: the run is the same


def test_a_scaffold_is_in_the_key_only_where_it_runs(plugin):
    off, on = _settings_keys(plugin.root), _settings_keys(plugin.root, scaffold=True)
    assert on["b"] != off["b"] and on["a"] == off["a"]
    (plugin.root / "evals" / "b" / "s.sh").write_text("echo other > staged.txt\n")
    assert _settings_keys(plugin.root) == off
    assert _settings_keys(plugin.root, scaffold=True)["b"] != on["b"]


# A case's mock files are in its runs' keys (one entry per file, model/mocks.py); a suite mock is
# in every case's key, a case's own only in that case's. Bump only on purpose.
MOCKS_GOLDEN = "2191cdfd3a574f81b97e0edcb0bc02715dfb30df834e3060d68d0b44b9b380d3"


def test_mock_files_are_in_the_keys_of_the_cases_that_use_them_only(plugin):
    plugin.write({"evals/mocks/notes/lookup.md": "NOTE {{input.id}}\n", "evals/b/mocks/notes/list.md": "L\n"})
    first = _settings_keys(plugin.root)
    assert first["a"] == MOCKS_GOLDEN
    plugin.write({"evals/b/mocks/notes/list.md": "L2\n"})
    second = _settings_keys(plugin.root)
    assert second["b"] != first["b"] and second["a"] == first["a"]
    plugin.write({"evals/mocks/notes/fixtures/1.txt": "one"})
    third = _settings_keys(plugin.root)
    assert third["a"] != second["a"] and third["b"] != second["b"]
