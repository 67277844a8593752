"""The suite-level fast path: a stat fingerprint that makes an unchanged suite a no-op."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from suitekit import Kit

import skill_eval.project


@pytest.fixture
def kit(tmp_path):
    k = Kit.create(tmp_path)
    assert k.run()[0] == 0
    k.reset()
    return k


def test_noop_loads_nothing(kit, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the fast path must not load the project")

    monkeypatch.setattr(skill_eval.project, "load_project", boom)
    code, out, err = kit.run()
    assert code == 0 and out.startswith("Up to date: 18 runs")


def test_noop_replays_the_exit_code(tmp_path):
    kit = Kit.create(tmp_path)
    kit.edit_case("alpha", "a1", checks=[{"id": "never", "type": "contains", "value": "zzz"}])
    kit.write_suite(extra="minimum_lift: 0.9\n")
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
    kit = Kit.create(tmp_path)
    assert kit.run("--only", "beta/*")[0] == 0
    assert not (kit.store / "state" / "kit.fast.json").exists()
    kit.reset()
    assert kit.run()[0] == 0
    assert kit.calls() == 12
