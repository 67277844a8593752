"""What `run` prints (skill_eval/review/render/console.py): the one work line, and each distinct
run error once with its count and the first run it hit."""

from __future__ import annotations

from skill_eval.review.render.console import error_lines, work_line


def test_the_work_line_counts_with_plurals():
    assert work_line("demo", {"planned": 78, "to_run": 12, "regrade": 0, "rebuild": 2}) == (
        "demo: 78 runs planned, 12 to run, 0 to re-grade, 2 tables to rebuild")
    assert work_line("s", {"planned": 1, "to_run": 1, "regrade": 1, "rebuild": 1}) == (
        "s: 1 run planned, 1 to run, 1 to re-grade, 1 table to rebuild")


def test_each_distinct_error_is_said_once_whatever_excerpt_each_run_printed():
    not_json = "adapter command: adapter stdout is not JSON (x): fix it; starts with 'Loading"
    errors = [("agent:a/1", f"{not_json} 1'"), ("agent:a/2", f"{not_json} 2'"),
              ("agent:b/1", "adapter command exited with status 9 | stderr: denied for b/1"),
              ("agent:b/2", "adapter command exited with status 9 | stderr: denied for b/2"),
              ("agent:c/1", "timed out after 5 s")]
    assert error_lines(errors) == [
        "2 runs could not run: adapter command: adapter stdout is not JSON (x): fix it; starts with "
        "'Loading 1' (first: agent:a/1)",
        "2 runs could not run: adapter command exited with status 9 | stderr: denied for b/1 "
        "(first: agent:b/1)",
        "error in agent:c/1: timed out after 5 s"]
    assert error_lines(errors, shown=1)[-1] == "... and 2 more distinct run errors (each run's: benchmark.md)"
