"""What the review page shows of each run, kept beside a skill's table (``.review.json``) so a
rebuild after one changed run reads that run's view and this one file, not every run folder.

An entry is the page data of one run view (or a case's prompt), stored with the run's grade key
(which includes its run key). The view's only writer, ``tables.build_skill``, drops the entries
of the views it rewrites before writing them, so a re-run under the same key (``--force``, a
damaged entry) can never be shown from here, even after a crash between the two steps."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from skill_eval import __version__
from skill_eval.model import sharedfiles
from skill_eval.model.names import path_segment

FILENAME = ".review.json"
CACHE_VERSION = 1


def case_rel(iteration: int, case_id: str) -> str:
    """A case's folder in one iteration, relative to the skill's results folder."""
    return f"iteration-{iteration}/{path_segment(f'eval-{case_id}')}"


def run_rel(iteration: int, case_id: str, variant: str) -> str:
    return f"{case_rel(iteration, case_id)}/{variant}"


class PageCache:
    """``identities``: run folder (relative) → the grade key of the run shown there, where the
    plan knows it (a skill outside a partial plan is not listed: its entries stand, as their
    views do). Case prompts are kept by case folder name (``eval-<id>``)."""

    def __init__(self, folder: Path, identities: Mapping[str, str] | None = None):
        self.path = folder / FILENAME
        self.identities = identities or {}
        self.runs: dict[str, Any] = {}
        self.cases: dict[str, Any] = {}
        self.reads = 0  # views read from disk this time (for tests and the benchmark)
        self._dirty = False
        try:
            data = json.loads(self.path.read_text("utf-8"))
            if data.get("version") == [CACHE_VERSION, __version__]:
                self.runs, self.cases = dict(data["runs"]), dict(data["cases"])
        except (OSError, ValueError, AttributeError, KeyError, TypeError):
            pass

    def run(self, rel: str, compute: Callable[[], Any]) -> Any:
        """The page data of one run folder: kept, unless its grade key is known and differs."""
        ident = self.identities.get(rel)
        hit = self.runs.get(rel)
        if isinstance(hit, list) and len(hit) == 2 and (ident is None or hit[0] == ident):
            return hit[1]
        value = compute()
        self.reads += 1
        self.runs[rel] = [ident, value]
        self._dirty = True
        return value

    def case(self, rel: str, compute: Callable[[], Any]) -> Any:
        if rel in self.cases:
            return self.cases[rel]
        value = self.cases[rel] = compute()
        self._dirty = True
        return value

    def drop(self, runs: Iterable[str]) -> None:
        """Forget these run folders (and their cases' prompts): their views are being rewritten."""
        for rel in runs:
            if self.runs.pop(rel, None) is not None:
                self._dirty = True
            parts = rel.split("/")
            if len(parts) > 1 and self.cases.pop(parts[1], None) is not None:
                self._dirty = True

    def save(self) -> None:
        if not self._dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = sharedfiles.mkstemp(dir=self.path.parent, prefix=f".{FILENAME}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": [CACHE_VERSION, __version__], "runs": self.runs, "cases": self.cases},
                          f, separators=(",", ":"), ensure_ascii=False)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._dirty = False

    @staticmethod
    def clear(folder: Path) -> None:
        (folder / FILENAME).unlink(missing_ok=True)
