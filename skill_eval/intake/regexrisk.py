"""Spotting regexes that can take exponential time, so ``validate`` can warn before a run.

The classic shape is a repeated group that itself holds a repetition, such as ``(a+)+`` or
``(\\w*\\s?)*``: on a long text that almost matches, a backtracking engine tries every way of
splitting it. Grading stops such a search at a time limit; this only lets the author know early.
"""

from __future__ import annotations

from typing import Any

try:  # The stdlib's parser is private; without it we simply do not warn.
    import re._parser as _p
except ImportError:  # pragma: no cover - every supported Python has it
    _p = None  # type: ignore[assignment]

_REPEATS = ("MAX_REPEAT", "MIN_REPEAT")


def _repeat(op: Any, av: Any) -> Any | None:
    """The repeated sub-pattern when ``op`` repeats it a variable number of times (more than
    once), else None: ``x{3}`` has one way to match, ``x{1,3}`` several."""
    if str(op) in _REPEATS and av[1] != 1 and av[0] != av[1]:
        return av[2]
    return None


def _holds_repeat(items: Any) -> bool:
    for op, av in items:
        if str(op) in _REPEATS and av[0] != av[1]:  # any optional or repeated part, x? included
            return True
        if _nested(op, av, _holds_repeat):
            return True
    return False


def _nested(op: Any, av: Any, visit: Any) -> bool:
    """Visit the sub-patterns inside groups and branches (not inside possessive or atomic ones:
    those never backtrack into their insides)."""
    name = str(op)
    if name == "SUBPATTERN":
        return bool(visit(av[-1]))
    if name == "BRANCH":
        return any(visit(branch) for branch in av[1])
    return False


def _risky(items: Any) -> bool:
    for op, av in items:
        inner = _repeat(op, av)
        if inner is not None and _holds_repeat(inner):
            return True
        if inner is not None and _risky(inner):
            return True
        if _nested(op, av, _risky):
            return True
    return False


def nested_quantifier(pattern: str) -> bool:
    """True when ``pattern`` repeats a group that holds a repetition, like ``(a+)+``."""
    if _p is None or "(" not in pattern or sum(pattern.count(c) for c in "*+?{") < 2:
        return False  # no group, or fewer than two quantifiers: nothing to nest (and no parse)
    try:
        return _risky(_p.parse(pattern))
    except Exception:  # noqa: BLE001 - a pattern the parser refuses is reported elsewhere
        return False

