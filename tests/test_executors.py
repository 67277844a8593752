"""Executors: the same suite under ``threads`` and ``ray`` (a local Ray started by skill-eval, and
a two-node cluster on this machine addressed by RAY_ADDRESS); a lost worker; Ctrl-C.

Ray is kept small (2 CPUs a node, 100 MB object stores, no dashboard, no usage stats) and every
cluster's process groups are killed in teardown.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from suitekit import Kit

RAY_MISSING = importlib.util.find_spec("ray") is None
needs_ray = pytest.mark.skipif(RAY_MISSING, reason="ray is not installed here (pip install "
                                                   "'skill-eval[ray]'): the ray executor is not tested")

# Logs to KIT_DIR (an allow-listed variable, so the driver's value travels with each job): the
# adapter itself runs from the job folder a worker made, not from the suite's folder.
ADAPTER = r'''#!/usr/bin/env python3
import json, os, sys, time
d = os.environ["KIT_DIR"]
started = time.time()
req = json.load(sys.stdin)
try:
    ctl = json.load(open(os.path.join(d, "control.json")))
except OSError:
    ctl = {}
def log(name, text):
    fd = os.open(os.path.join(d, name), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, text.encode())
    os.close(fd)
worker = os.getppid()
try:  # the worker's parent: the raylet of the node this run landed on
    node = open("/proc/%d/stat" % worker).read().rsplit(")", 1)[1].split()[1]
except OSError:
    node = "?"
log("calls.log", "%s\t%s\t%s\n" % (req["mode"], req["prompt"], node))
log("pids.log", "%d\n" % os.getpid())
if ctl.get("victim") and ctl["victim"] in req["prompt"]:
    try:
        fd = os.open(os.path.join(d, "victim.pid"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        fd = None
    if fd is not None:
        os.write(fd, str(worker).encode())
        os.close(fd)
        log("victim.adapter", "%d\t%s\n" % (os.getpid(), os.getcwd()))
        deadline = time.time() + 60
        while time.time() < deadline and (ctl.get("linger") or os.getppid() == worker):
            time.sleep(0.05)  # lingering: an adapter that outlives its worker unless it is killed
        sys.exit(9)
time.sleep(float(ctl.get("sleep", 0)))
ws = req["workspace"]
inputs = "|".join(open(os.path.join(ws, f["path"])).read().strip() for f in req["files"])
skill = sorted(os.path.relpath(os.path.join(r, n), ws) for r, _, ns in os.walk(os.path.join(ws, "skills"))
               for n in ns)
os.makedirs("outputs/sub", exist_ok=True)
open("outputs/sub/kept.txt", "w").write(req["mode"] + " " + req["prompt"])
out = "%s says: %s [%s] %s" % (req["mode"], req["prompt"], inputs, ",".join(skill))
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if req["skill"] else []
log("spans.log", "%f\t%f\n" % (started, time.time()))
json.dump({"output": out, "events": events, "usage": {"input_tokens": 10, "output_tokens": 5}},
          sys.stdout)
'''

SUITE = """suite: kit
skills_dir: skills
skills: ["*"]
adapter:
  command: [python3, -S, adapter.py]
  env: [KIT_DIR]
iterations: 2
jobs: 4
timeout_seconds: 60
store: .skill-eval/store
results: results
{extra}"""

RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


def make_kit(tmp_path: Path, name: str = "proj", extra: str = "") -> Kit:
    kit = Kit.create(tmp_path, name=name)
    (kit.root / "suite.yaml").write_text(SUITE.format(extra=extra))
    (kit.root / "adapter.py").write_text(ADAPTER)
    return kit


def lines(kit: Kit, name: str = "calls.log") -> list[list[str]]:
    try:
        return [line.split("\t") for line in (kit.root / name).read_text().splitlines()]
    except FileNotFoundError:
        return []


def most_at_once(kit: Kit) -> int:
    """The most adapters that were running at the same moment."""
    edges = sorted((float(t), step) for start, end in lines(kit, "spans.log")
                   for t, step in ((start, 1), (end, -1)))
    now = peak = 0
    for _, step in edges:
        now += step
        peak = max(peak, now)
    return peak


def tables(kit: Kit) -> dict[str, object]:
    """Every benchmark.json, timings left out (they differ run to run, whatever the executor)."""
    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("time_s", "duration_s", "timing")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return {str(p.relative_to(kit.results)): strip(json.loads(p.read_text()))
            for p in sorted(kit.results.rglob("benchmark.json"))}


def entries(kit: Kit) -> dict[str, bytes]:
    """Each stored run's response and kept files, by run key."""
    out = {}
    for key in kit.stored_runs():
        d = kit.store / "runs" / key[:2] / key
        for p in sorted(d.rglob("*")):
            if p.is_file() and p.name in ("response.json", "kept.txt"):
                out[f"{key}/{p.relative_to(d)}"] = p.read_bytes()
    return out


@pytest.fixture
def ray_env(monkeypatch):
    for k, v in RAY_ENV.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)


def _ray_cli() -> str:
    local = Path(sys.executable).with_name("ray")
    return str(local) if local.exists() else (shutil.which("ray") or "ray")


def _kill_cluster(temp: str, *groups: int) -> None:
    """Kill a cluster's process groups, then its workers (each in a session of its own), known by
    the cluster's temp dir on their command line."""
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if temp.encode() in (proc / "cmdline").read_bytes():
                os.kill(int(proc.name), signal.SIGKILL)
        except (OSError, ValueError):
            pass


@pytest.fixture(scope="module")
def cluster():
    """A head node and a second worker node on this machine (2 CPUs, 100 MB store each)."""
    if RAY_MISSING:
        pytest.skip("ray is not installed here (pip install 'skill-eval[ray]')")
    temp = tempfile.mkdtemp(prefix="se-ray-", dir="/tmp")  # short: Ray's socket paths must fit
    env = {**os.environ, **RAY_ENV}
    env.pop("RAY_ADDRESS", None)
    small = ["--num-cpus=2", "--object-store-memory=100000000", "--disable-usage-stats"]
    # Each node in a process group of its own: its daemons (GCS, raylet, workers) stay in the
    # group of the `ray start` that spawned them, so teardown kills exactly this cluster, at once
    # (`ray stop` takes 5-20 s and stops every Ray on the machine, another test's too).
    head = subprocess.Popen([_ray_cli(), "start", "--head", "--port=0", "--node-ip-address=127.0.0.1",
                             "--include-dashboard=false", f"--temp-dir={temp}", *small],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    worker = None
    try:
        _, head_err = head.communicate(timeout=180)
        assert head.returncode == 0, head_err[-2000:]
        port = (Path(temp) / "ray_current_cluster").read_text().strip().rsplit(":", 1)[1]
        address = f"127.0.0.1:{port}"
        worker = subprocess.Popen([_ray_cli(), "start", f"--address={address}", "--block", *small],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                  start_new_session=True)
        # One throw-away driver waits for both nodes: a driver's start costs seconds of CPU, so it
        # connects once and asks again until the second node has joined.
        wait_both = (f"import ray, time; ray.init(address={address!r}, logging_level='ERROR'); "
                     "deadline = time.monotonic() + 120\n"
                     "while sum(n['Alive'] for n in ray.nodes()) < 2 and time.monotonic() < deadline:\n"
                     "    time.sleep(0.2)\n"
                     "print(sum(n['Alive'] for n in ray.nodes()))")
        probe = subprocess.run([sys.executable, "-c", wait_both], capture_output=True, text=True,
                               env=env, timeout=180)
        assert probe.stdout.strip() == "2", probe.stderr[-2000:]
        yield address
    finally:
        _kill_cluster(temp, head.pid, *([worker.pid] if worker is not None else []))
        if worker is not None:
            worker.wait()
        shutil.rmtree(temp, ignore_errors=True)


# ---- without Ray ------------------------------------------------------------------------------
def test_missing_ray_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    for mod in [m for m in sys.modules if m.startswith("skill_eval.engine.executors.ray_tasks")]:
        monkeypatch.delitem(sys.modules, mod)
    kit = make_kit(tmp_path)
    code, out, err = kit.run("--executor", "ray")
    assert code == 2
    assert err.strip().splitlines() == ["skill-eval: the ray executor needs Ray: install skill-eval[ray] "
                                        "(pip install 'skill-eval[ray]')"]
    assert kit.stored_runs() == [] and lines(kit) == []


def test_executor_key_is_checked(tmp_path):
    kit = make_kit(tmp_path, extra="executor: {ray: {adress: auto}}\n")
    code, _, err = kit.run()
    assert code == 2 and "unknown key 'adress' (did you mean 'address'?)" in err
    kit = make_kit(tmp_path, name="p2", extra="executor: rya\n")
    code, _, err = kit.run()
    assert code == 2 and "executor" in err and "Traceback" not in err


# ---- local Ray ----------------------------------------------------------------------------------
@needs_ray
def test_same_results_under_threads_and_local_ray(tmp_path, ray_env, monkeypatch):
    threads = make_kit(tmp_path, "threads")
    raykit = make_kit(tmp_path, "ray", extra="executor: {ray: {num_cpus_per_run: 0.5}}\n")
    monkeypatch.setenv("KIT_DIR", str(threads.root))
    t_code, t_out, t_err = threads.run()
    monkeypatch.setenv("KIT_DIR", str(raykit.root))
    r_code, r_out, r_err = raykit.run()
    assert (t_code, r_code) == (0, 0), (t_err, r_err)
    assert "12 to run" in r_out and "0 errors" in r_out
    assert len(lines(raykit)) == len(lines(threads)) == 12
    assert threads.stored_runs() == raykit.stored_runs()  # the same keys
    assert entries(threads) == entries(raykit)  # the same responses and kept files
    assert tables(threads) == tables(raykit) and tables(raykit)
    # Nothing left to do, whichever executor is asked; status is the executor's business of none.
    code, out, _ = raykit.run("--executor", "threads")
    assert code == 0 and "Up to date" in out and len(lines(raykit)) == 12


# ---- a cluster ----------------------------------------------------------------------------------
@needs_ray
def test_cluster_by_ray_address_uses_both_nodes(tmp_path, cluster, ray_env, monkeypatch):
    kit = make_kit(tmp_path)
    kit.control(sleep=0.5)
    monkeypatch.setenv("KIT_DIR", str(kit.root))
    monkeypatch.setenv("RAY_ADDRESS", cluster)
    code, out, err = kit.run("--executor", "ray", "-j", "3")
    assert code == 0, err
    calls = lines(kit)
    assert len(calls) == 12
    assert len({c[2] for c in calls}) == 2, calls  # runs landed on both nodes' raylets
    assert 2 <= most_at_once(kit) <= 3  # -j bounds the runs in flight (the cluster has 4 CPUs)
    reference = make_kit(tmp_path, "reference")
    monkeypatch.setenv("KIT_DIR", str(reference.root))
    assert reference.run()[0] == 0
    assert tables(reference) == tables(kit) and entries(reference) == entries(kit)


@needs_ray
def test_lost_worker_is_an_error_its_adapter_and_job_folder_go_and_only_its_run_is_redone(
        tmp_path, cluster, ray_env):
    # One scenario, both promises (a second Ray driver and its workers would cost seconds of CPU
    # and check nothing more). The victim lingers: an adapter that outlives its worker unless it is
    # killed. Issue 20: such an adapter kept running past its timeout and skill-eval's exit, and
    # its /tmp/skill-eval-job-* folder (unredacted files) was never removed.
    kit = make_kit(tmp_path)
    kit.control(victim="Task a2", linger=True)
    env = {**os.environ, "KIT_DIR": str(kit.root), "RAY_ADDRESS": cluster}
    proc = subprocess.Popen([sys.executable, "-m", "skill_eval.cli.main", "run", "suite.yaml",
                             "--executor", "ray", "-j", "4"], cwd=kit.root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pidfile, adapter = kit.root / "victim.pid", kit.root / "victim.adapter"
    deadline = time.monotonic() + 120
    while not pidfile.exists() or not pidfile.read_text() or not adapter.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    pid, cwd = adapter.read_text().split("\t")
    job = Path(cwd.strip()).parent  # the adapter runs in <job folder>/ws
    assert job.name.startswith("skill-eval-job-") and job.is_dir()
    os.kill(int(pidfile.read_text()), signal.SIGKILL)  # the Ray worker process running that run
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 2, (out, err)
    assert "Ray worker running it was lost" in err and "12 runs executed, 1 error." in out
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
    assert not alive, "the adapter outlived its lost worker"
    assert not job.exists(), "the lost worker's job folder was left behind"
    assert len(kit.stored_runs()) == 11
    [error] = [json.loads(p.read_text()) for p in (kit.store / "errors").glob("*.json")]
    assert error["kind"] == "worker_lost"
    kit.control()
    before = len(lines(kit))
    proc = subprocess.run([sys.executable, "-m", "skill_eval.cli.main", "run", "suite.yaml",
                           "--executor", "ray"], cwd=kit.root, env=env, capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "1 to run" in proc.stdout
    redone = lines(kit)[before:]
    assert len(redone) == 1 and "Task a2" in redone[0][1]
    assert len(kit.stored_runs()) == 12


@needs_ray
def test_ctrl_c_cancels_the_ray_tasks(tmp_path, cluster, ray_env):
    kit = make_kit(tmp_path)
    kit.control(sleep=60)
    env = {**os.environ, "KIT_DIR": str(kit.root), "RAY_ADDRESS": cluster}
    proc = subprocess.Popen([sys.executable, "-m", "skill_eval.cli.main", "run", "suite.yaml",
                             "--executor", "ray", "-j", "4"], cwd=kit.root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(lines(kit)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert time.monotonic() - started < 30
    assert kit.stored_runs() == [] and not list((kit.store / "errors").glob("*.json"))
    pids = [int(p) for p in (kit.root / "pids.log").read_text().split()]
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{p}").exists() for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if Path(f"/proc/{p}").exists()]  # every adapter is gone


@needs_ray
def test_unreachable_cluster_is_one_line_and_exit_2(tmp_path, ray_env, monkeypatch):
    kit = make_kit(tmp_path, extra="executor: {ray: {address: '127.0.0.1:1'}}\n")
    monkeypatch.setenv("KIT_DIR", str(kit.root))
    code, _, err = kit.run()
    assert code == 2
    assert err.strip().splitlines() == [
        "skill-eval: executor ray: cannot reach the Ray cluster at 127.0.0.1:1 (Connection refused); "
        "check executor.ray.address in the suite or RAY_ADDRESS, and that the cluster is up"]
    assert kit.stored_runs() == [] and lines(kit) == []
    assert not list((kit.store / "errors").glob("*.json"))  # nothing recorded as the runs' fault
