"""Checks that read a kept workspace file: regex / not_regex with `file` (what a claude plugin eval
grader's `target: {source: file, path}` maps to), and the path safety every such check shares."""

from __future__ import annotations

from pathlib import Path

from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.model.cases import Check


def _ctx(tmp_path: Path) -> CheckContext:
    kept = tmp_path / "files"
    (kept / "board").mkdir(parents=True)
    (kept / "board" / "t.md").write_text("status: open\nworker: \"\"\n")
    return CheckContext(output="status: in_progress", files_dir=kept)


def _grade(kind: str, params: dict, ctx: CheckContext):  # noqa: ANN202
    return run_check(Check(id="c", type=kind, case_sensitive=True, params=params), ctx)


def test_regex_searches_the_kept_file_not_the_output(tmp_path):
    ctx = _ctx(tmp_path)
    assert _grade("regex", {"pattern": 'worker: ""', "file": "board/t.md"}, ctx).passed
    assert not _grade("regex", {"pattern": "worker", "file": "output"}, ctx).passed
    assert _grade("not_regex", {"pattern": "status: in_progress", "file": "board/t.md"}, ctx).passed
    assert not _grade("not_regex", {"pattern": "status: in_progress"}, ctx).passed


def test_a_missing_file_fails_both_and_says_so(tmp_path):
    ctx = _ctx(tmp_path)
    for kind in ("regex", "not_regex"):
        result = _grade(kind, {"pattern": "x", "file": "board/none.md"}, ctx)
        assert not result.passed and result.evidence == "board/none.md does not exist"


def test_a_file_outside_the_workspace_is_refused(tmp_path):
    ctx = _ctx(tmp_path)
    result = _grade("regex", {"pattern": "x", "file": "../outside.md"}, ctx)
    assert not result.passed and "may not leave the run's workspace" in result.evidence
