"""The remote tier: what a store adopts from the remote and pushes to it.

The local store stays the working copy and the single writer of a suite's results. A run (or a
grade, or a judge verdict) missing here is looked up in the remote by its key; a hit is
verified file by file and adopted as it was stored there, with no adapter call. What this
machine stores is pushed in the background, create-only: an entry already in the remote is
never overwritten (the first writer wins; a damaged one stays refused until ``gc --remote``).
The remote never costs a run: the first failure (unreachable, refused, no obstore) is one
warning, and the command goes on with the local store alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_eval.fs.atomic import write_atomic
from skill_eval.fs.storage import StorageError
from skill_eval.model.config import RemoteConfig, Suite
from skill_eval.model.results import RunResult
from skill_eval.store.entryfiles import FILES, LEGACY_OUTPUTS, SESSION
from skill_eval.store.remote_tier.entries import Refused, blob_path, manifest_path, pack, unpack
from skill_eval.store.remote_tier.objects import ObjectClient, RemoteUnavailable
from skill_eval.store.remote_tier.provenance import provenance
from skill_eval.store.store import MANIFEST, Store

RUNS = "runs"
# The JSON blobs shared besides runs: grades, and judge verdicts (which cost money).
SHARED_JSON = ("grades", "judge")
PUSHERS = 4  # pushes in flight at once, beside the runs
ENTRY = "entry.json"  # the one file of a grade's or a verdict's entry
# What a run entry may hold (store.store's layout); anything else is refused, not written.
RUN_FILES = frozenset({"response.json", "output.txt", "timing.json", "meta.json", "stderr.txt", SESSION})
RUN_FOLDERS = frozenset({FILES, LEGACY_OUTPUTS})


@dataclass
class Tally:
    """What the tier did in one command (read by the CLI when it is done)."""

    served: int = 0  # runs adopted with no adapter call
    saved_usd: float = 0.0  # what those runs had cost their first writer
    fetched: int = 0  # grades and verdicts adopted
    pushed: int = 0
    already: int = 0  # pushes that found the key written first by another writer
    refused: list[str] = field(default_factory=list)  # "<kind> <key>: why", each named once


class RemoteTier:
    def __init__(self, config: RemoteConfig, store: Store, project_root: Path, push: bool | None = None):
        self.config = config
        self.store = store
        self.push_enabled = config.push if push is None else push
        self.project_root = project_root
        self.tally = Tally()
        self.warnings: list[str] = []
        self.disabled = False
        self._lock = threading.Lock()
        self._client: ObjectClient | None = None
        self._refused: set[tuple[str, str]] = set()
        self._served: set[str] = set()  # run keys adopted from the remote in this command
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._provenance: dict[str, Any] | None = None
        self.sign_key: bytes | None = None
        if config.sign_key_env:
            value = os.environ.get(config.sign_key_env)
            if not value:
                self._fail(f"{config.sign_key_env} is not set, so its entries cannot be checked "
                           "(set it, or drop sign_key_env)")
            else:
                self.sign_key = value.encode("utf-8")

    # ---- the client, and failing once ------------------------------------------------------
    def client(self) -> ObjectClient | None:
        with self._lock:
            if self.disabled:
                return None
            if self._client is None:
                try:
                    self._client = ObjectClient(self.config.url)
                except RemoteUnavailable as exc:
                    self._fail_locked(str(exc))
                    return None
            return self._client

    def _fail(self, why: str) -> None:
        with self._lock:
            self._fail_locked(why)

    def _fail_locked(self, why: str) -> None:
        if not self.disabled:
            self.disabled = True
            self.warnings.append(f"remote {self.config.url} not used: {why}; "
                                 "going on with the local store only")

    def _no_pushes(self, why: str) -> None:
        """A push failed (a read-only credential, say): reads go on, pushes stop, one warning."""
        with self._lock:
            if self.push_enabled and not self.disabled:
                self.push_enabled = False
                self.warnings.append(f"remote {self.config.url}: pushes stopped: {why}; "
                                     "runs made here stay in the local store")

    def _refuse(self, kind: str, key: str, why: str) -> None:
        with self._lock:
            if (kind, key) not in self._refused:
                self._refused.add((kind, key))
                self.tally.refused.append(f"{kind} {key[:16]}: {why}")

    # ---- reading ---------------------------------------------------------------------------
    def _fetch(self, kind: str, key: str) -> dict[str, bytes] | None:
        client = self.client()
        if client is None or (kind, key) in self._refused:
            return None
        try:
            manifest = client.get(manifest_path(kind, key))
            if manifest is None:
                return None
            files, _who = unpack(kind, key, manifest, client.get, self.sign_key)
            return files
        except RemoteUnavailable as exc:
            self._fail(str(exc))
        except Refused as exc:
            self._refuse(kind, key, str(exc))
        return None

    def has(self, kind: str, key: str) -> bool:
        """Whether the remote lists the entry (not verified: `status` asks this)."""
        client = self.client()
        if client is None or (kind, key) in self._refused:
            return False
        try:
            return client.exists(manifest_path(kind, key))
        except RemoteUnavailable as exc:
            self._fail(str(exc))
            return False

    def fetch_run(self, key: str) -> RunResult | None:
        """The run adopted from the remote into the local store, or None (not there, refused,
        or the remote failed)."""
        files = self._fetch(RUNS, key)
        if files is None:
            return None
        odd = sorted(rel for rel in files if rel not in RUN_FILES and rel.partition("/")[0] not in RUN_FOLDERS
                     or rel in RUN_FOLDERS)
        if odd:
            self._refuse(RUNS, key, f"it holds {odd[0]!r}, which no run entry has")
            return None
        try:
            self.store.adopt_run(key, files)
        except StorageError:
            raise  # our disk: the engine stops on it, as for a local run
        except OSError as exc:
            self._refuse(RUNS, key, f"it could not be stored here ({exc.strerror or exc})")
            return None
        result = self.store.get_run(key)
        if result is not None:
            cost = result.response.usage.get("cost_usd", 0)
            with self._lock:
                self._served.add(key)
                self.tally.served += 1
                if isinstance(cost, int | float) and not isinstance(cost, bool):
                    self.tally.saved_usd += float(cost)
        return result

    def fetch_json(self, kind: str, key: str) -> bytes | None:
        files = self._fetch(kind, key)
        if files is None:
            return None
        if set(files) != {ENTRY}:
            self._refuse(kind, key, f"it holds {sorted(files)}, not one {ENTRY}")
            return None
        data = files[ENTRY]
        write_atomic(self.store.json_path(kind, key), data)  # byte for byte, as its writer stored it
        with self._lock:
            self.tally.fetched += 1
        return data

    def served_grade(self, run_key: str, grade_key: str) -> dict[str, Any] | None:
        """The remote's grade of a run adopted from it, or None. Only such a run's: a run made
        here may differ from the remote's entry under the same key, so it is graded here."""
        if run_key not in self._served:
            return None
        data = self.fetch_json("grades", grade_key)
        try:
            grade = json.loads(data) if data is not None else None
        except ValueError:
            return None
        return grade if isinstance(grade, dict) else None

    def missing(self, kind: str, key: str) -> bytes | None:
        """The store's question for a blob it lacks: judge verdicts are keyed by what the judge
        saw (the output among it), so a verdict fetched under its key is always the right one."""
        return self.fetch_json(kind, key) if kind == "judge" else None

    # ---- writing ---------------------------------------------------------------------------
    def stored(self, kind: str, key: str) -> None:
        """The store's note of a new entry: pushed in the background."""
        if not self.push_enabled or self.disabled or (kind != RUNS and kind not in SHARED_JSON):
            return
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(PUSHERS, thread_name_prefix="skill-eval-push")
            self._pending.append(self._pool.submit(self.push, kind, key))

    def push(self, kind: str, key: str) -> str:
        """Push one local entry now: "pushed", "already" (the remote had it: kept as it is),
        or "skipped" (read only, refused here, the remote failed, or nothing stored)."""
        client = self.client()
        if client is None or not self.push_enabled or (kind, key) in self._refused:
            return "skipped"
        files = _run_files(self.store, key) if kind == RUNS else _json_file(self.store, kind, key)
        if files is None:
            return "skipped"
        if self._provenance is None:
            self._provenance = provenance(self.project_root)
        packed = pack(kind, key, files, self._provenance, self.sign_key)
        try:
            for sha, data in packed.blobs.items():
                client.create(blob_path(kind, key, sha), data)  # content-addressed: one content a name
            made = client.create(manifest_path(kind, key), packed.manifest)  # last: now it is visible
        except RemoteUnavailable as exc:
            self._no_pushes(str(exc))
            return "skipped"
        with self._lock:
            if made:
                self.tally.pushed += 1
            else:
                self.tally.already += 1
        return "pushed" if made else "already"

    def drain(self) -> None:
        """Wait for the pushes in flight (their failures were warned of already)."""
        with self._lock:
            pending, self._pending = self._pending, []
        for future in pending:
            try:
                future.result()
            except Exception as exc:  # a push must never cost the run: one warning, then local only
                self._fail(f"a push failed: {type(exc).__name__}: {exc}")
        with self._lock:
            if self._pool is not None and not self._pending:
                self._pool.shutdown(wait=True)
                self._pool = None


def _run_files(store: Store, key: str) -> dict[str, bytes] | None:
    """A stored run's files as its manifest lists them, each verified, or None."""
    entry = store.run_dir(key)
    try:
        listed = json.loads((entry / MANIFEST).read_bytes())["files"]
        files = {rel: (entry / rel).read_bytes() for rel in listed}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    ok = all(hashlib.sha256(data).hexdigest() == listed[rel] for rel, data in files.items())
    return files if ok else None


def _json_file(store: Store, kind: str, key: str) -> dict[str, bytes] | None:
    try:
        return {ENTRY: store.json_path(kind, key).read_bytes()}
    except OSError:
        return None


def open_tier(suite: Suite, store: Store, url: str | None = None, off: bool = False) -> RemoteTier | None:
    """The shared remote a command uses, attached to ``store`` (``--remote URL`` overrides the
    suite's URL, ``--no-remote`` turns it off); None without a remote. Served runs cost nothing
    now, and come with their grades when the remote has them (no judge call)."""
    config = suite.remote
    if off or (config is None and url is None):
        return None
    if url is not None:
        config = RemoteConfig(url, config.push, config.sign_key_env) if config else RemoteConfig(url)
    assert config is not None
    tier = RemoteTier(config, store, suite.root)
    store.tier = tier
    return tier
