"""The history file in the store (store/history.py) and git's view of a skill (store/gitinfo.py)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from suitekit import Kit

from skill_eval.fs.hashing import HashCache, tree_digest
from skill_eval.intake.schemas_io import validator
from skill_eval.store.gitinfo import head, heads, skill_hash_at
from skill_eval.store.history import CaseCounts, History, HistoryRecord, _line
from skill_eval.store.store import Store


def record(skill_hash: str = "a" * 64, passed: int = 1, skill: str = "k", date: str = "d1") -> HistoryRecord:
    return HistoryRecord("s", skill, "m", skill_hash, date, None, {"c": CaseCounts((passed, 2), (0, 2))},
                         {"with_skill": passed / 2, "without_skill": 0.0},
                         {"pass_rate": passed / 2, "p_value": 1.0, "ci95": [0.5, 0.5]},
                         {"with_skill": None, "without_skill": None})


def test_append_keeps_earlier_lines_byte_for_byte_and_skips_repeats(tmp_path: Path):
    history = History(Store(tmp_path / "store"), "my suite/x")
    assert history.records() == [] and history.path.parent == tmp_path / "store" / "history"
    assert history.append([record(), record(skill="other")]) and history.path.is_file()
    before = history.path.read_bytes()
    assert history.append([record(date="d2")]) == []  # same results, another date: nothing new
    assert history.append([record(passed=2, date="d3")])
    after = history.path.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == 3
    assert [r.date for r in history.of("k", "m")] == ["d1", "d3"]
    for line in after.decode().splitlines():
        assert validator("history").is_valid(json.loads(line))


def test_a_damaged_line_is_skipped_and_counted_and_appending_goes_on(tmp_path: Path):
    history = History(Store(tmp_path / "store"), "s")
    history.append([record()])
    with open(history.path, "a") as f:
        f.write('{"not": "a record"}\n{broken')
    assert len(history.records()) == 1 and history.damaged == 2
    history.append([record(passed=2)])
    assert [r.pass_rate["with_skill"] for r in history.records()] == [0.5, 1.0]


def test_the_detail_is_kept_apart_by_content_and_its_loss_is_not_a_crash(tmp_path: Path):
    history = History(Store(tmp_path / "store"), "s")
    runs = {"c": {"with_skill": [[1, "k1", "g1"]], "without_skill": [[1, "k2", "g2"]]}}
    counts = {"c": CaseCounts((1, 1), (0, 1))}
    digest = history.put_detail(counts, runs)
    assert history.put_detail(counts, runs) == digest
    r = dataclasses.replace(record(), cases=None, detail=digest)
    assert history.runs(r) == runs and history.detailed(r).cases == counts
    assert json.loads(_line(r))["cases"] == 0 and len(_line(r)) < 600  # the line holds no case
    gone = dataclasses.replace(r, detail="f" * 64)
    assert history.runs(gone) is None and history.detailed(gone) is None


@pytest.mark.slow
def test_a_complete_run_records_and_gc_keeps_the_history(tmp_path: Path):
    kit = Kit.create(tmp_path, iterations=1)
    assert kit.run()[0] == 0
    path = kit.store / "history" / "kit.jsonl"
    lines = path.read_text().splitlines()
    assert [json.loads(x)["skill"] for x in lines] == ["alpha", "beta"]
    first = json.loads(lines[0])
    assert first["cases"] == 2
    detail = History(Store(kit.store), "kit").detailed(History(Store(kit.store), "kit").records()[0])
    assert detail.cases == {"a1": CaseCounts((1, 1), (0, 1)), "a2": CaseCounts((1, 1), (0, 1))}
    assert first["git"] is None and first["lift"]["pass_rate"] == 1.0
    assert kit.run("--only", "alpha/*", "--force")[0] == 0  # partial: not a version of the suite
    assert path.read_text().splitlines() == lines
    (kit.skill_dir("alpha") / "SKILL.md").write_text("---\nname: alpha\ndescription: x\n---\nv2\n")
    assert kit.run()[0] == 0
    assert len(path.read_text().splitlines()) == 3  # alpha's new version only; beta is unchanged
    code, out, err = kit.cli("gc", "suite.yaml")
    assert code == 0, err
    assert len(path.read_text().splitlines()) == 3
    history = History(Store(kit.store), "kit")
    assert history.runs(history.records()[0])  # the old version's detail survives gc too


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout.strip()


def test_the_content_hash_at_a_revision_is_the_run_keys_tree_digest(tmp_path: Path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    skill = tmp_path / "repo" / "skills" / "s"
    for rel, text in {"SKILL.md": "x", "b.md": "b", "a/z.md": "z", "a/b/c.md": "c", "evals/evals.json": "{}",
                      "scripts/evals/keep.txt": "k", "__pycache__/x.pyc": "p", "zz/a.md": "a"}.items():
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(text)
    root = tmp_path / "repo"
    assert head(root, [skill]) is None  # not a work tree yet
    git(root, "init", "-q")
    git(root, "add", "-f", "-A")
    git(root, "commit", "-qm", "one")
    digest, _ = tree_digest(skill, HashCache(None))
    commit, at_head = skill_hash_at(root, "HEAD", skill)
    assert at_head == digest and commit == git(root, "rev-parse", "HEAD")
    assert head(root, [skill]) == (commit, False)
    (skill / "b.md").write_text("changed")
    assert head(root, [skill]) == (commit, True)
    # Several skills in one ask: each is dirty by its own folder only (a new file, a rename).
    other, third = root / "skills" / "t", root / "skills" / "s-two"
    other.mkdir()
    (other / "SKILL.md").write_text("t")
    (third / "x").mkdir(parents=True)
    (third / "x" / "y.md").write_text("y")
    git(root, "add", "-f", "-A", "skills/t", "skills/s-two")
    git(root, "commit", "-qm", "two")
    commit = git(root, "rev-parse", "HEAD")
    assert heads(root, {"s": [skill], "t": [other], "s-two": [third]}) == {
        "s": (commit, True), "t": (commit, False), "s-two": (commit, False)}
    git(root, "mv", "skills/t/SKILL.md", "skills/t/RENAMED.md")
    (third / "new.md").write_text("untracked")
    assert heads(root, {"t": [other], "s-two": [third], "none": []}) == {
        "t": (commit, True), "s-two": (commit, True), "none": (commit, False)}
    assert skill_hash_at(root, "HEAD", skill)[1] == digest != tree_digest(skill, HashCache(None))[0]
