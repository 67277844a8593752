"""Whether a run of the compared version left the same output as the current run of the same
case and iteration, remembered beside the suite's history in the store
(``<store>/history/<suite>.same-outputs.json``; it holds stat stamps, so it is no part of the
results folder), so a page rebuild after one edit reads the two store entries of the runs that
changed, not every with-skill run of both versions.

An answer is kept with the stat stamps of both store entries: an entry stored again under the
same key (``--force``, a damaged entry re-run) has a new stamp, and the outputs are compared
afresh. The file is advisory: lost or damaged, every pair is compared again."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skill_eval.fs.atomic import write_atomic
from skill_eval.store.store import MANIFEST, Store

VERSION = 1


def _stamp(store: Store, key: str) -> list[int] | None:
    try:
        st = os.stat(store.run_dir(key) / MANIFEST)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


class SameOutputs:
    def __init__(self, path: Path, store: Store):
        self.path = path
        self.store = store
        try:
            data = json.loads(path.read_text("utf-8"))
            self.kept: dict[str, Any] = data["pairs"] if data.get("version") == VERSION else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.kept = {}
        self.fresh: dict[str, Any] = {}
        self.compared = 0  # pairs whose outputs were read this time (for tests)

    def same(self, before: str, now: str, compare: Callable[[], bool]) -> bool:
        pair = f"{before}:{now}"
        stamps = [_stamp(self.store, before), _stamp(self.store, now)]
        hit = self.kept.get(pair)
        if isinstance(hit, list) and len(hit) == 3 and hit[:2] == stamps and None not in stamps:
            self.fresh[pair] = hit
            return bool(hit[2])
        self.compared += 1
        answer = compare()
        self.fresh[pair] = [*stamps, answer]
        return answer

    def save(self) -> None:
        """Keeps only the pairs asked about this time: the file never outgrows the page."""
        if self.fresh != self.kept:
            text = json.dumps({"version": VERSION, "pairs": self.fresh}, separators=(",", ":"))
            write_atomic(self.path, text.encode("utf-8"))
