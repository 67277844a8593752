"""One story across the commands (issue 55), each item through the CLI as a newcomer meets it:
the README's demo edited and reverted, `init`, a garbage adapter, two runs on one store, a real
expected_output-only eval set with a judge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from suitekit import Kit

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def demo(tmp_path: Path) -> Kit:
    """The shipped demo suite, copied so the test writes nothing into the repository."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "demo.yaml").write_text((ROOT / "configs" / "demo.yaml").read_text())
    return Kit(tmp_path)


def _first_line(out: str) -> str:
    return out.splitlines()[0]


def test_status_run_and_json_count_the_same_work_after_an_edit_and_a_revert(demo: Kit):
    code, out, err = demo.cli("run", "configs/demo.yaml")
    assert code == 0, err
    skill = demo.root / "examples" / "skills" / "release-notes" / "SKILL.md"
    original = skill.read_text()
    for text in (original.replace("description: ", "description: (edited) ", 1), original):
        skill.write_text(text)
        code, status, err = demo.cli("status", "configs/demo.yaml")
        assert code == 0, err
        said = status.splitlines()[-1].split("; estimated cost")[0]
        counts = json.loads(demo.cli("status", "--json", "configs/demo.yaml")[1])["counts"]
        rebuild_lines = [line for line in status.splitlines() if line.startswith("rebuild ")]
        assert counts["rebuild"] == len(rebuild_lines)  # the count is the lines above it
        explained = json.loads(demo.cli("status", "configs/demo.yaml", "--explain",
                                        "agent:release-notes/only-added/with_skill/default/1")[1])
        # compared with the entry that would be used now: after the revert, the stored one
        assert explained["compared"]["differs"] == ([] if text == original else ["skill"])
        code, out, err = demo.cli("run", "configs/demo.yaml")
        assert code == 0, err
        assert _first_line(out) == said  # `run` starts with the line `status` ended with
        assert said == (f"demo: {counts['planned']} runs planned, {counts['to_run']} to run, "
                        f"{counts['regrade']} to re-grade, {counts['rebuild']} tables to rebuild")
        assert counts["planned"] == 78
    assert counts["to_run"] == 0 and counts["rebuild"] == 2  # the revert's runs are stored


def test_an_adapter_that_logs_to_stdout_is_said_once_with_its_count_and_the_fix(tmp_path: Path):
    from skill_eval.cli.subcommands.init import init_project

    init_project(tmp_path, skill="notes")
    adapter = tmp_path / "adapter.py"
    logs_first = "import sys\nprint('Loading model...')\n"  # a log line before the JSON
    adapter.write_text(adapter.read_text().replace("import sys\n", logs_first, 1))
    code, out, err = Kit(tmp_path).cli("run", "skill-eval.yaml")
    assert code == 2
    lines = [line for line in err.splitlines() if "not JSON" in line]
    assert len(lines) == 1, err  # 18 runs, one fault, one line
    [line] = lines
    assert line.startswith("skill-eval: 18 runs could not run: adapter command 'python3 adapter.py': "
                           "adapter stdout is not JSON")
    assert "print only its JSON response on stdout and log everything else to stderr" in line
    assert "(first: agent:notes/" in line
    # each run's own message stays in benchmark.md
    bench = json.loads((tmp_path / "results" / "notes" / "benchmark.json").read_text())
    assert sum(len(c["with_skill"]["error_messages"]) for c in bench["cases"]) == 9
