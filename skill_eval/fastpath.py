"""A suite-level fingerprint checked before anything else, so an unchanged suite is a no-op in
milliseconds: the stat of every input file plus the options, and the keys the last complete
run produced (each still present in the store).

A stat difference (a touch, a fresh clone) only means "look closer": the full plan then runs,
finds every key unchanged, and records a new fingerprint. Only keys decide what re-runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from . import __version__
from .config import Suite

FAST_VERSION = 1


def _stat_line(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}|missing"
    return f"{path}|{st.st_size}|{st.st_mtime_ns}|{st.st_ino}"


def fingerprint(suite: Suite, options: dict[str, Any], extra_files: list[str]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([FAST_VERSION, __version__, options], sort_keys=True).encode())
    h.update(_stat_line(str(suite.path)).encode())
    for dirpath, dirnames, filenames in os.walk(suite.skills_dir):
        dirnames.sort()
        for name in sorted(filenames):
            h.update(_stat_line(os.path.join(dirpath, name)).encode())
    for f in sorted(set(extra_files)):
        h.update(_stat_line(f).encode())
    for argv0 in _adapter_files(suite):
        h.update(_stat_line(argv0).encode())
    return h.hexdigest()


def watch_files(argv: tuple[str, ...], extra: list[str]) -> list[str]:
    """Files outside skills_dir whose change must defeat the fast path: every file or folder an
    adapter's arguments name (scripts, recorded answers) and fixtures that live elsewhere."""
    out: list[str] = []
    for arg in [*argv[1:], *extra]:
        if os.path.isfile(arg):
            out.append(os.path.abspath(arg))
        elif os.path.isdir(arg):
            for dirpath, _dirs, files in os.walk(arg):
                out.extend(os.path.join(dirpath, f) for f in files)
    return sorted(set(out))


def _adapter_files(suite: Suite) -> list[str]:
    out = []
    for argv in (suite.adapter.command or (), (suite.judge.command or ()) if suite.judge else ()):
        for arg in argv:
            if os.path.isfile(arg):
                out.append(arg)
    builtin_bins = {"claude-code": "claude", "codex": "codex"}
    for cfg in (suite.adapter, suite.judge):
        name = getattr(cfg, "builtin", None) if cfg else None
        if name in builtin_bins:
            found = shutil.which(builtin_bins[name])
            out.append(found or f"<no {builtin_bins[name]}>")
    return out


class FastState:
    """``<store>/state/<suite>.fast.json``: the fingerprint and the keys it vouches for."""

    def __init__(self, store_root: Path, suite_name: str):
        self.path = store_root / "state" / f"{suite_name}.fast.json"

    def load(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return None

    def is_noop(self, fp: str, results_dir: Path) -> dict[str, Any] | None:
        data = self.load()
        if not data or data.get("fingerprint") != fp:
            return None
        root = self.path.parent.parent
        for key in data.get("runs", []):
            if not os.path.exists(root / "runs" / key[:2] / key / "COMPLETE.json"):
                return None
        for key in data.get("grades", []):
            if not os.path.exists(root / "grades" / key[:2] / f"{key}.json"):
                return None
        if not (results_dir / "summary.json").is_file():
            return None
        return data

    def watched(self) -> list[str]:
        data = self.load() or {}
        return list(data.get("watch", []))

    def save(self, fp: str, runs: list[str], grades: list[str], outcome: dict[str, Any],
             watch: list[str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"fingerprint": fp, "runs": runs, "grades": grades,
                                   "outcome": outcome, "watch": watch}, separators=(",", ":")), "utf-8")
        os.replace(tmp, self.path)

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
