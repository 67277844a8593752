"""`skill-eval inspect PATH [--json]`: detected format, counts, problems; exit 0 readable / 2 not."""

import json
from pathlib import Path

from skill_eval.cli.main import main

KEYS = {"format", "cases", "triggers", "checks", "rubric", "problems"}


def _skill(tmp_path: Path) -> Path:
    skill = tmp_path / "sk"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: sk\ndescription: Test.\n---\nBody.\n")
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": "sk", "evals": [
        {"id": "one", "prompt": "Do it", "assertions": ["It is done", "It is short"],
         "checks": [{"id": "c", "type": "contains", "value": "done"}]}]}))
    (skill / "evals" / "trigger-queries.json").write_text(json.dumps([
        {"query": "do the thing", "should_trigger": True},
        {"query": "something else", "should_trigger": False}]))
    return skill


def test_inspect_skill_folder_json(tmp_path: Path, capsys):
    skill = _skill(tmp_path)
    assert main(["inspect", str(skill), "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert isinstance(items, list) and len(items) == 2
    assert all(KEYS <= set(item) for item in items)
    native, triggers = items
    assert (native["format"], native["cases"], native["triggers"], native["checks"], native["rubric"]) == \
        ("native", 1, 0, 1, 2)
    assert (triggers["format"], triggers["cases"], triggers["triggers"]) == ("triggers", 0, 2)
    assert native["problems"] == [] and triggers["problems"] == []


def test_inspect_one_file_text(tmp_path: Path, capsys):
    skill = _skill(tmp_path)
    assert main(["inspect", str(skill / "evals" / "trigger-queries.json")]) == 0
    out = capsys.readouterr().out
    assert "triggers, 0 cases, 2 trigger queries" in out and "readable" in out


def test_inspect_unreadable_exits_2(tmp_path: Path, capsys):
    bad = tmp_path / "evals.json"
    bad.write_text("{not json")
    assert main(["inspect", str(bad), "--json"]) == 2
    item = json.loads(capsys.readouterr().out)
    assert KEYS <= set(item) and item["problems"] and item["readable"] is False
    assert main(["inspect", str(tmp_path / "missing.json")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_inspect_realworld_if_present(capsys):
    import pytest

    root = Path(__file__).resolve().parents[2] / "shared" / "realworld"
    tasks = root / "daddia__skills" / "skills" / "tasks"
    if not tasks.is_dir():
        pytest.skip(f"real-world skills not found at {root}")
    assert main(["inspect", str(tasks), "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert {i["format"] for i in items} == {"native", "triggers"}
    assert sum(i["triggers"] for i in items) > 0 and sum(i["rubric"] for i in items) > 0
