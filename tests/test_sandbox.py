"""``adapter: {sandbox: bwrap}``: what an adapter can see and touch, with and without the sandbox.

Needs bubblewrap (`apt-get install bubblewrap`, which .ci/run does) and a kernel that lets it
create namespaces; elsewhere these tests are skipped with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from suitekit import Kit

from skill_eval.run import sandbox


def _need_bwrap() -> None:
    try:
        sandbox.require()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap cannot run here: {exc}")


# Tries four things a sandboxed agent must not do; reports each as ok/denied and answers anyway.
PROBE = r'''#!/usr/bin/env python3
import json, os, sys
req = json.load(sys.stdin)
paths = json.loads(__PATHS__)
def attempt(fn):
    try:
        fn()
        return "ok"
    except OSError as exc:
        return "denied"
def write(path):
    with open(path, "w") as f:
        f.write("escaped\n")
got = {
    "read_home": attempt(lambda: open(paths["home_secret"]).read()),
    "list_other_workspace": attempt(lambda: os.listdir(paths["other_workspace"])),
    "write_outside": attempt(lambda: write(paths["outside"])),
    "write_skill_source": attempt(lambda: write(paths["skill_source"])),
    "write_workspace": attempt(lambda: write(os.path.join(req["workspace"], "outputs", "mine.txt"))),
    "home": os.environ["HOME"], "home_entries": sorted(os.listdir(os.environ["HOME"])),
}
json.dump({"output": json.dumps(got), "events": [], "usage": {}}, sys.stdout)
'''


@pytest.fixture
def planted(tmp_path):
    """A secret in the real HOME, another run's workspace, and targets outside the workspace."""
    secret = Path.home() / f".skill-eval-sandbox-probe-{uuid.uuid4().hex}"
    secret.write_text("user secret\n")
    other = Path(tempfile.mkdtemp(prefix=f"skill-eval-ws-{os.getpid()}-other-"))
    (other / "outputs").mkdir()
    (other / "outputs" / "theirs.txt").write_text("another run\n")
    outside = Path.home() / f".skill-eval-sandbox-escaped-{uuid.uuid4().hex}"
    yield {"home_secret": str(secret), "other_workspace": str(other), "outside": str(outside)}
    secret.unlink(missing_ok=True)
    outside.unlink(missing_ok=True)
    shutil.rmtree(other, ignore_errors=True)


def _kit(tmp_path: Path, planted: dict[str, str], extra: str) -> Kit:
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    paths = {**planted, "skill_source": str(kit.skill_dir("alpha") / "pwned.txt")}
    (kit.root / "probe.py").write_text(PROBE.replace("__PATHS__", repr(json.dumps(paths))))
    kit.edit_case("alpha", "a1", checks=[{"id": "ran", "type": "contains", "value": "write_workspace"}])
    suite = kit.suite.read_text().replace("command: [python3, -S, adapter.py]",
                                          "command: [python3, -S, probe.py]" + extra)
    kit.suite.write_text(suite)
    return kit


def _outputs(kit: Kit) -> dict[str, dict[str, object]]:
    found = {}
    for resp in kit.store.glob("runs/*/*/response.json"):
        meta = json.loads((resp.parent / "meta.json").read_text())
        found[meta["variant"]] = json.loads(json.loads(resp.read_text())["output"])
    return found


def test_sandbox_denies_what_the_unsandboxed_adapter_can_do(tmp_path, planted):
    _need_bwrap()
    open_kit = _kit(tmp_path / "open", planted, "")
    code, out, err = open_kit.run()
    assert code == 0, out + err
    for got in _outputs(open_kit).values():  # without the sandbox every attempt succeeds
        assert {k: got[k] for k in ("read_home", "list_other_workspace", "write_outside",
                                    "write_skill_source")} == dict.fromkeys(
            ("read_home", "list_other_workspace", "write_outside", "write_skill_source"), "ok")
    assert (open_kit.skill_dir("alpha") / "pwned.txt").exists()
    Path(planted["outside"]).unlink()

    boxed = _kit(tmp_path / "boxed", planted, "\n  sandbox: bwrap")
    code, out, err = boxed.run()
    assert code == 0, out + err  # the run completes: the adapter answered
    runs = _outputs(boxed)
    assert set(runs) == {"with_skill", "without_skill"}
    for got in runs.values():
        assert got["read_home"] == "denied"
        assert got["list_other_workspace"] == "denied"
        assert got["write_outside"] == "denied"
        assert got["write_skill_source"] == "denied"
        assert got["write_workspace"] == "ok"
        assert got["home_entries"] == [] and "/home" in str(got["home"])  # HOME: empty, in the workspace
    assert not Path(planted["outside"]).exists()
    assert not (boxed.skill_dir("alpha") / "pwned.txt").exists()
    bench = json.loads(boxed.bench("alpha").read_text())
    assert bench["variants"]["with_skill"]["passed"] == 1  # graded like any run


def test_sandbox_is_part_of_the_run_key(tmp_path):
    from test_hashing import GOLDEN, SLOT, keys

    kit = Kit.create(tmp_path)
    assert keys(kit)[SLOT] == GOLDEN  # unsandboxed: the key every user already has
    kit.write_suite(iterations=3)
    kit.suite.write_text(kit.suite.read_text().replace("adapter.py]", "adapter.py]\n  sandbox: bwrap"))
    boxed = keys(kit)[SLOT]
    # If this changes, every sandboxed result is invalidated: bump it only on purpose.
    assert boxed == "1b2ebed9cc6f3edaeeb04416ec7b6c8d3fef5474f00211929202fcf5cabe52b1"
    kit.suite.write_text(kit.suite.read_text().replace("sandbox: bwrap", "sandbox: bwrap\n  network: none"))
    assert keys(kit)[SLOT] not in (GOLDEN, boxed)


def test_missing_bwrap_refuses_the_run_in_one_line(tmp_path, monkeypatch):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    monkeypatch.setattr(sandbox, "_bwrap", lambda: None)
    code, out, err = kit.run("--sandbox", "bwrap")
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "apt-get install bubblewrap" in lines[0], err
    assert kit.calls() == 0 and kit.stored_runs() == []  # never run unsandboxed


def test_run_flag_sandboxes_a_suite_without_the_key(tmp_path):
    _need_bwrap()
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    kit.suite.write_text(kit.suite.read_text().replace("adapter.py]", "probe.py]"))
    (kit.root / "probe.py").write_text(
        "import json, os, sys\njson.load(sys.stdin)\n"
        f"seen = os.path.exists({str(kit.suite)!r})\n"
        'out = "with_skill " + json.dumps({"suite_visible": seen})\n'
        'json.dump({"output": out, "events": []}, sys.stdout)\n')
    code, out, err = kit.run("--sandbox", "bwrap")
    assert code == 0, out + err
    outputs = [json.loads(p.read_text())["output"] for p in kit.store.glob("runs/*/*/response.json")]
    assert outputs and all('"suite_visible": false' in o for o in outputs)


def test_network_none_has_no_network(tmp_path):
    _need_bwrap()
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    port = server.getsockname()[1]
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    (kit.root / "net.py").write_text(textwrap.dedent(f'''\
        import json, socket, sys
        json.load(sys.stdin)
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
            got = "reached"
        except OSError:
            got = "unreachable"
        json.dump({{"output": "with_skill " + got, "events": []}}, sys.stdout)
    '''))
    suite = kit.suite.read_text().replace("adapter.py]", "net.py]\n  sandbox: bwrap\n  network: {net}")
    results = {}
    try:
        for net in ("host", "none"):
            kit.suite.write_text(suite.format(net=net) if "{net}" in suite else suite)
            code, out, err = kit.run()
            assert code == 0, out + err
            results[net] = {json.loads(p.read_text())["output"]
                            for p in kit.store.glob("runs/*/*/response.json")}
    finally:
        server.close()
    assert results["host"] == {"with_skill reached"}
    assert results["none"] - results["host"] == {"with_skill unreachable"}


def _with_marker(marker: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            pass
    return found


def test_sandboxed_stragglers_die_with_their_run(tmp_path):
    _need_bwrap()
    marker = f"{300 + (os.getpid() % 97)}.{uuid.uuid4().int % 1000}"
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    (kit.root / "spawn.py").write_text(textwrap.dedent(f'''\
        import json, os, subprocess, sys
        json.load(sys.stdin)
        subprocess.Popen(["sleep", "{marker}"], start_new_session=True)   # setsid: left the group
        env = {{k: v for k, v in os.environ.items() if k != "SKILL_EVAL_RUN"}}
        subprocess.Popen(["sleep", "{marker}"], env=env, start_new_session=True)  # and the token
        json.dump({{"output": "with_skill done", "events": []}}, sys.stdout)
    '''))
    kit.suite.write_text(kit.suite.read_text().replace("adapter.py]", "spawn.py]\n  sandbox: bwrap"))
    code, out, err = kit.run()
    assert code == 0, out + err
    time.sleep(0.2)
    assert _with_marker(marker) == []


@pytest.mark.slow
def test_real_claude_runs_both_arms_in_the_sandbox(tmp_path, capsys, monkeypatch):
    """The npm Claude Code CLI, sandboxed, against the scripted model server on 127.0.0.1."""
    _need_bwrap()
    from fakemodel import FakeModel, Script
    from realcli import SKILL, Project, claude_yaml, cli, skills_loaded

    exe = cli("claude")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    with FakeModel(Script(), lifetime=300) as model:
        project = Project(tmp_path, claude_yaml(exe, model.url) + "  sandbox: bwrap\n", iterations=1)
        code, out, _ = project.run(capsys)
    assert code == 0, out
    runs = {meta["variant"]: (meta, resp) for meta, resp in project.responses()}
    assert set(runs) == {"with_skill", "without_skill"}
    assert skills_loaded(runs["with_skill"][1]) == [SKILL] and "42" in runs["with_skill"][1]["output"]
    assert skills_loaded(runs["without_skill"][1]) == [] and "42" not in runs["without_skill"][1]["output"]
    for meta, _ in runs.values():
        assert meta["limits"]["sandbox"]["kind"] == "bwrap"


def test_a_builtin_adapter_runs_sandboxed(tmp_path):
    """The demo builtin (python -m skill_eval..., its recordings beside the skills), sandboxed."""
    _need_bwrap()
    examples = Path(__file__).resolve().parents[1] / "examples"
    shutil.copytree(examples, tmp_path / "examples")
    suite = tmp_path / "examples" / "suite.yaml"
    suite.write_text("suite: demo\nskills_dir: skills\nskills: ['*']\n"
                     "adapter: {builtin: demo, sandbox: bwrap}\niterations: 1\n"
                     "store: .store\nresults: results\n")
    from skill_eval.cli.main import main

    assert main(["run", str(suite)]) in (0, 1)  # graded (pass or fail), not adapter errors
    metas = [json.loads(p.read_text()) for p in (tmp_path / "examples" / ".store").glob("runs/*/*/meta.json")]
    assert metas and all(m["limits"]["sandbox"]["kind"] == "bwrap" for m in metas)
    assert not list((tmp_path / "examples" / ".store").glob("errors/**/*.json"))


def test_a_sandboxed_adapter_that_hangs_times_out(tmp_path):
    _need_bwrap()
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    (kit.root / "hang.py").write_text("import subprocess, sys, time\nsys.stdin.read()\n"
                                      "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
                                      "time.sleep(300)\n")
    suite = kit.suite.read_text().replace("adapter.py]", "hang.py]\n  sandbox: bwrap")
    kit.suite.write_text(suite.replace("timeout_seconds: 30", "timeout_seconds: 1"))
    start = time.monotonic()
    code, out, err = kit.run()
    assert code == 2 and "timed out after 1s" in out + err
    assert time.monotonic() - start < 20


def test_killing_skill_eval_kills_the_sandbox(tmp_path):
    """kill -9 of skill-eval: --die-with-parent takes the sandbox, and the adapter's whole pid
    namespace (a setsid child too) with it, at once; no later run is needed to clean up."""
    _need_bwrap()
    import signal

    marker = f"{400 + (os.getpid() % 97)}.{uuid.uuid4().int % 1000}"
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    (kit.root / "hang.py").write_text(
        "import subprocess, sys, time\nsys.stdin.read()\n"
        f"subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n"
        f"subprocess.run(['sleep', '{marker}'])\n")
    kit.suite.write_text(kit.suite.read_text().replace("adapter.py]", "hang.py]\n  sandbox: bwrap"))
    env = {**os.environ, "SKILL_EVAL_NO_CGROUP": "1"}  # the sandbox alone, not the cgroup, must do it
    proc = kit.subprocess("run", "suite.yaml", env=env)
    try:
        deadline = time.monotonic() + 60
        while len(_with_marker(marker)) < 4 and time.monotonic() < deadline:  # 2 runs x 2 sleeps
            time.sleep(0.1)
        assert len(_with_marker(marker)) >= 2, "the sandboxed adapters never started"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while _with_marker(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _with_marker(marker) == []
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _with_marker(marker):
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)


def test_a_ray_worker_sandboxes_its_adapter(tmp_path, planted, monkeypatch):
    """The same probe, executed by a local Ray worker (run/remote.py wraps it with the
    worker's own paths)."""
    _need_bwrap()
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed here (pip install 'skill-eval[ray]'): not tested")
    for k, v in {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    boxed = _kit(tmp_path, planted, "\n  sandbox: bwrap")
    code, out, err = boxed.run("--executor", "ray")
    assert code == 0, out + err
    runs = _outputs(boxed)
    assert set(runs) == {"with_skill", "without_skill"}
    for got in runs.values():
        assert (got["read_home"], got["list_other_workspace"], got["write_outside"]) == ("denied",) * 3
        assert got["write_skill_source"] == "denied" and got["write_workspace"] == "ok"
    assert not Path(planted["outside"]).exists()
