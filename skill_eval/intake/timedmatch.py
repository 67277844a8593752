"""The one matcher for every regular expression an eval set supplies: time-limited.

A ``regex`` check's pattern, a ``json_schema`` check's ``pattern`` and ``patternProperties``, the
trace checks' command and tool-name patterns: all are compiled and searched here. Patterns run on
the ``regex`` engine (its ``re``-compatible VERSION0 mode) rather than ``re`` because a search
can be given a time limit, and because it checks for signals while it backtracks: SIGTERM and
Ctrl-C stop a long search at once instead of after it ends (``re`` would run ``^(a+)+$`` on 40
``a`` and a ``!`` for hours, deaf to both).

Every search gets at most ``REGEX_TIMEOUT_MS``; inside ``pattern_budget()`` all searches together
get that much, so a check that matches one pattern against 10,000 commands cannot take 10,000
times as long. Only the time spent searching counts against the budget: a check's own set-up
(importing jsonschema, checking a schema) on a loaded machine must not time out a benign
pattern. Running out raises PatternTimedOut, which a check turns into a fail with evidence.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import TYPE_CHECKING

from skill_eval.intake.limits import REGEX_TIMEOUT_MS

if TYPE_CHECKING:
    import regex as rx

# Seconds of searching the current check has left, in a one-item list the searches draw down;
# None outside a check.
_LEFT: ContextVar[list[float] | None] = ContextVar("skill_eval_pattern_budget", default=None)


class BadPattern(ValueError):
    """The pattern does not compile (or is too big for the engine)."""


class PatternTimedOut(Exception):
    """A search ran out of time: it backtracks catastrophically on this text."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern)
        self.pattern = pattern

    def evidence(self) -> str:
        return (f"/{self.pattern}/: pattern timed out after {REGEX_TIMEOUT_MS} ms (it backtracks "
                "catastrophically; avoid a repeated group that holds a repetition, like (a+)+, or "
                "whose alternatives can match the same text, like (a|a)+)")


@lru_cache(maxsize=4096)
def compiled(pattern: str, case_sensitive: bool = True) -> rx.Pattern[str]:
    # Imported on the first pattern, not with the module: the engine costs 5-10 ms of start-up
    # that every command loading a suite paid, though most suites compile no pattern at all.
    import regex as rx

    try:
        return rx.compile(pattern, rx.VERSION0 | (0 if case_sensitive else rx.IGNORECASE))
    except (rx.error, ValueError, OverflowError, RecursionError, TypeError) as e:
        raise BadPattern(f"invalid regex {pattern!r}: {e}") from e


def search(pattern: str | rx.Pattern[str], text: str, case_sensitive: bool = True,
           pos: int = 0) -> rx.Match[str] | None:
    """``pattern.search(text, pos)`` within the time left; PatternTimedOut when it runs out.
    Searching from ``pos`` is not slicing: lookbehinds still see the text before it."""
    compiled_pattern = compiled(pattern, case_sensitive) if isinstance(pattern, str) else pattern
    budget = _LEFT.get()
    left = REGEX_TIMEOUT_MS / 1000 if budget is None else min(REGEX_TIMEOUT_MS / 1000, budget[0])
    if left <= 0:
        raise PatternTimedOut(compiled_pattern.pattern)
    started = time.monotonic()
    try:
        return compiled_pattern.search(text, pos, timeout=left)
    except TimeoutError as e:
        raise PatternTimedOut(compiled_pattern.pattern) from e
    finally:
        if budget is not None:
            budget[0] -= time.monotonic() - started


@contextmanager
def pattern_budget() -> Iterator[None]:
    """All searches inside share one ``REGEX_TIMEOUT_MS`` of searching (one check's worth)."""
    token = _LEFT.set([REGEX_TIMEOUT_MS / 1000])
    try:
        yield
    finally:
        _LEFT.reset(token)
