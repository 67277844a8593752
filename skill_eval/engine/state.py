"""What the last run of a suite saw, per slot: so `status` can say *why* something is out of date.

The store says whether a result exists; this file remembers the key material behind the result
of each slot (skill/case/variant/model/iteration), in short hashes, plus each skill's file list.
It is advisory: losing it only makes reasons vaguer ("never run"), never causes a re-run.
It also remembers, per run key, the stat stamp of the store entry when it was last verified, so a
damaged entry (truncated file) is noticed without re-reading every entry on every plan.

Worker threads update it while runs finish: every update and the save go through one lock.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from skill_eval.fs import sharedfiles
from skill_eval.fs.hashing import key_of
from skill_eval.fs.storage import writes

STATE_VERSION = 1


def short(h: str) -> str:
    return h[:16]


def slot_material(material: dict[str, Any]) -> dict[str, Any]:
    """The parts of a run's key material worth naming in a reason, compacted."""
    adapter = dict(material["adapter"])
    depends = adapter.pop("depends", None)  # adapter.depends: named file by file in reasons
    out = {
        "prompt": short(key_of(material["prompt"])),
        "files": {rel: short(h) for rel, h in material["files"]},
        "skill": short(material["skill"]) if material["skill"] else None,
        "adapter": short(key_of(adapter)),
        "model": material["model"],
        "trigger": material["trigger"],
    }
    if depends is not None:
        out["depends"] = {rel: short(h) for rel, h in depends.items()}
    return out


def entry_stamp(store_root: Path | str, key: str) -> str | None:
    """Stat stamp of a run entry's result files (size, mtime, ctime and inode of each, as git's
    index keeps them: an in-place edit that restores size and mtime still moves ctime), or None
    when the entry is not whole. Equal stamps mean "verified before and untouched since"."""
    base = f"{store_root}/runs/{key[:2]}/{key}/"
    parts = []
    try:
        for name in ("COMPLETE.json", "response.json", "timing.json"):
            st = os.stat(base + name)
            parts.append(f"{st.st_size}.{st.st_mtime_ns}.{st.st_ctime_ns}.{st.st_ino}")
    except OSError:
        return None
    return ":".join(parts)


class SuiteState:
    def __init__(self, path: Path):
        self.path = path
        self.lock = threading.Lock()
        self.slots: dict[str, dict[str, Any]] = {}
        self.skills: dict[str, dict[str, str]] = {}
        self.grading: dict[str, str] = {}  # slot → grading-material hash last graded with
        self.verified: dict[str, str] = {}  # run key → entry_stamp when last verified
        self.extra: dict[str, Any] = {}
        try:
            data = json.loads(path.read_text("utf-8"))
            if data.get("version") == STATE_VERSION:
                self.slots = dict(data.get("slots", {}))
                self.skills = dict(data.get("skills", {}))
                self.grading = dict(data.get("grading", {}))
                self.verified = dict(data.get("verified", {}))
                self.extra = dict(data.get("extra", {}))
        except (OSError, ValueError, AttributeError, TypeError):
            pass  # missing or damaged: start afresh (only reasons get vaguer)

    def record_run(self, slot: str, entry: dict[str, Any], key: str, stamp: str | None) -> None:
        with self.lock:
            self.slots[slot] = entry
            if stamp is not None:
                self.verified[key] = stamp

    def record_grade(self, slot: str, material_hash: str, grader: str) -> None:
        with self.lock:
            self.grading[slot] = material_hash
            self.extra["grader"] = grader

    def mark_verified(self, key: str, stamp: str) -> None:
        with self.lock:
            self.verified[key] = stamp

    @writes(lambda self: self.path)
    def save(self) -> None:
        with self.lock:
            text = json.dumps({"version": STATE_VERSION, "slots": self.slots, "skills": self.skills,
                               "grading": self.grading, "verified": self.verified, "extra": self.extra},
                              sort_keys=True, separators=(",", ":"))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = sharedfiles.mkstemp(dir=self.path.parent, prefix=".state.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
