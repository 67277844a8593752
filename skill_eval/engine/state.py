"""What the last run of a suite saw, per slot: so `status` can say *why* something is out of date.

The store says whether a result exists; this file remembers the key material behind the result
of each slot (skill/case/arm/model/iteration), in short hashes, plus each skill's file list.
It is advisory: losing it only makes reasons vaguer ("never run"), never causes a re-run.
It also remembers, per run key, the stat stamp of the store entry when it was last verified, so a
damaged entry (truncated file) is noticed without re-reading every entry on every plan.

Worker threads update it while runs finish: every update and the save go through one lock.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from skill_eval.fs.atomic import write_atomic
from skill_eval.fs.hashing import key_of

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
    if material.get("plugin"):  # the plugin loaded whole in the with-skill arm
        out["plugin"] = short(material["plugin"])
    if material.get("settings"):  # a case's own run settings: named one by one in reasons
        out["settings"] = {name: short(key_of(v)) for name, v in material["settings"].items()}
    return out


def entry_stamp(store_root: Path | str, key: str, recorded: str | None = None) -> str | None:
    """Stat stamp of a run entry's result files (size, mtime, ctime and inode of each, as git's
    index keeps them: an in-place edit that restores size and mtime still moves ctime) and of its
    kept workspace files (``:k0`` when it kept none, else ``:k<count>.<digest of their stats>``),
    or None when the entry is not whole. Equal stamps mean "verified before and untouched since".
    ``recorded``: the stamp this one is compared with; when it says the entry kept no files, the
    kept-files folder is not listed (a no-op over thousands of entries pays three stats each)."""
    base = f"{store_root}/runs/{key[:2]}/{key}/"
    parts = []
    try:
        for name in ("COMPLETE.json", "response.json", "timing.json"):
            st = os.stat(base + name)
            parts.append(f"{st.st_size}.{st.st_mtime_ns}.{st.st_ctime_ns}.{st.st_ino}")
    except OSError:
        return None
    if recorded is not None and recorded.endswith(":k0"):
        parts.append("k0")
    else:
        try:
            parts.append(_kept_stamp(base))
        except OSError:
            return None
    return ":".join(parts)


def _kept_stamp(base: str) -> str:
    """``k<count>.<digest>`` of the stats of every file under the entry's files/ (outputs/ in
    entries older than kept workspace files): a kept file edited in place moves it."""
    lines: list[str] = []
    for top in ("files", "outputs"):
        if not os.path.isdir(base + top):
            continue
        pending = [base + top]
        while pending:
            with os.scandir(pending.pop()) as it:
                for entry in it:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                        continue
                    st = entry.stat(follow_symlinks=False)
                    lines.append(f"{entry.path[len(base):]}|{st.st_size}.{st.st_mtime_ns}."
                                 f"{st.st_ctime_ns}.{st.st_ino}")
        break
    if not lines:
        return "k0"
    digest = hashlib.sha256("\n".join(sorted(lines)).encode("utf-8", "surrogateescape")).hexdigest()
    return f"k{len(lines)}.{digest[:24]}"


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

    def save(self) -> None:
        with self.lock:
            text = json.dumps({"version": STATE_VERSION, "slots": self.slots, "skills": self.skills,
                               "grading": self.grading, "verified": self.verified, "extra": self.extra},
                              sort_keys=True, separators=(",", ":"))
        write_atomic(self.path, text, prefix=".state.")
