"""adapter.depends: files the adapter reads join its identity; an edit re-runs and is named."""

from __future__ import annotations

import json

import pytest
from suitekit import SUITE, Kit

from skill_eval.model.config import load_suite
from skill_eval.run.resolve import resolve_adapter

ALL = 18


def _with_depends(kit: Kit, globs: str) -> None:
    text = SUITE.format(iterations=3, extra="").replace(
        "  command: [python3, -S, adapter.py]\n",
        f"  command: [python3, -S, adapter.py]\n  depends: {globs}\n")
    kit.suite.write_text(text)


def _reasons(kit: Kit) -> dict[str, str]:
    code, out, err = kit.cli("status", "suite.yaml", "--json")
    assert code == 0, out + err
    data = json.loads(out)
    return {i["task"]: i["reason"] for i in data["run"]}


@pytest.mark.slow
def test_editing_a_depended_file_reruns_everything_and_status_names_it(tmp_path):
    kit = Kit.create(tmp_path)
    (kit.root / "data").mkdir()
    (kit.root / "data" / "outcomes.json").write_text('{"a": 1}')
    (kit.root / "data" / "other.json").write_text("{}")
    _with_depends(kit, '["data/*.json"]')
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls() == ALL
    kit.reset()
    code, out, err = kit.run()  # nothing changed: the fast path, no call
    assert code == 0 and kit.calls() == 0, out + err
    (kit.root / "data" / "outcomes.json").write_text('{"a": 2}')
    reasons = _reasons(kit)
    assert len(reasons) == ALL
    assert set(reasons.values()) == {"adapter input data/outcomes.json changed"}
    code, out, err = kit.run()
    assert code == 0, out + err
    assert kit.calls() == ALL
    kit.reset()
    (kit.root / "data" / "new.json").write_text("{}")  # a new match is an input too
    assert set(_reasons(kit).values()) == {"adapter input data/new.json added"}
    code, out, err = kit.run()
    assert code == 0 and kit.calls() == ALL, out + err


def test_without_depends_the_identity_is_unchanged(tmp_path):
    kit = Kit.create(tmp_path)
    plain = resolve_adapter(load_suite(kit.suite)).identity
    (kit.root / "x.txt").write_text("x")
    _with_depends(kit, '["x.txt"]')
    with_deps = resolve_adapter(load_suite(kit.suite)).identity
    assert "depends" not in plain
    assert with_deps == {**plain, "depends": {"x.txt": with_deps["depends"]["x.txt"]}}


def test_a_glob_matching_nothing_is_refused_by_validate_and_run(tmp_path):
    kit = Kit.create(tmp_path)
    _with_depends(kit, '["data/*.csv"]')
    for command in ("validate", "run"):
        code, out, err = kit.cli(command, "suite.yaml")
        assert code == 2, out + err
        assert "suite.yaml:6:" in err and "adapter.depends: 'data/*.csv' matches no file" in err
    assert kit.calls() == 0
