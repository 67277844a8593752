"""Hostile input end to end (issue 14): names that try to leave results/, names too long for a
file system, text no encoder accepts. Each must end in a one-line message or be stored safely;
never a traceback, never a file outside the suite's store and results."""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from suitekit import Kit, case

from skill_eval.cli.main import main
from skill_eval.fs.safenames import MAX_COMPONENT_BYTES, path_component


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_a_case_id_with_dotdot_stays_inside_results(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    kit.write_evals("alpha", [case("x/../../../escaped"), case("a1")])
    before = files_under(tmp_path)
    code, out, err = kit.run()
    assert code in (0, 1), err
    assert "Traceback" not in err
    for fmt in ("skill-creator", "agentskills"):
        code, out, err = kit.cli("export", "suite.yaml", "--format", fmt)
        assert code == 0 and "Traceback" not in err, err
    new = files_under(tmp_path) - before
    outside = [p for p in new if not p.startswith(("proj/results/", "proj/.skill-eval/", "proj/calls.log"))
               and p not in ("proj/results", "proj/.skill-eval", "proj/calls.log")]
    assert not outside, outside
    folder = kit.results / "alpha" / "iteration-1" / f"eval-{path_component('x/../../../escaped')}"
    assert json.loads((folder / "case.json").read_text())["id"] == "x/../../../escaped"


def test_a_300_character_case_id_still_gets_its_tables(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    long_id = "case-" + "x" * 295
    kit.write_evals("alpha", [case(long_id), case("a1")])
    code, out, err = kit.run()
    assert code in (0, 1), err
    assert "Traceback" not in err and "too long" not in err
    assert kit.bench("alpha").is_file()
    assert (kit.results / "summary.md").is_file()
    folders = [p.name for p in (kit.results / "alpha" / "iteration-1").iterdir()]
    assert all(len(f.encode()) <= MAX_COMPONENT_BYTES + len("eval-") for f in folders)
    assert len(folders) == 2


def test_ids_that_collide_after_mapping_are_refused_by_validate(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    taken = path_component("a/b")
    kit.write_evals("alpha", [case("a/b"), case(taken)])
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2
    assert f"is written to the same folder '{taken}' as 'a/b'; rename one of them" in err
    assert "Traceback" not in err


def test_model_names_with_separators_stay_inside_results(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]}, extra="models: [m1, ../../up]\n")
    before = files_under(tmp_path)
    code, out, err = kit.run()
    assert code in (0, 1), err
    new = files_under(tmp_path) - before
    assert all(p.startswith(("proj/results", "proj/.skill-eval", "proj/calls.log")) for p in new), new
    assert (kit.results / "alpha" / path_component("../../up") / "benchmark.json").is_file()


def test_validate_refuses_bad_json_schemas_and_warns_on_nested_quantifiers(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    checks = [{"type": "json_schema", "schema": {"type": 5}},
              {"type": "json_schema", "schema": {"$ref": "file:///etc/passwd"}},
              {"type": "json_schema", "schema": {"$ref": "#"}},
              {"type": "regex", "pattern": "^(a+)+$"}]
    kit.write_evals("alpha", [dict(case(f"c{i}"), checks=[c]) for i, c in enumerate(checks)])
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2
    assert "Traceback" not in err
    assert "json_schema check: invalid JSON Schema at type" in err
    assert "json_schema check: schema $ref 'file:///etc/passwd' points outside the schema" in err
    assert "json_schema check: the schema refers to itself in a loop" in err
    assert ("warning: evals[3].checks[0]: regex pattern '^(a+)+$' repeats a group that holds "
            "a repetition") in out


_ODD_ADAPTER = r'''#!/usr/bin/env python3
import json, sys
req = json.load(sys.stdin)
kind = req["prompt"].split(":")[0].removeprefix("Task ")
if kind == "surrogate":
    sys.stdout.write('{"output": "with_skill says \\ud83d", "events": [{"type": "t\\udc00"}], '
                     '"usage": {"k\\ud800": 1}}')
elif kind == "deep":
    sys.stdout.write('{"output": "x", "usage": ' + "[" * 100000 + "]" * 100000 + "}")
elif kind == "nan":
    sys.stdout.write('{"output": "with_skill", "usage": {"cost_usd": NaN}}')
elif kind == "nul":
    sys.stdout.write(json.dumps({"output": "with_skill\u0000\u0007\u001b[31m"}))
else:
    sys.stdout.write(json.dumps({"output": "with_skill"}))
'''


@pytest.mark.slow
def test_odd_adapter_output_is_kept_or_an_adapter_error_and_tables_are_built(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    (kit.root / "adapter.py").write_text(_ODD_ADAPTER)
    kit.write_evals("alpha", [case(c) for c in ("surrogate", "deep", "nan", "nul", "plain")])
    code, out, err = kit.run()
    assert "Traceback" not in err and "Traceback" not in out
    assert code == 2, (out, err)  # the deep and NaN responses are adapter errors
    assert "nests JSON too deeply" in err or "nests JSON too deeply" in out
    assert kit.bench("alpha").is_file() and (kit.results / "summary.md").is_file()
    run = kit.results / "alpha" / "iteration-1" / "eval-surrogate" / "with_skill"
    assert (run / "output.txt").read_text("utf-8") == "with_skill says \ufffd"
    grading = json.loads((run / "grading.json").read_text("utf-8"))
    assert grading["passed"] is True
    nul = kit.results / "alpha" / "iteration-1" / "eval-nul" / "with_skill" / "output.txt"
    assert nul.read_text("utf-8") == "with_skill\x00\x07\x1b[31m"
    assert (kit.results / "alpha" / "iteration-1" / "eval-deep" / "with_skill" / "error.json").is_file()


def test_a_lone_surrogate_in_an_eval_set_is_one_line_with_its_place(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    kit.write_evals("alpha", [dict(case("a1"), prompt="hi \ud83d there")])
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err
    assert ("evals.json:6:7: " in err and "evals[0].prompt: contains a lone surrogate (\\ud83d" in err), err
    code, out, err = kit.run()
    assert code == 2 and "Traceback" not in err


@pytest.mark.slow
def test_deeply_nested_eval_set_and_suite_are_one_line(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    evals = kit.skill_dir("alpha") / "evals" / "evals.json"
    evals.write_text('{"evals": [{"id": "a", "prompt": "p", "x": ' + "[" * 50000 + "]" * 50000 + "}]}")
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err
    assert "nested more than 100 levels deep" in err
    evals.write_text('{"evals": [{"id": "a", "prompt": "p", "x": ' + "[" * 500 + "]" * 500 + "}]}")
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err
    assert "evals[0].x" in err and "nested more than 100 levels deep" in err
    kit.suite.write_text(kit.suite.read_text() + "extra: " + "[" * 3000 + "]" * 3000 + "\n")
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err
    assert "nested more than 100 levels deep" in err


@pytest.mark.slow
def test_ctrl_c_stops_a_run_stuck_on_a_backtracking_regex(tmp_path):
    # Grading runs in worker threads; a regex match that never returns kept them, and with them
    # the whole run, alive after Ctrl-C. Each search now ends within its time limit.
    import signal
    import subprocess
    import time

    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []}, extra="variants: [with_skill]\n")
    (kit.root / "adapter.py").write_text("import json, sys\nsys.stdin.read()\n"
                                         "print(json.dumps({'output': 'x' * 5000}))\n")
    checks = [{"id": f"slow-{i}", "type": "regex", "pattern": "(x+x+)+y"} for i in range(30)]
    kit.write_evals("alpha", [dict(case("a1"), checks=checks)])
    child = kit.subprocess("run", "suite.yaml")
    deadline = time.monotonic() + 30
    while not kit.stored_runs() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # the run is stored: its 30 slow checks are being graded now
    assert kit.stored_runs(), child.communicate()
    time.sleep(0.3)
    child.send_signal(signal.SIGINT)
    try:
        out, err = child.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail("skill-eval run ignored Ctrl-C while grading a backtracking regex")
    assert child.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("args", [("--max-cost", "nan"), ("--max-cost", "inf"), ("--max-cost", "-1"),
                                  ("--iterations", "0"), ("--iterations", "-3"), ("-j", "0"),
                                  ("--iterations", "1000000000"), ("-j", "100000")])  # issue 20: caps
def test_command_line_numbers_must_be_finite_and_positive(tmp_path, args):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    err = io.StringIO()
    # argparse refuses them: SystemExit(2), which the console script turns into exit status 2.
    with pytest.raises(SystemExit) as exited, contextlib.redirect_stderr(err):
        main(["run", str(kit.suite), *args])
    assert exited.value.code == 2
    err = err.getvalue()
    assert f"argument {args[0]}" in err or "argument -j/--jobs" in err
    assert "Traceback" not in err
    assert kit.calls() == 0


def test_validate_checks_every_pattern_an_eval_set_supplies(tmp_path):
    # issue 20: trace and json_schema patterns are compiled and judged like regex checks, and the
    # risk test is structural: overlapping alternatives warn as nested repetition does.
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    checks = [{"type": "command_ran", "pattern": "^(a|a)+$"},
              {"type": "json_schema", "schema": {"properties": {"x": {"pattern": "^(a+)+$"}}}},
              {"type": "tool_call", "order": ["Read", "(x|x)*y"]},
              {"type": "command_order", "patterns": ["ok", "(("]}]
    kit.write_evals("alpha", [dict(case(f"c{i}"), checks=[c]) for i, c in enumerate(checks)])
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err
    assert ("warning: evals[0].checks[0]: command_ran pattern '^(a|a)+$' repeats a choice whose "
            "alternatives can match the same text") in out
    assert "warning: evals[1].checks[0]: json_schema schema pattern '^(a+)+$' repeats a group" in out
    assert "warning: evals[2].checks[0]: tool_call order '(x|x)*y' repeats a choice" in out
    errors = [line for line in err.splitlines() if "command_order patterns '(('" in line]
    assert len(errors) == 1 and "does not compile" in errors[0], err


_SHOUTING_ADAPTER = r'''import sys
sys.stdin.read()
sys.stderr.write("boom\x1b]52;c;aGVsbG8=\x07\x1b]0;owned\x07\r\x1b[2Kforged line\u202e\n")
sys.exit(3)
'''


def test_terminal_control_characters_from_adapters_are_escaped_by_run_and_status(tmp_path):
    # issue 20: stderr with ESC/BEL/CR reached the terminal raw (clipboard via OSC 52, title, erased
    # and forged lines). Each is printed as a visible escape.
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]}, extra="variants: [with_skill]\n")
    (kit.root / "adapter.py").write_text(_SHOUTING_ADAPTER)
    code, out, err = kit.run()
    assert code == 2, err
    line = next(line for line in err.splitlines() if "exited with status 3" in line)
    assert "\\x1b]52;c;" in line and "\\x07" in line and "\\x0d" in line and "\\u202e" in line
    code, out, err = kit.status()
    assert "previous attempt failed" in out and "boom\\x1b]52;c;" in out
    for text in (out, err):
        assert not any(c in text for c in "\x1b\x07\r\u202e"), text


@contextlib.contextmanager
def _never_blocked(fifos: list[Path], what: str) -> Iterator[None]:
    """A failure, not a hang, when the block reads a FIFO: after a deadline a watchdog opens each
    FIFO for writing and closes it, which gives a blocked reader end of file and lets the block
    return. The command runs in-process in the test's main thread (where a run's signal handlers
    go); only the watchdog is a thread."""
    done = threading.Event()
    blocked: list[bool] = []

    def watch() -> None:
        if done.wait(60):
            return
        blocked.append(True)
        while not done.wait(0.1):
            for fifo in fifos:
                try:
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass  # no reader on this one (yet)

    watchdog = threading.Thread(target=watch, daemon=True)
    watchdog.start()
    try:
        yield
    finally:
        done.set()
        watchdog.join()
    if blocked:
        pytest.fail(f"skill-eval blocked on a FIFO {what}")


def _unblocked(kit: Kit, command: str, where: str, fifos: list[Path]) -> tuple[int, str]:
    """``skill-eval COMMAND suite.yaml``'s exit code and stderr; a failure if it blocks."""
    with _never_blocked(fifos, where):
        code, _, err = kit.cli(command, "suite.yaml")
    return code, err


@pytest.mark.slow
@pytest.mark.parametrize("where", ["pipe.md", "evals/pipe.json", "evals/notes.txt", "fixture"])
def test_a_fifo_in_a_skill_or_as_a_fixture_is_one_line_and_blocks_nothing(tmp_path, where):
    # issue 20: validate passed and run/status blocked forever reading the FIFO.

    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    if where == "fixture":
        (kit.skill_dir("alpha") / "evals" / "files").mkdir(parents=True, exist_ok=True)
        fifo = kit.skill_dir("alpha") / "evals" / "files" / "input.csv"
        os.mkfifo(fifo)
        kit.write_evals("alpha", [case("a1", fixture="input.csv")])
    else:
        fifo = kit.skill_dir("alpha") / where
        os.mkfifo(fifo)
    for command in ("validate", "status", "run"):
        code, err = _unblocked(kit, command, f"at {where}", [fifo])
        assert code == 2 and "Traceback" not in err, (command, err)
        lines = [line for line in err.splitlines() if "FIFO" in line]
        # One line per finding: the skill folder's, and the fixture's when a case names it.
        assert 1 <= len(lines) <= 2 and all("not a file" in line for line in lines), (command, err)
    assert kit.calls() == 0


@pytest.mark.slow
def test_a_fifo_beside_an_eval_set_outside_the_skill_is_never_opened(tmp_path):
    # issue 20: an eval set kept outside its skill (skills: [{name, evals}]) with a FIFO beside
    # it. Only the listed file is read and fixtures must sit in the skill, so nothing blocks.

    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    shared = kit.root / "shared-evals"
    shared.mkdir()
    (kit.skill_dir("alpha") / "evals" / "evals.json").rename(shared / "alpha.json")
    os.mkfifo(shared / "pipe.json")
    os.mkfifo(shared / "notes.txt")
    suite = (kit.root / "suite.yaml").read_text().replace(
        'skills: ["*"]', "skills:\n  - name: alpha\n    evals: [../../shared-evals/alpha.json]")
    (kit.root / "suite.yaml").write_text(suite)
    for command in ("validate", "status", "run"):
        code, err = _unblocked(kit, command, "beside the eval set",
                               [shared / "pipe.json", shared / "notes.txt"])
        assert code == 0 and "Traceback" not in err, (command, err)
    assert kit.calls() == 2


def test_a_skill_md_linked_from_outside_is_refused(tmp_path):
    # issue 20: validate passed, the with-skill arm got no SKILL.md, and edits to the target
    # re-ran nothing.
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    skill_md = kit.skill_dir("alpha") / "SKILL.md"
    outside = tmp_path / "elsewhere.md"
    outside.write_text(skill_md.read_text())
    skill_md.unlink()
    skill_md.symlink_to(outside)
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err
    assert f"SKILL.md is a link to {outside.resolve()}, outside the skill folder" in err
    # A link that stays inside the folder is followed (and copied) as before.
    (kit.skill_dir("alpha") / "docs").mkdir()
    inside = kit.skill_dir("alpha") / "docs" / "real.md"
    inside.write_text(outside.read_text())
    skill_md.unlink()
    skill_md.symlink_to("docs/real.md")
    assert kit.cli("validate", "suite.yaml")[0] == 0


def test_a_suite_name_too_long_for_a_file_name_is_one_line(tmp_path):
    # issue 20: a 250-character name passed validate and gave ENAMETOOLONG tracebacks.
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    kit.suite.write_text(kit.suite.read_text().replace("suite: kit", "suite: " + "s" * 250))
    for command in ("validate", "run", "status"):
        code, out, err = kit.cli(command, "suite.yaml")
        assert code == 2 and "Traceback" not in err, err
        [line] = [line for line in err.splitlines() if "suite" in line]
        assert line == "suite.yaml:1:1: suite: is 250 characters long; the maximum is 100: shorten it"


def test_ids_differing_only_in_case_or_normalisation_are_refused_by_validate(tmp_path):
    # issue 20: they share a folder on macOS and Windows.
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    kit.write_evals("alpha", [case("Case-1"), case("case-1"), case("caf\u00e9"), case("cafe\u0301"),
                              case("other")])
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err
    lines = [line for line in err.splitlines() if "only in case or Unicode normalisation" in line]
    assert len(lines) == 2, err
    assert "'case-1' differs from 'Case-1'" in lines[0]


def test_duplicate_keys_in_a_json_eval_set_are_refused(tmp_path):
    # issue 20: two "evals" silently kept only the last (3 of 4 cases dropped); YAML refuses them.
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    evals = kit.skill_dir("alpha") / "evals" / "evals.json"
    one, rest = json.dumps([case("a1"), case("a2"), case("a3")]), json.dumps([case("a4")])
    evals.write_text('{\n  "evals": ' + one + ',\n  "evals": ' + rest + "\n}\n")
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err
    [line] = [line for line in err.splitlines() if "duplicate key" in line]
    assert line.endswith('evals.json:3: duplicate key "evals": JSON would keep only the last one and '
                         "silently drop the other; merge them or rename one")


def test_an_adapter_argument_naming_a_folder_is_not_walked_and_validate_says_use_depends(tmp_path):
    # issue 20: an argument naming / was walked on every run (a 14 s no-op).
    from skill_eval.engine.fastpath import watch_files

    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    data = kit.root / "data"
    (data / "deep").mkdir(parents=True)
    (data / "deep" / "a.json").write_text("{}")
    assert watch_files(("python3", str(data)), []) == [str(data)]
    kit.suite.write_text(kit.suite.read_text().replace("adapter.py]", "adapter.py, data]"))
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 0, err
    assert ("suite.yaml: warning: adapter.command[3] 'data' is a folder: skill-eval neither looks inside "
            "it nor re-runs when a file there changes; list the files the adapter reads in adapter.depends "
            "(e.g. depends: [data/*.json])") in out


@pytest.mark.slow
def test_a_prompt_holding_a_cookie_header_leaves_every_results_file_readable(tmp_path):
    # Redaction ran a cookie header "to the end of the line": inside JSON that took the string's
    # closing quote with it, so case.json and the review page's one-line data stopped parsing.
    import json
    import re

    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1", "a2"]})
    evals = kit.evals("alpha")["evals"]
    evals[0]["prompt"] = "Debug this request. Cookie: session=abc123; theme=dark\nWhat is wrong?"
    kit.write_evals("alpha", evals)
    code, _, err = kit.run()
    assert code in (0, 1), err
    for path in kit.results.rglob("*.json"):
        text = path.read_text("utf-8")
        assert "abc123" not in text, path
        json.loads(text)
    page = (kit.results / "index.html").read_text("utf-8")
    data = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', page, re.S).group(1)
    cases = [c["id"] for s in json.loads(data)["skills"] for c in s["cases"]]
    assert sorted(cases) == ["a1", "a2"] and "abc123" not in page


# Fifth pass (issue 54): the claude plugin eval reader gets the native readers' guards.

def _plugin(tmp_path: Path, files: dict[str, str] | None = None):  # noqa: ANN202
    from pluginkit import PluginKit

    return PluginKit.create(tmp_path, {"a": {"prompt.md": "Go.\n", **(files or {})}})


@pytest.mark.parametrize("bad", ["prompt.md", "case.yaml", "graders/g.md", "graders: 5", "graders/x.md"])
def test_a_broken_plugin_case_is_one_line_from_validate_run_and_inspect(tmp_path, bad):
    # issue 54: each was a traceback and exit 3.
    kit = _plugin(tmp_path)
    case = kit.root / "evals" / "a"
    if bad == "graders: 5":
        (case / "case.yaml").write_text('schema_version: "1.1"\ngraders: 5\n')
    elif bad == "graders/x.md":
        (case / "graders" / "x.md").mkdir()
    else:
        (case / bad).write_bytes(b"---\nname: a\n---\nGo \xff\n")
    for args in (("validate", str(kit.suite)), ("run", str(kit.suite)), ("inspect", str(kit.root / "evals"))):
        code, out, err = kit.cli(*args)
        assert code == 2 and "Traceback" not in err, (args, err)
        lines = [ln for ln in (out + err).splitlines() if "evals/a/" in ln]
        assert len(lines) == 1 and (bad.split(":")[0] in lines[0]), (args, out + err)
    assert kit.requests() == []


@pytest.mark.slow
@pytest.mark.parametrize("where", ["evals/a/graders/g.md", ".claude-plugin/plugin.json", ".mcp.json",
                                   "/dev/zero:.mcp.json", "/dev/stdin:evals/a/graders/g.md"])
def test_a_fifo_or_device_in_a_plugin_blocks_nothing_and_is_one_line(tmp_path, where):
    # issue 54: validate, run and status blocked forever reading it.
    import subprocess
    import sys

    kit = _plugin(tmp_path)
    target, _, rel = where.rpartition(":")
    (kit.root / rel).unlink(missing_ok=True)
    if target:
        (kit.root / rel).symlink_to(target)
    else:
        os.mkfifo(kit.root / rel)
    for command in ("validate", "status", "run"):
        if target:
            # A device: reading it would never end (or eat the test's stdin), so in a child process
            # that the test can kill, with a pipe for its stdin.
            child = subprocess.Popen([sys.executable, "-m", "skill_eval.cli.main", command, "suite.yaml"],
                                     cwd=kit.root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            try:
                _, err = child.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
                child.communicate()
                pytest.fail(f"skill-eval {command} blocked on {where}")
            code = child.returncode
        else:
            with _never_blocked([kit.root / rel], f"at {where}"):
                code, _, err = kit.cli(command, str(kit.suite))
        assert code == 2 and "Traceback" not in err, (command, err)
        [line] = [ln for ln in err.splitlines() if rel in ln]
        assert "not a file: reading it could block or never end" in line, (command, err)
    assert kit.requests() == []


@pytest.mark.parametrize("where", ["suite", "evals.json", "count"])
def test_a_number_of_thousands_of_digits_is_one_line(tmp_path, where):
    # issue 54: Python's int-string conversion limit raised a ValueError traceback, exit 3.
    big = "9" * 5000
    if where == "count":
        kit = _plugin(tmp_path, {"graders/g.md": f"---\ntype: regex\npattern: ok\nmatch: count:{big}\n---\n"})
        code, out, err = kit.cli("validate", str(kit.suite))
    else:
        kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
        if where == "suite":
            (kit.root / "suite.yaml").write_text((kit.root / "suite.yaml").read_text() + f"seed: {big}\n")
        else:
            evals = kit.skill_dir("alpha") / "evals" / "evals.json"
            evals.write_text(evals.read_text().replace('"evals"', f'"x": {big}, "evals"', 1))
        code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "Traceback" not in err, err
    [line] = [ln for ln in err.splitlines() if "5,000 digits" in ln]
    assert "at most 1,000" in line
