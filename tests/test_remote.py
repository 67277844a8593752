"""A run split across machines (run/shipment.py + run/remote.py), without Ray: pack on the
driver, run_job as a worker would (from the bytes alone), finish on the driver. The stored
entry must be the one a local run stores."""

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from skill_eval.model.cases import Check
from skill_eval.model.results import RunError, RunResult
from skill_eval.run.remote import RemoteOutcome, finish, run_job
from skill_eval.run.runner import execute
from skill_eval.run.shipment import Packer, read_blobs
from skill_eval.store.store import Store

ECHO = """#!/usr/bin/env python3
import json, os, pathlib, sys
req = json.load(sys.stdin)
ws = pathlib.Path(req["workspace"])
seen = sorted(str(p.relative_to(ws)) for p in ws.rglob("*") if p.is_file())
data = (ws / "inputs" / "data.txt").read_bytes().hex()
pathlib.Path("outputs/sub").mkdir(parents=True)
pathlib.Path("outputs/sub/answer.md").write_text("kept " + req["mode"])
pathlib.Path("outputs/run.sh").write_text("#!/bin/sh\\n")
os.chmod("outputs/run.sh", 0o755)
pathlib.Path(req["session"]).write_text('{"type":"result","result":"kept"}')  # kept too
sys.stderr.write("token=sk-ant-abcdefgh12345678 used\\n")
print(json.dumps({"output": json.dumps({"seen": seen, "data": data, "mode": req["mode"],
                  "skill": req["skill"], "files": req["files"], "home_in_ws":
                  os.environ["HOME"].startswith(req["workspace"])}),
                  "events": [{"type": "skill_loaded", "name": "demo-skill"}] if req["skill"] else [],
                  "usage": {"input_tokens": 7, "cost_usd": 0.01}}))
"""


def _entry(store: Store, key: str) -> dict[str, bytes]:
    root = store.run_dir(key)
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "timing.json" and p.name != "COMPLETE.json"}


def _remote(spec, suite, store):
    job, sources = Packer().pack(spec, suite)
    return finish(spec, suite, store, job, run_job(job, read_blobs(sources)))


@pytest.mark.slow
def test_remote_run_stores_what_a_local_run_stores(run_setup, write_adapter, tmp_path):
    suite, spec = run_setup([write_adapter(ECHO, "echo.py")])
    local, remote = Store(tmp_path / "local"), Store(tmp_path / "remote")
    for arm in ("with_skill", "without_skill"):
        s = spec(arm)
        a, b = execute(s, suite, local), _remote(s, suite, remote)
        assert isinstance(a, RunResult) and isinstance(b, RunResult), (a, b)
        assert a.response == b.response  # grading sees the same, unredacted response
        seen = json.loads(b.output)
        assert seen["home_in_ws"] and seen["data"] == b"fixture \x00 bytes\r\n".hex()
        assert ("skills/demo-skill/SKILL.md" in seen["seen"]) == (arm == "with_skill")
        assert not any("evals" in p for p in seen["seen"])
        ea, eb = _entry(local, s.key), _entry(remote, s.key)
        ea["meta.json"] = eb["meta.json"] = b""  # compared apart: same replay key
        assert ea == eb
        assert local.get_meta(s.key) == remote.get_meta(s.key)
        assert b"sk-ant-abcdefgh" not in eb["stderr.txt"] and b"[REDACTED:" in eb["stderr.txt"]
        assert remote.get_run(s.key) is not None  # the manifest verifies
        assert eb["session.jsonl"] == b'{"type":"result","result":"kept"}'  # the session comes back


def test_the_worker_needs_nothing_of_the_drivers_files(run_setup, write_adapter, tmp_path):
    """Packed, then every source file removed: the job still runs from its bytes alone."""
    script = write_adapter(ECHO, "echo.py")
    suite, spec = run_setup(["python3", str(script)])
    s = spec("with_skill")
    job, sources = Packer().pack(s, suite)
    blobs = read_blobs(sources)
    assert [p for p in job.argv if p[0] == "file"] == [("file", "adapter/echo.py")]
    script.unlink()
    shutil.rmtree(s.skill_path)
    outcome = run_job(job, blobs)
    assert outcome.proc is not None and outcome.proc.returncode == 0, outcome
    assert {k.rel for k in outcome.kept} == {"outputs/sub/answer.md", "outputs/run.sh"}
    assert b"sk-ant-abcdefgh" not in outcome.proc.stderr  # redacted before it leaves the worker


def test_the_job_carries_no_grading_material(run_setup, write_adapter):
    suite, spec = run_setup([write_adapter(ECHO, "echo.py")])
    s = spec()
    s = replace(s, case=replace(s.case, expected_output="the answer",
                                checks=(Check("c", "contains", params={"value": "secret-check"}),)))
    job, _ = Packer().pack(s, suite)
    assert job.spec.case.expected_output == "" and job.spec.case.checks == ()
    assert job.spec.case.prompt == s.case.prompt


def test_bytes_that_do_not_match_their_hash_are_a_workspace_error(run_setup, write_adapter, tmp_path):
    suite, spec = run_setup([write_adapter(ECHO, "echo.py")])
    s = spec()
    job, sources = Packer().pack(s, suite)
    blobs = read_blobs(sources)
    sha = next(iter(blobs))
    outcome = run_job(job, {**blobs, sha: b"tampered"})
    assert outcome.error_kind == "workspace" and "do not match" in outcome.error_message
    store = Store(tmp_path / "store")
    err = finish(s, suite, store, job, outcome)
    assert isinstance(err, RunError) and err.kind == "workspace"
    assert store.get_error(s.key) is not None and not store.has_run(s.key)


def test_driver_refuses_an_answer_for_another_run_or_a_damaged_file(run_setup, write_adapter, tmp_path):
    suite, spec = run_setup([write_adapter(ECHO, "echo.py")])
    s = spec()
    job, sources = Packer().pack(s, suite)
    outcome = run_job(job, read_blobs(sources))
    store = Store(tmp_path / "store")
    wrong = finish(s, suite, store, job, replace(outcome, key="0" * 64))
    assert isinstance(wrong, RunError) and wrong.kind == "worker" and not store.has_run(s.key)
    damaged = replace(outcome, kept=tuple(replace(k, data=b"x") for k in outcome.kept))
    err = finish(s, suite, store, job, damaged)
    assert isinstance(err, RunError) and "did not arrive whole" in err.message
    assert not store.has_run(s.key)
    assert isinstance(finish(s, suite, store, job, outcome), RunResult) and store.has_run(s.key)


def test_adapter_faults_on_the_worker_are_the_same_errors(run_setup, write_adapter, tmp_path):
    suite, spec = run_setup([write_adapter("#!/bin/sh\nsleep 5\n", "slow.sh")], timeout_seconds=0.3)
    store = Store(tmp_path / "store")
    err = _remote(spec(), suite, store)
    assert isinstance(err, RunError) and err.kind == "timeout"
    suite, spec = run_setup([str(tmp_path / "missing-adapter")])
    job, sources = Packer().pack(spec(), suite)
    outcome = run_job(job, read_blobs(sources))
    assert isinstance(outcome, RemoteOutcome) and outcome.error_kind == "not_found"


def test_unreadable_fixture_is_a_workspace_error_on_the_driver(run_setup, write_adapter):
    suite, spec = run_setup([write_adapter(ECHO, "echo.py")])
    s = spec()
    Path(s.case.fixtures[0].source).unlink()
    try:
        Packer().pack(s, suite)
    except Exception as exc:  # noqa: BLE001
        assert type(exc).__name__ == "AdapterError" and "could not be read" in str(exc)
    else:
        raise AssertionError("pack should refuse a missing fixture")


def test_a_file_changed_after_hashing_is_refused(run_setup, write_adapter):
    suite, spec = run_setup([write_adapter(ECHO, "echo.py")])
    s = spec()
    job, sources = Packer().pack(s, suite)
    Path(s.case.fixtures[0].source).write_bytes(b"edited since")
    try:
        read_blobs(sources)
    except Exception as exc:  # noqa: BLE001
        assert type(exc).__name__ == "AdapterError" and "changed while the suite was running" in str(exc)
    else:
        raise AssertionError("bytes that no longer match their hash must not be sent")


def test_an_ablation_arm_runs_remotely_on_the_ablated_copy(run_setup, write_adapter, tmp_path):
    from skill_eval.model.ablation.parts import AblatedSkill

    suite, spec = run_setup([write_adapter(ECHO, "echo.py")])
    ablated = AblatedSkill("no-guide", ("references/guide.md",), frozenset({"references/guide.md"}),
                           (("SKILL.md", b"---\nname: demo-skill\ndescription: A demo.\n---\n"),))
    s = replace(spec("ablation:no-guide"), ablation=ablated)
    local, remote = Store(tmp_path / "local"), Store(tmp_path / "remote")
    a, b = execute(s, suite, local), _remote(s, suite, remote)
    assert isinstance(a, RunResult) and isinstance(b, RunResult), (a, b)
    seen = json.loads(b.output)["seen"]
    assert "skills/demo-skill/SKILL.md" in seen and "skills/demo-skill/references/guide.md" not in seen
    assert json.loads(a.output)["seen"] == seen


def test_adapter_depends_files_travel_with_the_job(run_setup, write_adapter, tmp_path):
    from skill_eval.model.config import AdapterConfig

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "outcomes.json").write_text('{"x": 1}')
    script = write_adapter(ECHO, "echo.py")
    suite, spec = run_setup([script])
    suite = replace(suite, adapter=replace(suite.adapter, depends=("data/*.json",)))
    assert isinstance(suite.adapter, AdapterConfig)
    job, sources = Packer().pack(spec(), suite)
    assert "adapter/data/outcomes.json" in {f.dest for f in job.files}
