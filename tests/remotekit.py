"""Remotes for the remote store's tests: a real S3 API on 127.0.0.1 (moto's server mode) and a
shared folder (file://), and "machines": copies of one project, each with its own store.

Without obstore (the ``remote`` extra) or moto (the test extra) the tests that need them skip
and say why."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from suitekit import Kit

HAVE_OBSTORE = importlib.util.find_spec("obstore") is not None
HAVE_MOTO = importlib.util.find_spec("moto") is not None and importlib.util.find_spec("flask") is not None
needs_obstore = pytest.mark.skipif(not HAVE_OBSTORE,
                                   reason="obstore is not installed: pip install 'skill-eval[remote]'")

# A judge whose answer depends only on the request; it logs one line per call beside itself.
JUDGE = r'''import json, os, sys
req = json.load(sys.stdin)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge-calls.log"), "a") as f:
    f.write(",".join(r["id"] for r in req["rubric"]) + "\n")
verdicts = [{"id": r["id"], "passed": "with_skill" in req["output"], "evidence": "looked"}
            for r in req["rubric"]]
usage = {"input_tokens": 100, "output_tokens": 20, "cost_usd": 0.01}
print(json.dumps({"verdicts": verdicts, "usage": usage}))
'''


class S3Server:
    """moto's S3 API on 127.0.0.1, one per test session; a fresh bucket per test."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        self.endpoint = f"http://{host}:{port}"

    def bucket(self) -> str:
        name = f"skill-eval-{uuid.uuid4().hex[:12]}"
        urllib.request.urlopen(urllib.request.Request(f"{self.endpoint}/{name}", method="PUT")).read()
        return name

    def env(self) -> dict[str, str]:
        return {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": self.endpoint}

    def put(self, bucket: str, key: str, data: bytes) -> None:
        """Overwrite an object behind skill-eval's back (a damaged or hostile entry)."""
        import boto3  # moto's own dependency

        client = boto3.client("s3", endpoint_url=self.endpoint, **_boto_env())
        client.put_object(Bucket=bucket, Key=key, Body=data)

    def stop(self) -> None:
        self.server.stop()


def _boto_env() -> dict[str, str]:
    return {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}


def closed_port() -> int:
    """A port on 127.0.0.1 that refuses connections."""
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def machines(tmp_path: Path, n: int, extra: str, judge: bool = True) -> list[Kit]:
    """``n`` copies of one project (same inputs, separate stores and results)."""
    first = Kit.create(tmp_path / "m0", iterations=1, extra=extra, name="proj")
    if judge:
        (first.root / "judge.py").write_text(JUDGE)
        first.write_suite(iterations=1, extra=extra + "judge:\n  command: [python3, judge.py]\n")
        for skill in ("alpha", "beta"):
            data = first.evals(skill)
            for case in data["evals"]:
                case["assertions"] = ["It uses the skill"]
            first.write_evals(skill, data["evals"])
    kits = [first]
    for i in range(1, n):
        dest = tmp_path / f"m{i}" / "proj"
        dest.parent.mkdir(parents=True)
        kits.append(first.copy_to(dest))
    return kits


def judge_calls(kit: Kit) -> int:
    path = kit.root / "judge-calls.log"
    n = len(path.read_text().splitlines()) if path.exists() else 0
    path.unlink(missing_ok=True)
    return n


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@contextlib.contextmanager
def environ(values: dict[str, str]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def wipe(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
