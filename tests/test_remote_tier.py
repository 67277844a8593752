"""The shared remote store (docs/remote.md) against a real S3 API on 127.0.0.1 (moto's server
mode) and a shared folder (file://), with two or more machines: separate projects and stores
with the same inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from remotekit import (
    HAVE_MOTO,
    S3Server,
    closed_port,
    environ,
    judge_calls,
    machines,
    needs_obstore,
    snapshot,
)
from suitekit import Kit

pytestmark = needs_obstore


class Remote:
    def __init__(self, kind: str, tmp: Path, s3: S3Server | None) -> None:
        self.kind, self.s3 = kind, s3
        if kind == "file":
            self.folder = tmp / "shared-remote"
            self.folder.mkdir()
            self.url = f"file://{self.folder}"
            self.env: dict[str, str] = {}
        else:
            assert s3 is not None
            self.bucket = s3.bucket()
            self.url = f"s3://{self.bucket}/team"
            self.env = s3.env()

    def client(self):  # noqa: ANN201
        from skill_eval.store.remote_tier.objects import ObjectClient

        return ObjectClient(self.url)

    def objects(self) -> dict[str, bytes]:
        client = self.client()
        return {p: client.get(p) or b"" for p in sorted(client.list("v1"))}

    def overwrite(self, path: str, data: bytes) -> None:
        if self.kind == "file":
            (self.folder / path).write_bytes(data)
        else:
            assert self.s3 is not None
            self.s3.put(self.bucket, f"team/{path}", data)


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server | None]:
    if not HAVE_MOTO:
        yield None
        return
    server = S3Server()
    yield server
    server.stop()


@pytest.fixture(params=["file", "s3"])
def remote(request: pytest.FixtureRequest, tmp_path: Path, s3: S3Server | None) -> Iterator[Remote]:
    if request.param == "s3" and s3 is None:
        pytest.skip("moto[server] is not installed (the test extra): no S3 API to test against")
    r = Remote(request.param, tmp_path, s3)
    with environ(r.env):
        yield r


def results(kit: Kit) -> dict[str, bytes]:
    return snapshot(kit.results)


def manifests(r: Remote) -> list[str]:
    return [p for p in r.objects() if p.endswith("/manifest.json")]


def test_b_makes_no_call_for_what_a_pushed(tmp_path: Path, remote: Remote):
    a, b = machines(tmp_path, 2, f"remote: {remote.url}\n")
    code_a, out, err = a.run()
    assert code_a == 0, out + err
    assert a.calls() == 6 and judge_calls(a) == 6
    assert len([p for p in manifests(remote) if "/runs/" in p]) == 6
    code_b, out, err = b.run()
    assert code_b == code_a, out + err
    assert b.calls() == 0 and judge_calls(b) == 0, out + err
    assert "Remote: 6 runs served by" in out
    assert results(b) == results(a)
    assert b.stored_runs() == a.stored_runs()


def test_pull_then_run_calls_nothing_and_status_names_the_remote(tmp_path: Path, remote: Remote):
    a, b, c = machines(tmp_path, 3, f"remote: {remote.url}\n")
    assert a.run()[0] == 0
    code, out, _err = b.status()
    assert code == 0 and "6 runs in the remote: no call" in out
    code, out, err = b.cli("pull", "suite.yaml")
    assert code == 0 and "pull: 6 runs and 6 grades fetched" in out, out + err
    assert "pull: 6/6" in err
    code, out, err = b.run()
    assert code == 0 and b.calls() == 0 and judge_calls(b) == 0, out + err
    assert results(b) == results(a)
    # A machine that ran alone pushes what it has; the remote keeps the first writer's entries.
    code, out, err = c.run("--no-remote")
    assert code == 0 and c.calls() == 6
    before = remote.objects()
    code, out, err = c.cli("push", "suite.yaml")
    assert code == 0 and "0 runs" in out and "already in" in out, out + err
    assert remote.objects() == before


def test_a_read_only_machine_writes_nothing(tmp_path: Path, remote: Remote):
    (ro,) = machines(tmp_path, 1, f"remote: {{url: '{remote.url}', push: false}}\n")
    code, out, err = ro.run()
    assert code == 0 and ro.calls() == 6, out + err
    assert remote.objects() == {}
    code, out, err = ro.cli("push", "suite.yaml")
    assert code == 2 and "read only" in err


def _run_manifest(r: Remote) -> str:
    return next(p for p in manifests(r) if "/runs/" in p)


def test_a_damaged_entry_is_refused_remade_and_left_alone(tmp_path: Path, remote: Remote):
    a, b = machines(tmp_path, 2, f"remote: {remote.url}\n")
    assert a.run()[0] == 0
    path = _run_manifest(remote)
    body = json.loads(remote.objects()[path])
    name = "output.txt"
    body["inline"][name] = "ZGFtYWdlZA=="  # "damaged": no longer the sha256 the manifest lists
    damaged = json.dumps(body).encode()
    remote.overwrite(path, damaged)
    code, out, err = b.run()
    assert code == 0 and b.calls() == 1, out + err
    assert err.count("refused, made here instead") == 1 and f"{name} does not match" in err
    assert remote.objects()[path] == damaged  # never pushed over


def test_signed_remote_refuses_unsigned_and_forged_entries(tmp_path: Path, remote: Remote):
    signed = f"remote: {{url: '{remote.url}', sign_key_env: TEAM_KEY}}\n"
    a, b, c = machines(tmp_path, 3, signed)
    unsigned = Kit(a.root)
    unsigned.write_suite(iterations=1,
                         extra=f"remote: {remote.url}\njudge:\n  command: [python3, judge.py]\n")
    assert unsigned.run()[0] == 0 and len(manifests(remote)) == 18  # runs, grades, verdicts; unsigned
    with environ({"TEAM_KEY": "the team's secret"}):
        code, out, err = b.run()
    assert code == 0 and b.calls() == 6, out + err  # every entry refused: made here
    assert err.count("not signed") == 12  # 6 runs, 6 judge verdicts
    # Signed with another key: forged, as far as this reader can tell.
    with environ({"TEAM_KEY": "another key"}):
        code, out, err = c.run()
    assert code == 0 and c.calls() == 6
    assert "signature does not match" not in err  # c found a's unsigned entries: refused as unsigned
    fresh = machines(tmp_path / "fresh", 2,
                     f"remote: {{url: '{remote.url}/signed', sign_key_env: TEAM_KEY}}\n")
    with environ({"TEAM_KEY": "key one"}):
        assert fresh[0].run()[0] == 0
    with environ({"TEAM_KEY": "key two"}):
        code, out, err = fresh[1].run()
    assert code == 0 and fresh[1].calls() == 6 and "signature does not match" in err
    with environ({"TEAM_KEY": "key one"}):
        third = fresh[0].copy_to(tmp_path / "third")
        import shutil

        shutil.rmtree(third.store)
        shutil.rmtree(third.results)
        third.reset()
        code, out, err = third.run()
    assert code == 0 and third.calls() == 0, out + err


def test_two_machines_pushing_one_key_at_once_leave_one_whole_entry(tmp_path: Path, remote: Remote):
    from skill_eval.model.config import RemoteConfig
    from skill_eval.model.results import AdapterResponse
    from skill_eval.store.remote_tier.tier import RemoteTier, _run_files
    from skill_eval.store.store import Store

    key = "ab" * 32
    tiers = []
    for i in range(6):
        store = Store(tmp_path / f"store-{i}")
        big = [("outputs/big.bin", os.urandom(100_000))]  # a blob beside the manifest too
        store.put_run(key, AdapterResponse(output=f"writer {i}"), 0.1 * i, {}, files=big)
        tiers.append(RemoteTier(RemoteConfig(remote.url), store, tmp_path))
    outcomes: list[str] = []
    barrier = threading.Barrier(len(tiers))

    def push(tier: RemoteTier) -> None:
        barrier.wait()
        outcomes.append(tier.push("runs", key))

    threads = [threading.Thread(target=push, args=(t,)) for t in tiers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["already"] * 5 + ["pushed"]
    reader = Store(tmp_path / "reader")
    got = RemoteTier(RemoteConfig(remote.url), reader, tmp_path).fetch_run(key)
    assert got is not None and got.output.startswith("writer ")
    winner = int(got.output.split()[1])
    assert _run_files(reader, key) == _run_files(tiers[winner].store, key)


KILLED_PUSH = r'''
import os, signal, sys
from pathlib import Path
from skill_eval.model.config import RemoteConfig
from skill_eval.model.results import AdapterResponse
from skill_eval.store.remote_tier import objects
from skill_eval.store.remote_tier.tier import RemoteTier
from skill_eval.store.store import Store

real = objects.ObjectClient.create
def create(self, path, data):
    if path.endswith("manifest.json"):
        os.kill(os.getpid(), signal.SIGKILL)  # kill -9 after the blobs, before the manifest
    return real(self, path, data)
objects.ObjectClient.create = create
store = Store(Path(sys.argv[2]))
big = [("outputs/big.bin", os.urandom(200_000))]
store.put_run("cd" * 32, AdapterResponse(output="half"), 0.1, {}, files=big)
RemoteTier(RemoteConfig(sys.argv[1]), store, Path(".")).push("runs", "cd" * 32)
'''


def test_kill_9_mid_push_leaves_nothing_visible(tmp_path: Path, remote: Remote):
    from skill_eval.model.config import RemoteConfig
    from skill_eval.store.remote_tier.tier import RemoteTier
    from skill_eval.store.store import Store

    done = subprocess.run([sys.executable, "-c", KILLED_PUSH, remote.url, str(tmp_path / "killed")],
                          capture_output=True, env={**os.environ}, timeout=60)
    assert done.returncode == -9, done.stderr
    left = remote.objects()
    assert left and all("/blobs/" in p for p in left)  # the blob went, the manifest did not
    assert RemoteTier(RemoteConfig(remote.url), Store(tmp_path / "b"), tmp_path).fetch_run("cd" * 32) is None
    # gc --remote removes the leftovers of keys no suite references.
    (kit,) = machines(tmp_path / "gc", 1, f"remote: {remote.url}\n", judge=False)
    code, out, _err = kit.cli("gc", "suite.yaml", "--remote")
    assert code == 0 and "would remove (a dry run: add --yes to delete) 1 remote entries" in out
    assert remote.objects() == left
    code, out, _err = kit.cli("gc", "suite.yaml", "--remote", "--yes")
    assert code == 0 and "removed 1 remote entries" in out
    assert remote.objects() == {}


def test_gc_remote_keeps_what_a_suite_references(tmp_path: Path, remote: Remote):
    a, b = machines(tmp_path, 2, f"remote: {remote.url}\n")
    assert a.run()[0] == 0
    b.edit_case("alpha", "a1", prompt="Task a1: write it again.")
    assert b.run()[0] == 0 and b.calls() == 2  # the edited case's two arms
    everything = remote.objects()
    code, out, _err = b.cli("gc", "suite.yaml", "--remote", "--yes")
    # a's two runs of the old a1 prompt and their grades; judge verdicts are kept.
    assert code == 0 and "removed 4 remote entries" in out
    assert set(remote.objects()) < set(everything)
    c = b.copy_to(tmp_path / "c")
    import shutil

    shutil.rmtree(c.store)
    c.reset()
    assert c.run()[0] == 0 and c.calls() == 0


def test_a_remote_that_refuses_connections_warns_once_and_changes_no_exit_code(tmp_path: Path):
    pytest.importorskip("obstore")
    (local,) = machines(tmp_path / "local", 1, "", judge=False)
    local.control(fail="a1")  # a failing run: exit code 2 either way
    (far,) = machines(tmp_path / "far", 1, "remote: s3://nobody/here\n", judge=False)
    far.control(fail="a1")
    env = {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_REGION": "us-east-1",
           "AWS_ENDPOINT_URL": f"http://127.0.0.1:{closed_port()}"}
    expected, _out, _err = local.run()
    with environ(env):
        code, out, err = far.run()
    assert code == expected == 2
    assert err.count("warning: remote s3://nobody/here not used") == 1, err
    assert far.calls() == local.calls() == 6
    far.control(fail="b1")  # something to run, so status asks the remote
    with environ(env):
        code, out, err = far.status()
    assert code == 0 and err.count("not used") == 1 and "in the remote" not in out


def test_missing_sign_key_is_one_warning_and_a_local_run(tmp_path: Path, remote: Remote):
    (kit,) = machines(tmp_path, 1, f"remote: {{url: '{remote.url}', sign_key_env: NOT_SET_HERE}}\n",
                      judge=False)
    code, out, err = kit.run()
    assert code == 0 and kit.calls() == 6
    assert err.count("NOT_SET_HERE is not set") == 1
    assert remote.objects() == {}


@pytest.mark.slow
def test_under_ray_the_driver_serves_hits_and_pushes_what_workers_made(tmp_path: Path, monkeypatch):
    import shutil

    from test_executors import RAY_ENV, RAY_MISSING, lines, make_kit

    if RAY_MISSING:
        pytest.skip("ray is not installed here (pip install 'skill-eval[ray]'): not tested under Ray")
    for k, v in RAY_ENV.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    remote = tmp_path / "remote"
    a = make_kit(tmp_path, "a", extra=f"executor: {{ray: {{num_cpus_per_run: 0.5}}}}\nremote: file://{remote}\n")
    monkeypatch.setenv("KIT_DIR", str(a.root))
    code, out, err = a.run()
    assert code == 0 and len(lines(a)) == 12, out + err
    assert len([p for p in remote.rglob("manifest.json") if "/runs/" in str(p)]) == 12
    b = a.copy_to(tmp_path / "b")
    shutil.rmtree(b.store)
    shutil.rmtree(b.results)
    (b.root / "calls.log").unlink()
    monkeypatch.setenv("KIT_DIR", str(b.root))
    code, out, err = b.run()
    assert code == 0 and lines(b) == [], out + err  # no run reached a worker
    assert "Remote: 12 runs served" in out
    assert snapshot(b.results) == snapshot(a.results)


def test_an_entry_holding_what_no_run_entry_has_is_refused(tmp_path: Path, remote: Remote):
    from skill_eval.model.config import RemoteConfig
    from skill_eval.store.remote_tier.entries import manifest_path, pack
    from skill_eval.store.remote_tier.tier import RemoteTier
    from skill_eval.store.store import Store

    key = "ef" * 32
    for files in ({"files": b"a file where a folder goes"}, {"hook.sh": b"rm -rf ~"}):
        remote.client().create(manifest_path("runs", key), pack("runs", key, files, {}, None).manifest)
        tier = RemoteTier(RemoteConfig(remote.url), Store(tmp_path / "s"), tmp_path)
        assert tier.fetch_run(key) is None and "which no run entry has" in tier.tally.refused[0]
        assert not (tmp_path / "s" / "runs").exists()
        remote.overwrite(manifest_path("runs", key), b"")  # the next case under the same key
        key = "fe" * 32
