"""Names that would share a folder under ``results/`` once mapped to path components.

Folders are compared as macOS and Windows file systems compare them, ignoring case and Unicode
normalisation: ``Case-1`` and ``case-1``, or ``é`` written as one code point or as ``e`` and a
combining accent, are one folder there, and one run's results would overwrite the other's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from skill_eval.errors import Problem
from skill_eval.fs.safenames import describe, path_component
from skill_eval.model.cases import EvalSet


def name_problems(suite_file: str, models: Iterable[str], skills: Iterable[tuple[str, Iterable[EvalSet]]]
                  ) -> list[Problem]:
    """One error per name whose folder (see safenames) is already taken by another name: its
    results would overwrite the other's."""
    problems: list[Problem] = []
    _unique(problems, "model", ((m, suite_file, None) for m in models))
    skills = list(skills)
    _unique(problems, "skill", ((name, suite_file, None) for name, _ in skills))
    for name, sets in skills:
        _unique(problems, f"case id of skill {name}",
                ((c.id, c.source or str(es.path), c.line) for es in sets for c in es.cases))
    return problems


def _same_folder(folder: str) -> str:
    return unicodedata.normalize("NFC", folder).casefold()


def _unique(problems: list[Problem], what: str, names: Iterable[tuple[str, str, int | None]]) -> None:
    taken: dict[str, str] = {}
    for name, file, line in names:
        folder = path_component(name)
        first = taken.setdefault(_same_folder(folder), name)
        if first == name:
            continue
        if path_component(first) == folder:
            problems.append(Problem(file, f"{what} {describe(name)} is written to the same folder "
                                    f"'{folder}' as {describe(first)}; rename one of them", line))
        else:
            problems.append(Problem(file, f"{what} {describe(name)} differs from {describe(first)} only "
                                    "in case or Unicode normalisation: on macOS and Windows both are "
                                    "written to one folder; rename one of them", line))
