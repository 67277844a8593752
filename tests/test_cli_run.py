"""Bad input of `skill-eval run` (docs/commands.md#exit-codes, docs/protocol.md, docs/reliability.md),
each fault through the real CLI.

Every fault lives in a small fake adapter written into tmp_path that misbehaves only for the case
``bad`` (unless a ``healed`` file sits next to it); the case ``good`` always answers. For each:
one line naming the problem, exit 2, the good runs finished and stored, nothing cached as
success, ``status`` names the failed runs with "previous attempt failed: ...", and the next run
calls the adapter again for exactly the failed runs. No traceback ever reaches the user.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path

import pytest
from suitekit import Kit

SECRET = "sk-ant-abcdefghijklmnopqrstuvwx"

# The fault goes where FAULT is (indented four spaces); it runs only for case "bad".
ADAPTER = r'''#!/usr/bin/env python3
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
req = json.load(sys.stdin)
cid = req["case"]["id"]
fd = os.open(os.path.join(here, "calls.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, ("%s %s %d\n" % (req["mode"], cid, req["case"]["iteration"])).encode())
os.close(fd)
if cid == "bad" and not os.path.exists(os.path.join(here, "healed")):
FAULT
os.makedirs("outputs", exist_ok=True)
with open(os.path.join("outputs", "made.txt"), "w") as f:
    f.write("made\n")
if not os.path.lexists(os.path.join("outputs", "root")):
    os.symlink("/", os.path.join("outputs", "root"))  # the store drops it: never read through
json.dump({"output": "ok", "events": [], "usage": {"input_tokens": 3}}, sys.stdout)
'''

SUITE = """suite: faults
skills_dir: skills
skills: ["*"]
adapter:
  command: {command}
iterations: 1
jobs: 4
timeout_seconds: {timeout}
max_output_bytes: 1024
store: .skill-eval/store
results: results
"""

PY_ADAPTER = "[python3, -S, adapter.py]"
# One iteration: every fault still hits two runs (one per variant), which is what the grouped
# error lines and the retry counts are about; a second iteration only doubled the adapter calls.
ITERATIONS = (1,)
RUNS = 4  # cases good + bad × 2 variants × 1 iteration
BAD = {(mode, "bad", i) for mode in ("with_skill", "without_skill") for i in ITERATIONS}
ALL = BAD | {(mode, "good", i) for mode in ("with_skill", "without_skill") for i in ITERATIONS}


def _indent(code: str) -> str:
    return "\n".join("    " + line for line in code.strip().splitlines())


def make_project(tmp_path: Path, fault: str = "pass", command: str = PY_ADAPTER, timeout: float = 20,
                 checks: list[dict] | None = None) -> Kit:
    root = tmp_path / "proj"
    skill = root / "skills" / "alpha"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: alpha\ndescription: The alpha skill.\n---\nDo it.\n")
    ok = [{"id": "says-ok", "type": "contains", "value": "ok"}]
    cases = [{"id": "good", "prompt": "Do the good task.", "checks": ok},
             {"id": "bad", "prompt": "Do the bad task.", "checks": checks or ok}]
    (skill / "evals" / "evals.json").write_text(json.dumps({"skill_name": "alpha", "evals": cases}))
    adapter = root / "adapter.py"
    adapter.write_text(ADAPTER.replace("FAULT", _indent(fault)))
    adapter.chmod(adapter.stat().st_mode | stat.S_IXUSR)
    (root / "suite.yaml").write_text(SUITE.format(command=command, timeout=timeout))
    return Kit(root)


def calls(kit: Kit) -> list[tuple[str, str, int]]:
    try:
        lines = (kit.root / "calls.log").read_text().splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        mode, cid, it = line.split()
        out.append((mode, cid, int(it)))
    return out


def no_traceback(*texts: str) -> None:
    for t in texts:
        assert "Traceback" not in t, t


def error_lines(err: str) -> list[str]:
    """The run errors `run` printed: each distinct one once (``N runs could not run: ... (first:
    <run>)``), or ``error in <run>: ...`` for an error only one run had."""
    return [line for line in err.splitlines()
            if line.startswith("skill-eval: error in ")
            or re.match(r"skill-eval: \d+ runs could not run: ", line)]


def error_count(err: str) -> int:
    """How many runs the printed error lines stand for."""
    return sum(int(m.group(1)) if (m := re.match(r"skill-eval: (\d+) runs could not run", line)) else 1
               for line in error_lines(err))


def failed_reasons(kit: Kit) -> dict[str, str]:
    data = kit.status_json()
    return {i["task"]: i["reason"] for i in data["run"]}


def all_bytes(*folders: Path) -> bytes:
    return b"".join(p.read_bytes() for f in folders for p in sorted(f.rglob("*")) if p.is_file())


def check_fault(kit: Kit, expected: str, heal) -> tuple[str, str]:
    """The contract every fault shares; returns the first run's (stdout, stderr)."""
    code, out, err = kit.run()
    no_traceback(out, err)
    assert code == 2, out + err

    # Each distinct error once, with how many runs it hit, naming a run and the problem.
    lines = error_lines(err)
    assert error_count(err) == len(BAD), err
    for line in lines:
        assert "\n" not in line and "agent:alpha/bad/" in line
        assert expected in line, line

    # Every adapter call was made; the good runs finished, are stored and graded.
    assert sorted(calls(kit)) == sorted(ALL)
    assert len(kit.stored_runs()) == RUNS - len(BAD)
    for mode in ("with_skill", "without_skill"):
        for i in ITERATIONS:
            grading = kit.results / "alpha" / f"iteration-{i}" / "eval-good" / mode / "grading.json"
            assert json.loads(grading.read_text())["passed"] is True
    bench = json.loads((kit.results / "alpha" / "benchmark.json").read_text())
    assert bench["verdict"] == "error"
    rows = {c["id"]: c for c in bench["cases"]}
    assert rows["bad"]["with_skill"]["errors"] == len(ITERATIONS) and rows["bad"]["with_skill"]["graded"] == 0
    assert "error" in rows["bad"]["flags"] and "error" not in rows["good"]["flags"]
    assert rows["good"]["with_skill"]["pass_rate"] == 1.0
    assert all(expected in m for m in rows["bad"]["with_skill"]["error_messages"])

    # Nothing cached as success: status plans exactly the failed runs, and says why.
    reasons = failed_reasons(kit)
    assert sorted(reasons) == sorted(f"agent:alpha/bad/{m}/default/{i}" for m, _, i in BAD)
    for reason in reasons.values():
        assert reason.startswith("previous attempt failed: ") and expected in reason
    code_s, out_s, err_s = kit.status()
    no_traceback(out_s, err_s)
    assert out_s.count("previous attempt failed: ") == len(BAD)

    # Still broken: the next run retries exactly the failed runs, and fails the same way.
    (kit.root / "calls.log").unlink()
    code2, out2, err2 = kit.run()
    no_traceback(out2, err2)
    assert code2 == 2
    assert sorted(calls(kit)) == sorted(BAD)
    assert error_count(err2) == len(BAD)

    # Fixed: exactly the failed runs again, then nothing.
    (kit.root / "calls.log").unlink()
    heal()
    code3, out3, err3 = kit.run()
    no_traceback(out3, err3)
    assert code3 == 0, out3 + err3
    assert sorted(calls(kit)) == sorted(BAD)
    assert error_lines(err3) == []
    assert len(kit.stored_runs()) == RUNS
    assert failed_reasons(kit) == {}
    (kit.root / "calls.log").unlink()
    code4, out4, err4 = kit.run()
    assert code4 == 0 and calls(kit) == []
    return out, err


def heal_file(kit: Kit):
    return lambda: (kit.root / "healed").write_text("")


# ---- faults of the response and the process -----------------------------------------------------

RESPONSE_FAULTS = {
    "stdout-not-json": ('print("I could not do it, sorry")\nsys.exit(0)',
                        "adapter stdout is not JSON"),
    "empty-stdout": ("sys.exit(0)", "adapter printed nothing on stdout"),
    "json-not-object": ('print("[1, 2, 3]")\nsys.exit(0)',
                        "adapter response must be a JSON object, got list"),
    "extra-fields": ('json.dump({"output": "ok", "result": "ok", "cost": 1}, sys.stdout)\nsys.exit(0)',
                     "adapter response has unknown field(s) cost, result"),
    "no-output": ('json.dump({"events": []}, sys.stdout)\nsys.exit(0)',
                  "adapter response has no 'output' field"),
    "output-not-string": ('json.dump({"output": 42}, sys.stdout)\nsys.exit(0)',
                          "adapter response 'output' must be a string, got int"),
    "event-without-type": ('json.dump({"output": "ok", "events": [{"name": "alpha"}]}, sys.stdout)\n'
                           "sys.exit(0)", "events[0].type must be a non-empty string"),
    "event-not-object": ('json.dump({"output": "ok", "events": ["skill_loaded"]}, sys.stdout)\nsys.exit(0)',
                         "events[0] must be an object, got str"),
    "events-not-list": ('json.dump({"output": "ok", "events": {"type": "x"}}, sys.stdout)\nsys.exit(0)',
                        "adapter response 'events' must be a list, got dict"),
    "usage-string": ('json.dump({"output": "ok", "usage": {"input_tokens": "12"}}, sys.stdout)\nsys.exit(0)',
                     'usage.input_tokens must be a number, got "12"'),
    "usage-not-object": ('json.dump({"output": "ok", "usage": [1]}, sys.stdout)\nsys.exit(0)',
                         "adapter response 'usage' must be an object, got list"),
    # Output past max_output_bytes is not an error but an unscorable run: tests/test_unscorable.py
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RESPONSE_FAULTS))
def test_bad_response(tmp_path, name):
    fault, expected = RESPONSE_FAULTS[name]
    kit = make_project(tmp_path, fault)
    check_fault(kit, expected, heal_file(kit))


@pytest.mark.slow
def test_nonzero_exit_is_reported_with_redacted_stderr(tmp_path):
    fault = (f'sys.stderr.write("auth failed for key {SECRET} (check ANTHROPIC_API_KEY)\\n")\n'
             "sys.exit(4)")
    kit = make_project(tmp_path, fault)
    out, err = check_fault(kit, "adapter command exited with status 4 | stderr: auth failed for key",
                           heal_file(kit))
    assert SECRET not in out + err
    assert all("[REDACTED:api-key]" in line for line in error_lines(err))
    assert SECRET.encode() not in all_bytes(kit.store, kit.results)


@pytest.mark.slow
def test_redacted_error_is_what_is_stored(tmp_path):
    fault = f'sys.stderr.write("token={SECRET}\\n")\nsys.exit(5)'
    kit = make_project(tmp_path, fault)
    code, out, err = kit.run()
    assert code == 2
    stored = [json.loads(p.read_text()) for p in kit.store.glob("errors/**/*.json")]
    assert len(stored) == len(BAD)
    for e in stored:
        assert e["kind"] == "exit" and "exited with status 5" in e["message"]
        assert SECRET not in e["message"] and "[REDACTED:token]" in e["message"]
    bench = (kit.results / "alpha" / "benchmark.json").read_text()
    assert "exited with status 5" in bench and SECRET not in bench
    junit = (kit.results / "junit.xml").read_text()
    assert SECRET not in junit
    assert SECRET.encode() not in all_bytes(kit.store, kit.results)
    for reason in failed_reasons(kit).values():
        assert SECRET not in reason and "[REDACTED:token]" in reason


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")  # a zombie nobody reaped yet is dead
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@pytest.mark.slow
def test_timeout_kills_the_adapter_and_its_children(tmp_path):
    # The bad case's adapter becomes a shell that leaves a grandchild behind and never answers.
    fault = ('os.execvp("sh", ["sh", "-c", "sleep 30 & echo $! >> %s; sleep 30" % '
             'os.path.join(here, "pids")])')
    kit = make_project(tmp_path, fault, timeout=2)
    start = time.monotonic()
    check_fault(kit, "adapter command timed out after 2s (raise timeout_seconds in the suite if it "
                "needs longer)", heal_file(kit))
    assert time.monotonic() - start < 25  # two runs of timeouts, not 30 s sleeps
    # Both attempts at the bad case's faulty runs (4 adapter processes) left a `sleep 30` each; none outlived
    # its run (a leaked one would still be sleeping now).
    children = [int(p) for p in (kit.root / "pids").read_text().split()]
    assert len(children) == 2 * len(BAD)
    deadline = time.monotonic() + 3
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in children if _alive(p)], "a child of a timed-out adapter outlived the run"


# ---- the adapter cannot start at all: every run fails, none is stored ------------------------------

def _check_cannot_start(kit: Kit, expected: str, heal) -> None:
    code, out, err = kit.run()
    no_traceback(out, err)
    assert code == 2, out + err
    lines = error_lines(err)
    assert error_count(err) == RUNS
    assert all(expected in line for line in lines), err
    assert kit.stored_runs() == []
    reasons = failed_reasons(kit)
    assert len(reasons) == RUNS
    assert all(r.startswith("previous attempt failed: ") and expected in r for r in reasons.values())
    code, out, err = kit.run()  # still broken: all retried, still nothing stored
    no_traceback(out, err)
    assert code == 2 and error_count(err) == RUNS and kit.stored_runs() == []
    heal()
    (kit.root / "healed").write_text("")
    code, out, err = kit.run()
    no_traceback(out, err)
    assert code == 0, out + err
    assert sorted(calls(kit)) == sorted(ALL)
    assert len(kit.stored_runs()) == RUNS


@pytest.mark.slow
def test_adapter_not_found(tmp_path):
    # A path that is not there is the suite's problem (issue 23): one line naming the suite file and
    # the path as written, exit 2, nothing run or stored; once the file is there, everything runs.
    kit = make_project(tmp_path, command="[./no-such-adapter.py]")
    code, out, err = kit.run()
    no_traceback(out, err)
    assert code == 2, out + err
    [line] = err.strip().splitlines()
    assert "adapter.command: './no-such-adapter.py' not found" in line and "skill-eval-ws-" not in line
    assert kit.stored_runs() == [] and calls(kit) == []
    (kit.root / "adapter.py").rename(kit.root / "no-such-adapter.py")
    code, out, err = kit.run()
    assert code == 0, out + err
    assert len(kit.stored_runs()) == RUNS


@pytest.mark.slow
def test_adapter_not_executable(tmp_path):
    kit = make_project(tmp_path, command="[./adapter.py]")
    script = kit.root / "adapter.py"
    script.chmod(0o644)
    _check_cannot_start(kit, "is not executable; run 'chmod +x", lambda: script.chmod(0o755))


@pytest.mark.slow
def test_adapter_without_shebang(tmp_path):
    kit = make_project(tmp_path, command="[./adapter.py]")
    script = kit.root / "adapter.py"
    text = script.read_text()
    script.write_text(text.split("\n", 1)[1])
    _check_cannot_start(kit, "cannot be executed (no '#!' line or wrong format)",
                        lambda: script.write_text(text))


# ---- a check that tries to leave the run's outputs ---------------------------------------------

def test_file_exists_escaping_outputs_is_refused_before_any_run(tmp_path):
    """'..' and absolute paths are visible in the eval set itself: invalid input, exit 2, no call."""
    checks = [{"id": "dotdot", "type": "file_exists", "path": "../x"},
              {"id": "absolute", "type": "file_exists", "path": str(tmp_path / "proj" / "adapter.py")},
              {"id": "inside", "type": "file_exists", "path": "made.txt"}]
    kit = make_project(tmp_path, checks=checks)
    code, out, err = kit.run()
    no_traceback(out, err)
    assert code == 2, out + err
    assert "file_exists path '../x' leaves the run's workspace" in err
    absolute = str(tmp_path / "proj" / "adapter.py")
    assert "file_exists path '" + absolute + "' leaves the run's workspace" in err
    assert calls(kit) == [] and kit.stored_runs() == []
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2 and "leaves the run's workspace" in err


@pytest.mark.slow
def test_file_exists_through_a_symlink_fails_with_evidence(tmp_path):
    """A symlink out of outputs/ is only seen when the check runs: the check fails with evidence."""
    checks = [{"id": "symlink", "type": "file_exists", "path": "outputs/root/etc/hostname"},
              {"id": "inside", "type": "file_exists", "path": "outputs/made.txt"}]
    kit = make_project(tmp_path, checks=checks)
    code, out, err = kit.run()
    no_traceback(out, err)
    assert code == 1, out + err  # a with-skill check failed; no adapter error
    assert error_lines(err) == []
    assert len(kit.stored_runs()) == RUNS
    for mode in ("with_skill", "without_skill"):
        for i in ITERATIONS:
            g = json.loads((kit.results / "alpha" / f"iteration-{i}" / "eval-bad" / mode / "grading.json")
                           .read_text())
            assert g["passed"] is False
            by_id = {c["id"]: c for c in g["checks"]}
            assert by_id["symlink"]["passed"] is False
            assert by_id["symlink"]["evidence"] == "outputs/root/etc/hostname does not exist"
            assert by_id["inside"]["passed"] is True, by_id["inside"]
    bench = json.loads((kit.results / "alpha" / "benchmark.json").read_text())
    assert bench["verdict"] == "fail"
    assert kit.status_json()["run"] == []  # a failed check is a result, not an error: cached
    (kit.root / "calls.log").unlink()
    code, out, err = kit.run()
    assert code == 1 and calls(kit) == []


# ---- the same through a real `skill-eval` process -------------------------------------------------

@pytest.mark.slow
def test_real_process_exit_code_and_one_line_errors(tmp_path):
    kit = make_project(tmp_path, f'sys.stderr.write("denied: {SECRET}\\n")\nsys.exit(9)')
    proc = kit.subprocess("run", "suite.yaml")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, out + err
    assert "Traceback" not in out + err and SECRET not in out + err
    [line] = error_lines(err)  # one fault, one line: its count and the first run it hit
    assert line.startswith(f"skill-eval: {len(BAD)} runs could not run: ")
    assert re.search(r"\(first: agent:alpha/bad/\w+/default/1\)$", line)
    assert "adapter command exited with status 9 | stderr: denied: [REDACTED:api-key]" in line
    proc = kit.subprocess("status", "suite.yaml")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out.count("previous attempt failed: adapter command exited with "
                                              "status 9") == len(BAD)


def test_only_matching_nothing_says_so_and_shows_the_pattern_shape(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    for cmd in (kit.run, kit.status):
        code, out, err = cmd("--only", "nope/*")
        assert code == 2 and "Traceback" not in err
        assert "--only 'nope/*' matches no run" in err and "skill/case/arm/model/iteration" in err
    assert kit.calls() == 0


def test_missing_default_suite_names_the_default_and_how_to_name_one(tmp_path):
    kit = Kit.create(tmp_path, iterations=1)
    for args in (["run"], ["status"], ["report"], ["validate"]):
        code, out, err = kit.cli(*args)
        assert code == 2
        assert ("no SUITE given, and neither default (skill-eval.yaml, then configs/demo.yaml) exists"
                in err)
        assert f"skill-eval {args[0]} path/to/suite.yaml" in err


def test_an_internal_error_never_exits_1(tmp_path):
    # CI scripts read 1 as "a check failed" (`|| test $? -eq 1`): a crash must not look like it.
    import subprocess
    import sys

    code = ("import sys, skill_eval.cli.commands as c\n"
            "def boom(args): raise RuntimeError('a bug')\n"
            "c.cmd_status = boom\n"
            "sys.argv = ['skill-eval', 'status', 'x.yaml']\n"
            "from skill_eval.cli.main import entry\nentry()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert proc.returncode == 3
    assert proc.stderr.rstrip().splitlines()[-1].startswith("skill-eval: internal error (a bug")
