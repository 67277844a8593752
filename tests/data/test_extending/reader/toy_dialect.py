"""A toy eval-set dialect: ``{"toy_questions": [{"ask": ..., "answer_has": ...}]}``, each question a
case whose answer must contain ``answer_has``. tests/test_extending.py registers it for the length
of a test, as ``Reader("toy", "toy_dialect", ...)``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_eval.errors import Problem
from skill_eval.model.cases import Case, Check, EvalSet

FORMAT = "toy"


def detect(data: Any, path: Path) -> int:
    return 95 if isinstance(data, dict) and isinstance(data.get("toy_questions"), list) else 0


def read(data: Any, path: Path, skill_root: Path, display: str) -> EvalSet:
    cases: list[Case] = []
    problems: list[Problem] = []
    for i, item in enumerate(data["toy_questions"]):
        if not isinstance(item, dict) or not isinstance(item.get("ask"), str):
            problems.append(Problem(display, f"toy_questions[{i}]: needs 'ask' (a question)"))
            continue
        checks = (Check(id="answer", type="contains", params={"value": item["answer_has"]}),) \
            if isinstance(item.get("answer_has"), str) else ()
        cases.append(Case(id=f"q{i + 1}", prompt=item["ask"], checks=checks, source=display))
    return EvalSet(path, FORMAT, data.get("skill"), tuple(cases), tuple(problems))
