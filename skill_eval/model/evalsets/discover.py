"""Which files of a skill (or of any folder) are eval sets.

A skill keeps its eval sets in ``<skill>/evals/`` (``evals.json``, trigger sets, harness
manifests); files below ``evals/`` subfolders are fixtures and never eval sets. Some
repositories keep ``evals/`` beside the skill instead (``repo/evals`` + ``repo/<skill>/`` or
``repo/skills/<skill>/``): when a skill has no ``evals/`` of its own, the nearest such folder one
or two levels up is used, keeping only the files that belong to this skill (their
``skill_name`` is the folder name, their ``skill_paths`` point into it, or the repository holds
just this one skill).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput
from skill_eval.model.evalsets.registry import detect_folder, detect_format
from skill_eval.model.evalsets.source import load_document

SUFFIXES = (".json", ".yaml", ".yml")
# Named like an eval set: listed even when unreadable, so the user sees why.
EVALSET_NAMES = ("evals.json", "evals.yaml", "evals.yml", "shared-benchmark.json", "shared-benchmark.yaml",
                 "shared-benchmark.yml")
TRIGGER_PREFIX = "trigger"


def _load(path: Path) -> Any:
    try:
        return load_document(path, str(path)).data
    except InvalidInput:
        return None


def _claimed(path: Path) -> bool:
    if path.name in EVALSET_NAMES or path.name.startswith(TRIGGER_PREFIX):
        return True
    data = _load(path)
    return data is not None and detect_format(data, path) is not None


def evalsets_in(evals_dir: Path) -> list[Path]:
    """Eval-set files directly in an ``evals/`` folder; evals.json first, then by name. A folder
    that is an eval set as a whole (a claude plugin eval suite) is listed first, as itself."""
    whole = [evals_dir] if detect_folder(evals_dir) else []
    files = [p for p in evals_dir.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES]
    found = [p for p in files if _claimed(p)]
    return whole + sorted(found, key=lambda p: (p.name != "evals.json", p.name))


def _belongs(path: Path, skill_root: Path, repo: Path) -> bool:
    data = _load(path)
    if isinstance(data, dict):
        name = data.get("skill_name", data.get("skill"))
        paths = data.get("skill_paths")
        if isinstance(paths, list) and paths:
            return any(isinstance(p, str) and (repo / p).resolve().parent == skill_root.resolve()
                       for p in paths)
        if isinstance(name, str):
            return name == skill_root.name
    skills = list(repo.glob("*/SKILL.md")) + list(repo.glob("*/*/SKILL.md"))
    return len(skills) == 1


def find_evalsets(skill_root: Path) -> list[Path]:
    """The eval-set files of the skill folder ``skill_root`` (see the module docstring)."""
    own = skill_root / "evals"
    if own.is_dir():
        return evalsets_in(own)
    for repo in (skill_root.parent, skill_root.parent.parent):
        beside = repo / "evals"
        if beside.is_dir():
            return [p for p in evalsets_in(beside) if p.is_dir() or _belongs(p, skill_root, repo)]
    return []


def find_all_evalsets(folder: Path) -> list[Path]:
    """Every eval-set file in any ``evals/`` folder under ``folder`` (for ``inspect`` on a tree)."""
    dirs = [folder] if folder.name == "evals" else []
    dirs += sorted(p for p in folder.rglob("evals")
                   if p.is_dir() and "evals" not in p.relative_to(folder).parent.parts)
    found: list[Path] = []
    for d in dirs:
        found += evalsets_in(d)
    return found
