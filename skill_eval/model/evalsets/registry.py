"""The eval-set dialects: one ``Reader`` descriptor each, registered once in ``READERS``, which
everything that lists dialects reads (reading and detection, discovery, ``inspect --format``'s
help and messages); and which dialect a file is (the reader most confident of it).

A reader is a module with ``detect(data, path) -> int`` (0: not mine; higher: surer) and
``read(data, path, skill_root, display) -> EvalSet``; a folder-shaped dialect (``folder``) also
has ``detect_folder(path) -> int`` and is read with ``data`` None. Modules are imported on first
use, so naming a dialect costs nothing until a file is read.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from skill_eval.registry import Registry


@dataclass(frozen=True)
class Reader:
    """One dialect: its name (``format:`` in a suite, ``inspect --format``), the module that reads
    it, what ``inspect --help`` says of it, and whether an eval set of it is a folder."""

    name: str
    module: str
    summary: str
    folder: bool = False

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)


READERS: Registry[Reader] = Registry("eval-set format")
for _reader in (
    Reader("native", "skill_eval.model.evalsets.native", "agentskills.io evals.json with checks"),
    Reader("skill_creator", "skill_eval.model.evalsets.skill_creator", "skill-creator's evals.json"),
    Reader("skill_forge", "skill_eval.model.evalsets.skill_forge", "skill-forge eval sets"),
    Reader("harness", "skill_eval.model.evalsets.harness_manifest.harness", "skill-eval-harness manifests"),
    Reader("triggers", "skill_eval.model.evalsets.triggers", "trigger queries"),
    Reader("required_veto", "skill_eval.model.evalsets.required_veto", "labelled behaviour cases"),
    Reader("plugin_eval", "skill_eval.model.evalsets.claude_plugin.plugin_eval",
           "a claude plugin eval folder", folder=True),
):
    READERS.add(_reader)


def reader(format: str) -> ModuleType:
    return READERS.require(format, "--format").load()


def detect_folder(path: Path) -> str | None:
    """The format of an eval set that is a folder (the folder-shaped readers'), or None."""
    best, best_score = None, 0
    for part in READERS:
        score = part.load().detect_folder(path) if part.folder else 0
        if score > best_score:
            best, best_score = part.name, score
    return best


def detect_format(data: Any, path: Path) -> str | None:
    """The format whose reader is most confident, or None when no reader claims the data."""
    best, best_score = None, 0
    for part in READERS:
        score = part.load().detect(data, path)
        if score > best_score:
            best, best_score = part.name, score
    return best
