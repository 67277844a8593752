"""What a run entry holds on disk beside its response: the kept workspace files (redacted, under
printable unique names), the session, what the run created, and the check that what is read
back as JSON parses. Used by store.store only."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from skill_eval.fs.storage import fault_of
from skill_eval.store.keptnames import KeptNames, printable
from skill_eval.store.redact import redact_bytes

FILES = "files"  # the kept workspace files of an entry
SESSION = "session.jsonl"  # the session as JSON lines, when the adapter kept one
LEGACY_OUTPUTS = "outputs"  # entries stored before workspace files were kept


def parses(entry: Path) -> bool:
    """Whether what is read back as JSON reads: meta.json and the recordings held in its strings
    (an entry written by a version whose redaction broke JSON verifies by its checksums, yet
    could not be read)."""
    meta = json.loads((entry / "meta.json").read_bytes()) if (entry / "meta.json").exists() else {}
    for rec in meta.get("mock_recordings") or []:
        if isinstance(rec, dict) and isinstance(rec.get("text"), str):
            json.loads(rec["text"])
    return True


def session_and_created(entry: Path, meta: dict[str, Any]) -> dict[str, Any]:
    created, calls = meta.get("created"), meta.get("mock_calls")
    return {"session_path": entry / SESSION if (entry / SESSION).is_file() else None,
            "created": tuple(created) if isinstance(created, list) else None,
            "mock_calls": tuple(c for c in calls if isinstance(c, dict)) if isinstance(calls, list) else None}


def kept_dirs(entry: Path) -> tuple[Path | None, Path | None]:
    """(outputs_dir, files_dir) of a stored entry; an older entry has only outputs/."""
    files = entry / FILES
    if files.is_dir():
        outputs = files / "outputs"
        return (outputs if outputs.is_dir() else None), files
    legacy = entry / LEGACY_OUTPUTS
    return (legacy if legacy.is_dir() else None), None


def walk_files(src: Path) -> list[tuple[str, Path]]:
    """Regular files under ``src`` as (posix rel, path); symlinks are skipped (they could point
    at anything on the machine)."""
    found = []
    for folder, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            found.append((path.relative_to(src).as_posix(), path))
    return found


def keep_files(kept: Sequence[tuple[str, bytes]], dst: Path, not_kept: dict[str, str]) -> dict[str, str]:
    """Write the kept files, each redacted (as text, or as bytes when not UTF-8), under names
    made printable and unique; a file that cannot be written under its name joins ``not_kept``.
    Returns {"files/<rel>": sha256}."""
    manifest: dict[str, str] = {}
    names = KeptNames()
    for rel, raw in kept:
        if PurePosixPath(rel).is_absolute() or ".." in PurePosixPath(rel).parts:
            continue  # never written outside the entry, whoever passed it
        name, why = names.stored(rel)  # a file name can be a secret too: redacted there
        if name is None:
            not_kept[printable(rel)] = why
            continue
        data = redact_bytes(raw)
        out = dst / name
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
        except OSError as exc:
            if fault_of(exc, out) is not None:
                raise  # our disk is full or read-only: not this file's fault
            not_kept[printable(rel)] = f"could not be stored: {exc.strerror or exc}"
            continue
        manifest[f"{FILES}/{name}"] = hashlib.sha256(data).hexdigest()
    return manifest
