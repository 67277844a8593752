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
import tempfile
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
    # The agent CLI a builtin drives (its version is in the run key): an upgrade must be seen.
    builtin_bins = {"claude_code": ("claude", "claude_bin"), "codex": ("codex", "codex_bin")}
    for cfg in (suite.adapter, suite.judge):
        name = str(getattr(cfg, "builtin", None) or "").replace("-", "_") if cfg else ""
        if name in builtin_bins:
            default, option = builtin_bins[name]
            binary = str((getattr(cfg, "options", None) or {}).get(option) or default)
            found = shutil.which(binary)
            out.append(found or f"<no {binary}>")
    return out


def table_stamps(paths: list[str]) -> list[str]:
    """Stat lines of the tables a run writes (benchmark.json per skill and model, the summaries):
    a table deleted or edited by hand defeats the fast path, so the next run rebuilds it."""
    return [_stat_line(p) for p in paths]


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
        """The saved outcome when nothing changed: same fingerprint, every run entry with the
        stat stamp it had when verified, every grade present, the tables as written."""
        from .state import entry_stamp

        data = self.load()
        if not isinstance(data, dict) or data.get("version") != FAST_VERSION or data.get("fingerprint") != fp:
            return None
        root = str(self.path.parent.parent)
        try:
            for key, stamp in data["runs"].items():
                if entry_stamp(root, key) != stamp:
                    return None
            for key in data["grades"]:
                if not os.path.exists(f"{root}/grades/{key[:2]}/{key}.json"):
                    return None
            tables = data["tables"]
            if not tables or table_stamps(list(tables)) != list(tables.values()):
                return None
        except (KeyError, AttributeError, TypeError):
            return None
        return data

    def watched(self) -> list[str]:
        data = self.load()
        watch = data.get("watch") if isinstance(data, dict) else None
        return [str(w) for w in watch] if isinstance(watch, list) else []

    def save(self, fp: str, runs: dict[str, str], grades: list[str], outcome: dict[str, Any],
             watch: list[str], tables: list[str] | None = None) -> None:
        """``runs``: run key → entry stamp (see state.entry_stamp); ``tables``: the table files
        whose stat must stay as it is now."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tables = dict(zip(tables, table_stamps(tables), strict=True)) if tables else None
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".fast.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": FAST_VERSION, "fingerprint": fp, "runs": runs, "grades": grades,
                           "tables": tables, "outcome": outcome, "watch": watch}, f, separators=(",", ":"))
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
