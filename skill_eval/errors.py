"""Error kinds, kept apart as doit keeps TaskError / TaskFailed / InvalidTask apart. Every floor
speaks them, the file-system and intake floors below the model included, so they sit beneath all
of them and import nothing of ours.

- ``InvalidInput``: a user's file is wrong; carries every problem found; exit code 2.
- ``AdapterError``: a run could not happen (crash, timeout, bad response); recorded, never cached.
- A check that fails is not an exception at all: it is a grade with ``passed: false``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong (or worth a warning) in one file, at one place."""

    file: str
    message: str
    line: int | None = None
    column: int | None = None
    severity: str = "error"  # "error" | "warning"

    def format(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{where}: {prefix}{self.message}"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


class SkillEvalError(Exception):
    """Base of every error skill-eval raises on purpose."""


class InvalidInput(SkillEvalError):
    """One or more user inputs are invalid. The CLI prints each problem and exits 2."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(p.format() for p in self.problems))


class AdapterError(SkillEvalError):
    """A run (or judge call) could not produce a result. Recorded with its message, never cached."""


class StoreError(SkillEvalError):
    """The store could not be used (locked by another process, unwritable)."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A ' (did you mean 'x'?)' suffix, or '' when nothing is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def raise_if_errors(problems: Iterable[Problem]) -> None:
    problems = list(problems)
    if any(p.is_error for p in problems):
        raise InvalidInput(problems)


class JudgeError(SkillEvalError):
    """The judge could not grade a run: it failed, timed out, or answered outside the protocol."""


class JudgeFatal(JudgeError):
    """The judge cannot work at all (bad key, endpoint down: it exited with the adapters' fatal
    status 77): every judge call would fail the same way. ``started`` is False for a call that
    was not made because an earlier one was fatal."""

    def __init__(self, message: str, started: bool = True) -> None:
        super().__init__(message)
        self.started = started
