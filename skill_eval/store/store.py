"""The content-addressed store: the source of truth for runs, errors, grades and verdicts.

Layout under the store root::

    runs/<key[:2]>/<key>/    response.json output.txt timing.json meta.json [stderr.txt]
                             files/<workspace-relative path>  (what the adapter left in its
                                 workspace; entries of versions before 0.x kept only outputs/)
                             COMPLETE.json  (written last: sha256 of every other file)
    errors/<key>.json        the last failure of a run; never read as a result
    <kind>/<key[:2]>/<key>.json   generic JSON blobs (grades, judge verdicts, replay index)
    tmp/                     entries being written; renamed into place when whole
    lock                     flock'ed by the process using the store

A run entry is built in ``tmp/`` and renamed into ``runs/`` in one step, so a kill at any moment
leaves either no entry or a whole one. Reading verifies the manifest; anything that does not
verify is removed and reads as missing, so the run is simply done again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from skill_eval.errors import StoreError
from skill_eval.fs import sharedfiles
from skill_eval.fs.atomic import rename_into_place, write_atomic
from skill_eval.fs.storage import fault_of, writing
from skill_eval.intake.textcheck import clean
from skill_eval.model.results import AdapterResponse, Event, RunError, RunResult
from skill_eval.store.entryfiles import (
    FILES,
    SESSION,
    keep_files,
    kept_dirs,
    parses,
    session_and_created,
    walk_files,
)
from skill_eval.store.keptnames import printable
from skill_eval.store.redact import redact, redact_json, redact_json_lines

MANIFEST = "COMPLETE.json"
_RESERVED_KINDS = {"runs", "errors", "tmp", "lock"}


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _sha256_file(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


class Tier(Protocol):
    """A tier behind this store (store.remote_tier): told of each new entry, asked for a missing blob."""
    def stored(self, kind: str, key: str) -> None: ...
    def missing(self, kind: str, key: str) -> bytes | None: ...


class Store:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.tier: Tier | None = None

    # -- runs -------------------------------------------------------------------------------

    def run_dir(self, key: str) -> Path:
        return self.root / "runs" / key[:2] / key

    def has_run(self, key: str) -> bool:
        """One stat: whether a whole entry is in place (not verified; get_run verifies)."""
        return os.path.exists(f"{self.root}/runs/{key[:2]}/{key}/{MANIFEST}")

    def put_run(self, key: str, response: AdapterResponse, duration_s: float, meta: dict[str, Any],
                outputs: Path | None = None, stderr: str = "",
                files: Sequence[tuple[str, bytes]] = (), session: str | None = None) -> RunResult:
        """Store a run. Everything is redacted here, whatever the caller did: the response, the
        stderr, and the kept ``files`` (``(workspace-relative path, bytes)`` pairs; ``outputs``
        is a folder whose files are kept as ``outputs/<rel>``). Kept names are made printable
        and unique (store/keptnames); a file whose name cannot be stored joins
        ``meta["files_not_kept"]``, which the returned result carries as ``not_kept``."""
        response = redact_response(response)
        not_kept = {printable(rel): why for rel, why in dict(meta.get("files_not_kept") or {}).items()}
        meta = redact_json({k: v for k, v in meta.items() if k != "files_not_kept"})
        stderr = redact(stderr)
        kept = list(files)
        tmp_root = self.root / "tmp"
        with writing(tmp_root):
            tmp_root.mkdir(parents=True, exist_ok=True)
            tmp = Path(sharedfiles.mkdtemp(prefix=f"run-{key[:12]}-", dir=tmp_root))
        try:
            files = {
                "response.json": _dump(response.to_json()),
                "output.txt": response.output.encode("utf-8"),
                "timing.json": _dump({"duration_s": round(duration_s, 6)}),
            }
            if stderr:
                files["stderr.txt"] = stderr.encode("utf-8")
            if session is not None:
                files[SESSION] = redact_json_lines(session).encode("utf-8")
            manifest: dict[str, str] = {}
            for name, data in files.items():
                (tmp / name).write_bytes(data)
                manifest[name] = hashlib.sha256(data).hexdigest()
            if outputs is not None and outputs.is_dir():
                kept += [(f"outputs/{rel}", src.read_bytes()) for rel, src in walk_files(outputs)]
            (tmp / FILES).mkdir()
            manifest.update(keep_files(kept, tmp / FILES, not_kept))
            if not_kept:
                meta["files_not_kept"] = not_kept = redact_json(not_kept)
            (tmp / "meta.json").write_bytes(_dump(meta))
            manifest["meta.json"] = hashlib.sha256(_dump(meta)).hexdigest()
            (tmp / MANIFEST).write_bytes(_dump({"key": key, "files": manifest}))
            self._install(tmp, key)
        except OSError as exc:
            fault = fault_of(exc, tmp)
            if fault is None:
                raise
            raise fault from None
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        if self.tier is not None:
            self.tier.stored("runs", key)
        limits = meta.get("limits")
        return RunResult(key, response, duration_s, *kept_dirs(self.run_dir(key)), not_kept=not_kept,
                         limits=limits if isinstance(limits, dict) else None,
                         **session_and_created(self.run_dir(key), meta))

    def adopt_run(self, key: str, files: dict[str, bytes]) -> None:
        """Install an entry another store made (fetched and verified by the caller), as it was
        stored there: it was redacted when it was first written."""
        with writing(self.root / "tmp"):
            (self.root / "tmp").mkdir(parents=True, exist_ok=True)
            tmp = Path(sharedfiles.mkdtemp(prefix=f"adopt-{key[:12]}-", dir=self.root / "tmp"))
        try:
            with writing(tmp):
                for rel, data in files.items():
                    (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                    (tmp / rel).write_bytes(data)
                (tmp / FILES).mkdir(exist_ok=True)
                manifest = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
                (tmp / MANIFEST).write_bytes(_dump({"key": key, "files": manifest}))
                self._install(tmp, key)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _install(self, tmp: Path, key: str) -> None:
        target = self.run_dir(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                rename_into_place(tmp, target)
                return
            except OSError:
                if not target.exists():
                    raise
                # Someone else stored the same key first; equal content by construction,
                # unless their entry is damaged, in which case ours replaces it.
                if self._verified(target):
                    return
                self._discard(target)

    def get_run(self, key: str, verify: bool = True) -> RunResult | None:
        """The stored run, or None when missing or when it fails verification (then it is removed).
        ``verify=False`` is for entries the caller verified before and knows unchanged since."""
        target = self.run_dir(key)
        if not (target / MANIFEST).exists():
            return None
        try:
            if verify and not self._verified(target):
                raise ValueError("manifest mismatch")
            data = json.loads((target / "response.json").read_bytes())
            timing = json.loads((target / "timing.json").read_bytes())
            response = AdapterResponse(
                output=data["output"],
                events=tuple(Event.from_json(e) for e in data.get("events", [])),
                usage=dict(data.get("usage", {})),
            )
            duration = float(timing["duration_s"])
        except (OSError, ValueError, KeyError, TypeError):
            self._discard(target)
            return None
        meta = self.get_meta(key) or {}
        limits = meta.get("limits")
        return RunResult(key, response, duration, *kept_dirs(target),
                         limits=limits if isinstance(limits, dict) else None,
                         **session_and_created(target, meta))

    def get_meta(self, key: str) -> dict[str, Any] | None:
        try:
            return json.loads((self.run_dir(key) / "meta.json").read_bytes())
        except (OSError, ValueError):
            return None

    def _verified(self, entry: Path) -> bool:
        try:
            manifest = json.loads((entry / MANIFEST).read_bytes())["files"]
            return all(_sha256_file(entry / rel) == sha for rel, sha in manifest.items()) and parses(entry)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return False

    def discard_run(self, key: str) -> None:
        """Drop a run (``--force``): the next execute stores a fresh result under the same key."""
        if self.run_dir(key).exists():
            self._discard(self.run_dir(key))

    def _discard(self, entry: Path) -> None:
        # Rename first so a half-deleted entry can never be mistaken for a whole one.
        with writing(self.root / "tmp"):
            (self.root / "tmp").mkdir(parents=True, exist_ok=True)
            doomed = Path(tempfile.mkdtemp(prefix="discard-", dir=self.root / "tmp")) / "entry"
        try:
            rename_into_place(entry, doomed)
        except OSError:
            return
        shutil.rmtree(doomed.parent, ignore_errors=True)

    # -- errors -----------------------------------------------------------------------------

    def _error_path(self, key: str) -> Path:
        return self.root / "errors" / f"{key}.json"

    def put_error(self, key: str, error: RunError) -> RunError:
        """Store a run's error, redacted and rounded (its message quotes what the adapter printed:
        a lone surrogate there must not stop the store); the error as stored."""
        stored = RunError(key, redact(error.kind), clean(redact(error.message)), round(error.duration_s, 6))
        write_atomic(self._error_path(key), _dump({
            "key": key, "kind": stored.kind, "message": stored.message, "duration_s": stored.duration_s}))
        return stored

    def get_error(self, key: str) -> RunError | None:
        try:
            data = json.loads(self._error_path(key).read_bytes())
            return RunError(key, data["kind"], data["message"], float(data.get("duration_s", 0.0)))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def clear_error(self, key: str) -> None:
        with writing(self._error_path(key)), contextlib.suppress(FileNotFoundError):
            self._error_path(key).unlink()

    # -- generic JSON blobs -----------------------------------------------------------------

    def json_path(self, kind: str, key: str) -> Path:
        if not kind or kind in _RESERVED_KINDS or "/" in kind or kind.startswith("."):
            raise ValueError(f"invalid store kind {kind!r}")
        return self.root / kind / key[:2] / f"{key}.json"

    def put_json(self, kind: str, key: str, obj: Any, redacted: bool = False) -> None:
        """Store a JSON blob (grades, verdicts, ...), every string in it redacted, unless the
        caller says it redacted what could hold a secret (``redacted``: a big blob of content
        keys, whose hex digests the entropy rules take a millisecond a hundred to clear; it is
        written compact, as json's C encoder does it: the indented encoder is pure Python)."""
        if redacted:
            data = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        else:
            data = _dump(redact_json(obj))
        write_atomic(self.json_path(kind, key), data)
        if self.tier is not None:
            self.tier.stored(kind, key)

    def get_json(self, kind: str, key: str) -> Any | None:
        path = self.json_path(kind, key)
        try:
            return json.loads(path.read_bytes())
        except FileNotFoundError:
            fetched = self.tier.missing(kind, key) if self.tier is not None else None  # verified there
            return json.loads(fetched) if fetched is not None else None
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                path.unlink()  # written atomically, so a bad file is damage: recompute it
            return None

    def has_json(self, kind: str, key: str) -> bool:
        return os.path.exists(f"{self.root}/{kind}/{key[:2]}/{key}.json")

    # -- lock -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, wait: bool = False,
             on_wait: Callable[[str, str | None], None] | None = None) -> Iterator[None]:
        """Hold the store for this process; refuse (StoreError) or wait when another holds it.
        ``on_wait(pid, since)`` is called once, before waiting, with who holds it (pid, and the
        UTC time it took the store, when recorded)."""
        path = self.root / "lock"
        with writing(path):
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid, since = _holder(os.pread(fd, 64, 0).decode("ascii", "replace"))
                if not wait:
                    raise StoreError(f"store {self.root} is in use by another skill-eval process "
                                     f"(pid {pid}{f' since {since}' if since else ''}); wait for it or "
                                     "use another store") from None
                if on_wait is not None:
                    on_wait(pid, since)
                fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            os.pwrite(fd, f"{os.getpid()} {stamp}\n".encode(), 0)
            try:
                yield
            finally:
                os.ftruncate(fd, 0)
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def _holder(text: str) -> tuple[str, str | None]:
    """(pid, since) from the lock file's line ``<pid> <UTC time>`` (an older one holds the pid only)."""
    parts = text.split()
    return (parts[0] if parts else "unknown"), (parts[1] if len(parts) > 1 else None)


def redact_response(response: AdapterResponse) -> AdapterResponse:
    """The response as it may be written: output, event fields and usage keys redacted."""
    return AdapterResponse(
        output=redact(response.output),
        events=tuple(Event(redact(e.type), redact(e.name) if e.name else e.name,
                           tuple(redact(a) for a in e.argv) if e.argv is not None else None,
                           redact(e.input) if e.input else e.input,
                           redact(e.input_json) if e.input_json else e.input_json, e.subagent)
                     for e in response.events),
        usage={redact(k): v for k, v in response.usage.items()},
    )
