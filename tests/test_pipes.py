"""`skill-eval ... | head`: a reader that goes away costs no traceback and no work."""

from __future__ import annotations

import os

import pytest
from suitekit import Kit

from skill_eval.cli.pipes import ReaderSafe


def test_a_closed_pipe_drops_output_instead_of_raising():
    r, w = os.pipe()
    stream = os.fdopen(w, "w")
    os.close(r)
    safe = ReaderSafe(stream)
    assert safe.write("x" * 100_000) == 100_000
    safe.flush()
    assert safe.reader_gone
    assert safe.write("more\n") == 5
    safe.flush()
    stream.close()  # the descriptor now points at /dev/null: closing flushes nothing that fails


def _closed_early(kit: Kit, *args: str) -> tuple[int, str]:
    proc = kit.subprocess(*args)
    proc.stdout.close()  # as `| head` does once it has its lines
    err = proc.stderr.read()
    return proc.wait(timeout=300), err


@pytest.mark.slow
def test_run_into_a_closed_pipe_finishes_and_keeps_its_exit_code(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)  # 6 runs: each adapter call is a process
    code, err = _closed_early(kit, "run", "suite.yaml")
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert code == 0  # the verdict, not 141: the suite passed and every run was done
    assert kit.calls() == 6 and (kit.results / "index.html").is_file()
    kit.reset()
    assert kit.run()[1].startswith("Up to date")  # the fast-path state was saved too


@pytest.mark.slow
def test_failing_verdict_into_a_closed_pipe_still_exits_1(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    kit.edit_case("alpha", "a1", checks=[{"id": "never", "type": "contains", "value": "zzz"}])
    kit.write_suite(iterations=1, extra="minimum_lift: 0.9\n")
    code, err = _closed_early(kit, "run", "suite.yaml")
    assert code == 1 and "Traceback" not in err, err


@pytest.mark.slow
def test_report_into_a_closed_pipe(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    assert kit.run()[0] == 0
    code, err = _closed_early(kit, "report", "suite.yaml", "--format", "html")
    assert code == 0 and err == "", err
