"""agentskills.io ``evals/evals.json`` plus the ``checks`` extension (the native dialect); the
shape is read by ``agentskills``, shared with the skill-creator dialect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.model.cases import EvalSet
from skill_eval.model.evalsets.agentskills import case_list, read_agentskills

FORMAT = "native"


def detect(data: Any, path: Path) -> int:
    cases = case_list(data)
    if cases is None:
        return 0
    dicts = [c for c in cases if isinstance(c, dict)]
    if any("eval_id" in c for c in dicts):
        return 10
    if any("expectations" in c for c in dicts):
        return 40
    return 90 if any("checks" in c for c in dicts) else 80


def read(data: Any, path: Path, skill_root: Path, display: str) -> EvalSet:
    return read_agentskills(data, path, skill_root, display, FORMAT)
