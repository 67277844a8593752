"""What the last run of a suite saw, per slot: so `status` can say *why* something is out of date.

The store says whether a result exists; this file remembers the key material behind the result
of each slot (skill/case/variant/model/iteration), in short hashes, plus each skill's file list.
It is advisory: losing it only makes reasons vaguer ("never run"), never causes a re-run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .hashing import key_of

STATE_VERSION = 1


def short(h: str) -> str:
    return h[:16]


def slot_material(material: dict[str, Any]) -> dict[str, Any]:
    """The parts of a run's key material worth naming in a reason, compacted."""
    return {
        "prompt": short(key_of(material["prompt"])),
        "files": {rel: short(h) for rel, h in material["files"]},
        "skill": short(material["skill"]) if material["skill"] else None,
        "adapter": short(key_of(material["adapter"])),
        "model": material["model"],
        "trigger": material["trigger"],
    }


class SuiteState:
    def __init__(self, path: Path):
        self.path = path
        self.slots: dict[str, dict[str, Any]] = {}
        self.skills: dict[str, dict[str, str]] = {}
        self.grading: dict[str, str] = {}  # slot → grading-material hash last graded with
        self.extra: dict[str, Any] = {}
        try:
            data = json.loads(path.read_text("utf-8"))
            if data.get("version") == STATE_VERSION:
                self.slots = data.get("slots", {})
                self.skills = data.get("skills", {})
                self.grading = data.get("grading", {})
                self.extra = data.get("extra", {})
        except (OSError, ValueError, AttributeError):
            pass

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".state.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"version": STATE_VERSION, "slots": self.slots, "skills": self.skills,
                           "grading": self.grading, "extra": self.extra}, f, sort_keys=True,
                          separators=(",", ":"))
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
