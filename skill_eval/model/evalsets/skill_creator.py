"""Anthropic skill-creator ``evals/evals.json``: as native, with ``expectations`` for assertions.

See skills/skill-creator/references/schemas.md: ``files`` are relative to the skill root and
every expectation is a sentence a grader checks, so each becomes a rubric item.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.model.cases import EvalSet
from skill_eval.model.evalsets.agentskills import case_list, read_agentskills

FORMAT = "skill_creator"


def detect(data: Any, path: Path) -> int:
    cases = case_list(data)
    if cases is None:
        return 0
    dicts = [c for c in cases if isinstance(c, dict)]
    if any("eval_id" in c for c in dicts):
        return 0
    return 60 if any("expectations" in c for c in dicts) else 0


def read(data: Any, path: Path, skill_root: Path, display: str) -> EvalSet:
    return read_agentskills(data, path, skill_root, display, FORMAT)
