"""The eval-set dialects by name, and which one a file is (the reader most confident of it)."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

from skill_eval.errors import InvalidInput, Problem, did_you_mean

# format name -> module (imported on first use)
READERS: dict[str, str] = {
    "native": "skill_eval.model.evalsets.native",
    "skill_creator": "skill_eval.model.evalsets.skill_creator",
    "skill_forge": "skill_eval.model.evalsets.skill_forge",
    "harness": "skill_eval.model.evalsets.harness_manifest.harness",
    "triggers": "skill_eval.model.evalsets.triggers",
    "required_veto": "skill_eval.model.evalsets.required_veto",
    "plugin_eval": "skill_eval.model.evalsets.claude_plugin.plugin_eval",  # a folder: detect_folder
}


def reader(format: str) -> ModuleType:
    if format not in READERS:
        raise InvalidInput([Problem("--format", f"unknown eval-set format '{format}'"
                                    f"{did_you_mean(format, READERS)}; known: {', '.join(READERS)}")])
    return importlib.import_module(READERS[format])


def detect_folder(path: Path) -> str | None:
    """The format of an eval set that is a folder (readers with ``detect_folder``), or None."""
    best, best_score = None, 0
    for name in READERS:
        detect = getattr(reader(name), "detect_folder", None)
        score = detect(path) if detect else 0
        if score > best_score:
            best, best_score = name, score
    return best


def detect_format(data: Any, path: Path) -> str | None:
    """The format whose reader is most confident, or None when no reader claims the data."""
    best, best_score = None, 0
    for name in READERS:
        score = reader(name).detect(data, path)
        if score > best_score:
            best, best_score = name, score
    return best
