"""What the review page shows of each run, kept beside a skill's table (``.review/``) so a
rebuild after one changed run reads that run's view and these files, not every run folder.

An entry is the page data of one run view (or a case's prompt), stored with the run's grade key
(which includes its run key). The view's only writer, ``tables.build_skill``, drops the entries
of the views it rewrites before writing them, so a re-run under the same key (``--force``, a
damaged entry) can never be shown from here, even after a crash between the two steps.

Entries are spread over a few shard files by case, so one changed run rewrites one shard (a
6,000-run skill's page data is ~7 MB of JSON: encoding all of it again costs more than the
rest of a rebuild)."""

from __future__ import annotations

import json
import shutil
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from skill_eval import __version__
from skill_eval.fs.atomic import write_atomic
from skill_eval.fs.safenames import arm_folder, path_component

FOLDER = ".review"
SHARDS = 32
CACHE_VERSION = 1


def case_rel(iteration: int, case_id: str) -> str:
    """A case's folder in one iteration, relative to the skill's results folder."""
    return f"iteration-{iteration}/{'eval-' + path_component(case_id)}"


def run_rel(iteration: int, case_id: str, arm: str) -> str:
    return f"{case_rel(iteration, case_id)}/{arm_folder(arm)}"


def _shard(case_folder: str) -> int:
    return zlib.crc32(case_folder.encode("utf-8")) % SHARDS


def _case_of(rel: str) -> str:
    parts = rel.split("/")
    return parts[1] if len(parts) > 1 else rel


class PageCache:
    """``identities``: run folder (relative) → the grade key of the run shown there, where the
    plan knows it (a skill outside a partial plan is not listed: its entries stand, as their
    views do). Case prompts are kept by case folder name (``eval-<id>``)."""

    def __init__(self, folder: Path, identities: Mapping[str, str] | None = None):
        self.folder = folder / FOLDER
        self.identities = identities or {}
        self.runs: dict[str, Any] = {}
        self.cases: dict[str, Any] = {}
        self.reads = 0  # views read from disk this time (for tests and the benchmark)
        self._dirty: set[int] = set()
        for n in range(SHARDS):
            try:
                data = json.loads((self.folder / f"{n:02d}.json").read_text("utf-8"))
                if data.get("version") == [CACHE_VERSION, __version__]:
                    self.runs.update(data["runs"])
                    self.cases.update(data["cases"])
            except (OSError, ValueError, AttributeError, KeyError, TypeError):
                continue

    def run(self, rel: str, compute: Callable[[], Any]) -> Any:
        """The page data of one run folder: kept, unless its grade key is known and differs."""
        ident = self.identities.get(rel)
        hit = self.runs.get(rel)
        if isinstance(hit, list) and len(hit) == 2 and (ident is None or hit[0] == ident):
            return hit[1]
        value = compute()
        self.reads += 1
        self.runs[rel] = [ident, value]
        self._dirty.add(_shard(_case_of(rel)))
        return value

    def case(self, folder: str, compute: Callable[[], Any]) -> Any:
        if folder in self.cases:
            return self.cases[folder]
        value = self.cases[folder] = compute()
        self._dirty.add(_shard(folder))
        return value

    def drop(self, runs: Iterable[str]) -> None:
        """Forget these run folders (and their cases' prompts): their views are being rewritten."""
        for rel in runs:
            case = _case_of(rel)
            dropped = [self.runs.pop(rel, None), self.cases.pop(case, None)]
            if any(d is not None for d in dropped):
                self._dirty.add(_shard(case))

    def save(self) -> None:
        if not self._dirty:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        shards: dict[int, dict[str, dict[str, Any]]] = {n: {"runs": {}, "cases": {}} for n in self._dirty}
        for kind, entries, case_of in (("runs", self.runs, _case_of), ("cases", self.cases, str)):
            for key, value in entries.items():
                shard = shards.get(_shard(case_of(key)))
                if shard is not None:
                    shard[kind][key] = value
        for n, shard in sorted(shards.items()):
            if not shard["runs"] and not shard["cases"]:
                # Every entry dropped (a case removed): no file, as a first build would have none.
                (self.folder / f"{n:02d}.json").unlink(missing_ok=True)
                continue
            # One dumps, then one write: json.dump to a file goes through the slow chunked encoder.
            text = json.dumps({"version": [CACHE_VERSION, __version__], **shard},
                              separators=(",", ":"), ensure_ascii=False)
            write_atomic(self.folder / f"{n:02d}.json", text, prefix=f".{n:02d}.")
        self._dirty.clear()

    @staticmethod
    def clear(folder: Path) -> None:
        shutil.rmtree(folder / FOLDER, ignore_errors=True)


PART = "page.json"


class SkillPart:
    """One skill's whole share of the page data, as the embedded JSON text it becomes, kept
    under ``.review/`` with the key of what it was made from (the benchmark's inputs key, the
    moved cases): an edit elsewhere in the suite reuses it instead of reassembling thousands
    of runs. It goes whenever a view of the skill is rewritten or removed (``tables._sync_views``)."""

    def __init__(self, folder: Path, key: str):
        self.path = folder / FOLDER / PART
        self.key = key

    def load(self) -> tuple[str, int] | None:
        """(embedded text, runs in it), or None when missing or made from other inputs."""
        try:
            data = json.loads(self.path.read_text("utf-8"))
            if data.get("version") == [CACHE_VERSION, __version__] and data.get("key") == self.key:
                return str(data["text"]), int(data["runs"])
        except (OSError, ValueError, AttributeError, KeyError, TypeError):
            pass
        return None

    def save(self, text: str, runs: int) -> None:
        data = json.dumps({"version": [CACHE_VERSION, __version__], "key": self.key, "text": text,
                           "runs": runs}, separators=(",", ":"), ensure_ascii=False)
        write_atomic(self.path, data, prefix=".page.")

    @staticmethod
    def drop(folder: Path) -> None:
        (folder / FOLDER / PART).unlink(missing_ok=True)
