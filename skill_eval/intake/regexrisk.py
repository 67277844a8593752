"""Spotting regexes that can take exponential time, so ``validate`` can warn before a run.

A repeated group is risky when one piece of text can be split among its repetitions in many
ways: on a long text that almost matches, a backtracking engine tries every way. Two structures
do that: the group holds a repetition itself (``(a+)+``, ``(\\w*\\s?)*``), or it holds a choice
whose alternatives can match the same text (``(a|a)+``, ``(ab|a?b)+``, ``(x|x)*``), found by
comparing what each alternative can start with. Grading stops such a search at a time limit;
this only lets the author know early.
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


NESTED = "repeats a group that holds a repetition (like (a+)+)"
OVERLAP = "repeats a choice whose alternatives can match the same text (like (a|a)+)"


def risk(pattern: str) -> str | None:
    """What makes ``pattern`` take exponential time on some texts (NESTED, OVERLAP), or None."""
    if nested_quantifier(pattern):
        return NESTED
    if _p is None or "|" not in pattern or not any(c in pattern for c in "*+{"):
        return None
    try:
        parsed = _p.parse(pattern)
    except Exception:  # noqa: BLE001 - reported elsewhere
        return None
    return OVERLAP if overlapping_choice(parsed, pattern) else None


# A glob (``file_exists``) is a chain of wildcards and literals: each ``*`` or ``**`` more
# multiplies the ways a long name that almost matches can be split among them (polynomial, with
# the wildcards as the power). Real globs use one to three; five take milliseconds.
MAX_GLOB_WILDCARDS = 5


def glob_risk(glob: str) -> str | None:
    """Why a glob can take very long on some file names (too many wildcards), or None."""
    wildcards = glob.count("*") - glob.count("**")  # a run of stars is one wildcard
    if wildcards <= MAX_GLOB_WILDCARDS:
        return None
    return (f"has {wildcards} wildcards (* or **; up to {MAX_GLOB_WILDCARDS} are quick on any "
            "name), which can take very long on a long file name that almost matches")


# What an alternative can start with is judged on a sample alphabet: ASCII, a few letters, digits
# and spaces from beyond it, and every literal of the pattern itself.
_SAMPLE = "".join(map(chr, range(128))) + "éßΩ中٣\u00a0\u2003"
_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
               "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}
_ZERO_WIDTH = ("AT", "ASSERT", "ASSERT_NOT")


def _in_class(items: Any, ch: str) -> bool:
    import re

    hit, negate = False, False
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            hit = hit or ch == chr(av)
        elif name == "RANGE":
            hit = hit or av[0] <= ord(ch) <= av[1]
        elif name == "CATEGORY":
            hit = hit or bool(re.fullmatch(_CATEGORIES.get(str(av), r"[\s\S]"), ch))
    return hit != negate


def _first(items: Any, alphabet: str) -> tuple[frozenset[str], bool]:
    """(the characters ``items`` can start with, whether it can match the empty text)."""
    start: set[str] = set()
    for op, av in items:
        chars, empty = _first_of(str(op), av, alphabet)
        start |= chars
        if not empty:
            return frozenset(start), False
    return frozenset(start), True


def _first_of(name: str, av: Any, alphabet: str) -> tuple[frozenset[str], bool]:
    if name == "LITERAL":
        return frozenset(chr(av)), False
    if name == "NOT_LITERAL":
        return frozenset(alphabet) - {chr(av)}, False
    if name == "ANY":
        return frozenset(alphabet) - {"\n"}, False
    if name == "IN":
        return frozenset(c for c in alphabet if _in_class(av, c)), False
    if name in _ZERO_WIDTH:
        return frozenset(), True
    if name == "SUBPATTERN":
        return _first(av[-1], alphabet)
    if name == "ATOMIC_GROUP":
        return _first(av, alphabet)
    if name in (*_REPEATS, "POSSESSIVE_REPEAT"):
        chars, empty = _first(av[2], alphabet)
        return chars, empty or av[0] == 0
    if name == "BRANCH":
        parts = [_first(branch, alphabet) for branch in av[1]]
        return frozenset().union(*(c for c, _ in parts)), any(e for _, e in parts)
    if name == "GROUPREF_EXISTS":
        parts = [_first(branch, alphabet) for branch in av[1:] if branch is not None]
        return frozenset().union(*(c for c, _ in parts)), True
    return frozenset(alphabet), True  # a back-reference: could be anything


def _ambiguous(items: Any, alphabet: str) -> bool:
    """A choice inside ``items`` (outside atomic groups) has two alternatives that can match the
    same text: both can match nothing, or both can start with the same character."""
    for op, av in items:
        name = str(op)
        if name == "BRANCH":
            firsts = [_first(branch, alphabet) for branch in av[1]]
            for i, (chars, empty) in enumerate(firsts):
                if any((empty and e) or (chars & c) for c, e in firsts[i + 1:]):
                    return True
        if _nested(op, av, lambda inner: _ambiguous(inner, alphabet)):
            return True
        if name in _REPEATS and _ambiguous(av[2], alphabet):
            return True
    return False


def overlapping_choice(items: Any, pattern: str) -> bool:
    """True when a repeated group holds a choice whose alternatives overlap, like ``(a|a)+``."""
    alphabet = _SAMPLE + pattern
    for op, av in items:
        inner = _repeat(op, av)
        if inner is not None and (_ambiguous(inner, alphabet) or overlapping_choice(inner, pattern)):
            return True
        if _nested(op, av, lambda sub: overlapping_choice(sub, pattern)):
            return True
    return False
