"""A suite-level fingerprint checked before anything else, so an unchanged suite is a no-op in
milliseconds: the stat of every input file plus the options, and the keys the last complete
run produced (each still present in the store).

A stat difference (a touch, a fresh clone) only means "look closer": the full plan then runs,
finds every key unchanged, and records a new fingerprint. Only keys decide what re-runs.

Stat lines are git's index stamps (size, mtime_ns, ctime_ns, inode: see fs.hashing), so an edit
that restores size and mtime is seen; and a fingerprint is not trusted when an input changed at
or after the moment it was recorded (the "racy" case: an edit in the same clock tick).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_eval import __version__
from skill_eval.fs.atomic import write_atomic
from skill_eval.fs.hashing import changed_ns, is_racy, recorded_at
from skill_eval.fs.storage import writes, writing
from skill_eval.model.builtins import find
from skill_eval.model.config import Suite, depends_files
from skill_eval.plan.keys import GRADER_VERSION

if TYPE_CHECKING:  # the fast path's no-op never loads the project
    from skill_eval.model.project import Project

FAST_VERSION = 3  # 3: stat lines carry ctime_ns


def _stat_line(path: str, newest: list[int] | None = None) -> str:
    """``newest``: a one-item list raised to the latest change time seen (for the racy check)."""
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}|missing"
    if newest is not None:
        newest[0] = max(newest[0], changed_ns(st))
    return f"{path}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}|{st.st_ino}"


@dataclass(frozen=True)
class Fingerprint:
    """Stat digests: ``common`` covers the config, options, adapter files and which skill folders
    exist; ``skills`` has one digest per top-level folder of skills_dir. When only some skill
    digests differ, only those skills need planning again. ``newest``: per part ("" for common,
    else the skill folder), the latest change time of its files, for the racy check."""

    common: str
    skills: dict[str, str]
    newest: dict[str, int] = field(default_factory=dict)


def _stat_digest(root: str, newest: list[int]) -> str:
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            h.update(_stat_line(os.path.join(dirpath, name), newest).encode())
    return h.hexdigest()


def fingerprint(suite: Suite, options: dict[str, Any], extra_files: list[str]) -> Fingerprint:
    h = hashlib.sha256()
    # The grader version too: a bumped grader must regrade, not report the old grades as current.
    h.update(json.dumps([FAST_VERSION, __version__, GRADER_VERSION, options], sort_keys=True).encode())
    common = [0]
    h.update(_stat_line(str(suite.path), common).encode())
    skills: dict[str, str] = {}
    newest: dict[str, int] = {}
    try:
        entries = sorted(os.scandir(suite.skills_dir), key=lambda e: e.name)
    except OSError:
        entries = []
    for entry in entries:
        if entry.is_dir():
            h.update(f"dir|{entry.name}".encode())
            part = [0]
            skills[entry.name] = _stat_digest(entry.path, part)
            newest[entry.name] = part[0]
        else:
            h.update(_stat_line(entry.path, common).encode())
    for f in sorted(set(extra_files)):
        h.update(_stat_line(f, common).encode())
    for argv0 in _adapter_files(suite):
        h.update(_stat_line(argv0, common).encode())
    newest[""] = common[0]
    return Fingerprint(h.hexdigest(), skills, newest)


@dataclass(frozen=True)
class FastCheck:
    """What the fast path found: nothing to do (``changed`` empty), or the skills to re-plan."""

    data: dict[str, Any]
    changed: frozenset[str]

    @property
    def noop(self) -> bool:
        return not self.changed

    @property
    def selected(self) -> list[str]:
        return list(self.data["by_skill"])

    def runs(self) -> int:
        return sum(int(v.get("planned", len(v["runs"]))) for v in self.data["by_skill"].values())


def watch_files(argv: tuple[str, ...], extra: list[str]) -> list[str]:
    """Files outside skills_dir whose change must defeat the fast path: every file or folder an
    adapter's arguments name (scripts, recorded answers; a folder by its own stat) and fixtures
    that live elsewhere."""
    out: list[str] = []
    for arg in [*argv[1:], *extra]:
        if os.path.isfile(arg):
            out.append(os.path.abspath(arg))
        elif os.path.isdir(arg):
            # The folder alone, never walked (an argument naming / took 14 s a run): what the
            # adapter reads inside it belongs in adapter.depends, which validate says.
            out.append(os.path.abspath(arg))
    return sorted(set(out))


def reader_inputs(skills: Iterable[Any]) -> list[str]:
    """What eval-set readers read outside their eval sets (EvalSet.inputs: a plugin's manifest
    and MCP configuration), by absolute path: watched whether or not each exists, unlike
    watch_files, so one added later is seen too. Any reader's, so a new one needs no change here."""
    return sorted({os.path.abspath(p) for se in skills for es in se.evalsets for p in es.inputs})


def suite_inputs(project: Project, argv: tuple[str, ...]) -> list[str]:
    """Every file outside skills_dir a suite's runs depend on (its fast path watches them):
    fixtures and eval sets kept elsewhere, a folder eval set's own files, the adapter's files, and
    the plugin loaded whole with the skills."""
    suite = project.suite
    outside = [str(f.source) for se in project.skills for c in se.cases for f in c.fixtures
               if not f.source.is_relative_to(suite.skills_dir)]
    # Eval sets kept beside the skills (and the prompt files next to them) count as inputs too.
    # A folder eval set (a plugin's evals/) is watched as itself, not the plugin around it.
    outside += [str(es.path if es.path.is_dir() else es.path.parent) for se in project.skills
                for es in se.evalsets if not es.path.is_relative_to(suite.skills_dir)]
    # A folder eval set's own files (case prompts, graders, scaffold scripts) and folders: the
    # folder's stat does not move when a file inside a case folder is edited, and a sub-folder's
    # moves when a file is added there (a case's own mock, a recording adopted into .replay/).
    outside += [str(p) for se in project.skills for es in se.evalsets
                if es.path.is_dir() and not es.path.is_relative_to(suite.skills_dir)
                for p in sorted(es.path.rglob("*"))
                if "results" not in p.relative_to(es.path).parts and not _ours(p, suite)]
    # The plugin loaded whole with the skills: its files and folders (an added command too).
    plugin = suite.plugin
    if plugin is not None:
        files = plugin.files()
        outside += [str(f) for f in files] + sorted({str(f.parent) for f in files})
    return sorted(set(watch_files(argv, outside)) | set(reader_inputs(project.skills)))


def _ours(path: Path, suite: Suite) -> bool:
    """The suite's own store or results, kept inside a plugin's eval folder (a plugin run as a
    suite): never an input."""
    return path.is_relative_to(suite.store) or path.is_relative_to(suite.results)


def _adapter_files(suite: Suite) -> list[str]:
    out = []
    adapters = suite.adapters()
    for argv in (*(a.command or () for a in adapters), (suite.judge.command or ()) if suite.judge else ()):
        for arg in argv:
            if os.path.isfile(arg):
                out.append(arg)
    # Files the adapters read (adapter.depends): globbed now, so an added match is seen too.
    for adapter in adapters:
        out += [str(p) for p in depends_files(replace(suite, adapter=adapter))]
    # The agent CLI a builtin drives (its version is in the run key): an upgrade must be seen.
    for cfg in (*adapters, suite.judge):
        builtin = find(str(getattr(cfg, "builtin", None) or "")) if cfg else None
        if builtin is not None and builtin.cli is not None:
            option, default = builtin.cli.bin_option, builtin.cli.binary
            binary = str((getattr(cfg, "options", None) or {}).get(option) or default)
            found = shutil.which(binary)
            out.append(found or f"<no {binary}>")
    return out


def table_stamps(paths: list[str]) -> list[str]:
    """Stat lines of the tables a run writes (benchmark.json per skill and model, the summaries):
    a table deleted or edited by hand defeats the fast path, so the next run rebuilds it."""
    return [_stat_line(p) for p in paths]


def _content(path: str) -> str | None:
    from skill_eval.fs.hashing import sha256_file

    try:
        return sha256_file(Path(path))
    except OSError:
        return None


def edited_tables(data: dict[str, Any] | None) -> set[str]:
    """The tables (of those the last complete run recorded) deleted or edited by hand since:
    their inputs did not change, so only this tells the next run to rewrite them. A stat change
    alone (a touch, a copy) only means "look closer": the content decides."""
    tables = data.get("tables") if isinstance(data, dict) else None
    if not isinstance(tables, dict):
        return set()
    sums = data.get("table_sums") if isinstance(data, dict) else None
    sums = sums if isinstance(sums, dict) else {}
    out = set()
    for path, stamp in tables.items():
        if _stat_line(str(path)) == stamp:
            continue
        now = _content(str(path))
        if now is None or now != sums.get(path, now):
            out.add(str(path))
    return out


class FastState:
    """``<store>/state/<suite>.fast.json``: the fingerprint and the keys it vouches for."""

    def __init__(self, store_root: Path, suite_name: str):
        self.path = store_root / "state" / f"{suite_name}.fast.json"
        self._loaded: tuple[dict[str, Any] | None] | None = None  # a megabyte on big suites: read once

    def load(self) -> dict[str, Any] | None:
        if self._loaded is None:
            try:
                self._loaded = (json.loads(self.path.read_text("utf-8")),)
            except (OSError, ValueError):
                self._loaded = (None,)
        return self._loaded[0]

    def check(self, fp: Fingerprint) -> FastCheck | None:
        """None: look at everything. Otherwise the skills whose folders changed since the last
        complete run; every other skill's run entries still carry the stat stamp they had when
        verified, their grades are present, and the tables are as written."""
        from skill_eval.engine.state import entry_stamp

        recorded = recorded_at(self.path)
        data = self.load()
        if (not isinstance(data, dict) or data.get("version") != FAST_VERSION
                or data.get("common") != fp.common or set(data.get("skill_fps", {})) != set(fp.skills)):
            return None
        root = str(self.path.parent.parent)
        try:
            moved = {n for n in fp.skills if data["skill_fps"][n] != fp.skills[n]}
            if moved - set(data["by_skill"]):
                return None  # a folder that is not a skill (eval sets kept beside them, say)
            changed = frozenset(moved)
            # Racy (as git's index): a part whose stat is as recorded, but whose files changed in
            # the clock tick the fingerprint was written, may have changed again since unseen.
            if any(is_racy(fp.newest.get(part, 0), recorded) for part in ("", *fp.skills)
                   if part not in changed):
                return None
            for name, entry in data["by_skill"].items():
                if name in changed:
                    continue
                for key, stamp in entry["runs"].items():
                    if entry_stamp(root, key, stamp) != stamp:
                        return None
                for key in entry["grades"]:
                    if not os.path.exists(f"{root}/grades/{key[:2]}/{key}.json"):
                        return None
            tables = data["tables"]
            if not tables or table_stamps(list(tables)) != list(tables.values()):
                return None
        except (KeyError, AttributeError, TypeError):
            return None
        return FastCheck(data, changed)

    def watched(self) -> list[str]:
        data = self.load()
        watch = data.get("watch") if isinstance(data, dict) else None
        return [str(w) for w in watch] if isinstance(watch, list) else []

    @writes(lambda self, *args: self.path)
    def save(self, fp: Fingerprint, by_skill: dict[str, dict[str, Any]], outcome: dict[str, Any],
             watch: list[str], tables: list[str]) -> None:
        """``by_skill``: skill → {"runs": {run key: entry stamp}, "grades": [grade key], "planned":
        the count of its selected runs} for every
        selected skill; ``tables``: the table files whose stat must stay as it is now."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        stamps = dict(zip(tables, table_stamps(tables), strict=True))
        # A table whose stat line is as last recorded keeps its recorded hash: re-hashing every
        # table (a 6,000-run review page is megabytes) after each run would be the same answer.
        last = self.load() or {}
        last_stamps, last_sums = last.get("tables") or {}, last.get("table_sums") or {}
        sums = {t: last_sums[t] if last_stamps.get(t) == stamps[t] and t in last_sums else _content(t)
                for t in tables}
        # dumps, then one write: json.dump to a file takes the slow pure-Python encoder.
        text = json.dumps({"version": FAST_VERSION, "common": fp.common, "skill_fps": fp.skills,
                           "by_skill": by_skill, "tables": stamps, "table_sums": sums,
                           "outcome": outcome, "watch": watch}, separators=(",", ":"))
        write_atomic(self.path, text, prefix=".fast.")
        self._loaded = None

    def clear(self) -> None:
        with writing(self.path):
            self.path.unlink(missing_ok=True)
        self._loaded = None
