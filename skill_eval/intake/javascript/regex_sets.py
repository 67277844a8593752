"""Character sets of JavaScript regexes, as the ``regex`` engine must see them to agree with JS.

A set is a tuple of sorted, disjoint, inclusive ``(lo, hi)`` code ranges. The translator emits
every class explicitly (``\\d`` becomes ``[0-9]``, never the engine's own ``\\d``, whose meaning is
Unicode-wide) and compiles without the engine's IGNORECASE: JavaScript's flag ``i`` is applied here
instead, by closing each set under JS's Canonicalize (ECMA-262 §22.2.2.7.3), because JS and the
engine fold differently:

- without ``u``, a character matches another when their *upper-case* forms are equal, except that
  a mapping to several characters or from non-ASCII to ASCII is ignored (so /s/i does not match
  'ſ', nor /k/i the Kelvin sign);
- with ``u``, simple case folding (CaseFolding.txt C+S), so /s/iu matches 'ſ'.

A negated class under ``i`` is the complement of the closed set, which is what JS computes.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

Ranges = tuple[tuple[int, int], ...]

MAX_UNIT = 0xFFFF  # without flag u, a JS string is UTF-16 code units
MAX_CODE_POINT = 0x10FFFF
# Every cased character Unicode has sits below this (Adlam, U+1E900-1E943, is the last).
_CASED_BELOW = 0x1E960

DIGITS: Ranges = ((0x30, 0x39),)
WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
# WhiteSpace and LineTerminator of ECMA-262 §12.2, §12.3 (what \s means; not Python's \s).
SPACE: Ranges = ((0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
                 (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
                 (0xFEFF, 0xFEFF))
LINE_TERMINATORS: Ranges = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
EVERYTHING: Ranges = ((0, MAX_CODE_POINT),)


def normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def complement(ranges: Ranges) -> Ranges:
    out, at = [], 0
    for lo, hi in ranges:
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= MAX_CODE_POINT:
        out.append((at, MAX_CODE_POINT))
    return tuple(out)


def contains(ranges: Ranges, code: int) -> bool:
    i = bisect.bisect_right(ranges, (code, MAX_CODE_POINT + 1)) - 1
    return i >= 0 and ranges[i][0] <= code <= ranges[i][1]


def _canonicalize(code: int, unicode: bool) -> int:
    ch = chr(code)
    if unicode:  # simple case folding: the full folding when it is one character, else the S form
        folded = ch.casefold()
        if len(folded) == 1:
            return ord(folded)
        lower = ch.lower()
        return ord(lower) if len(lower) == 1 and lower.casefold() == folded else code
    upper = ch.upper()
    if len(upper) != 1 or (code >= 128 and ord(upper) < 128):
        return code
    return ord(upper)


@lru_cache(maxsize=2)
def _case_classes(unicode: bool) -> dict[int, tuple[int, ...]]:
    """Every character with case variants -> all characters that canonicalize alike (itself too)."""
    groups: dict[int, list[int]] = defaultdict(list)
    # Only a character with a case mapping can share a canonical form with another (fold
    # targets have mappings too); filtering on that first is what keeps this near 30 ms.
    for ch in map(chr, range(min(_CASED_BELOW, MAX_CODE_POINT if unicode else MAX_UNIT + 1))):
        if ch.upper() != ch or ch.lower() != ch:
            groups[_canonicalize(ord(ch), unicode)].append(ord(ch))
    return {c: tuple(g) for g in groups.values() if len(g) > 1 for c in g}


def case_closure(ranges: Ranges, unicode: bool) -> Ranges:
    """``ranges`` plus every character that canonicalizes like one of its members."""
    classes = _case_classes(unicode)
    if sum(hi - lo + 1 for lo, hi in ranges) < len(classes):  # few members: look each one up
        members = (c for lo, hi in ranges for c in range(lo, hi + 1) if c in classes)
    else:
        members = (c for c in classes if contains(ranges, c))
    extra = [(o, o) for c in members for o in classes[c]]
    return normalize([*ranges, *extra]) if extra else ranges


def property_closure(prop: str, unicode: bool) -> Ranges:
    """The characters flag ``i`` adds to a property escape (engine text ``\\p{..}``): those that
    canonicalize like a member. Only cased characters can, so only they are tried."""
    import regex as rx

    member = rx.compile(prop, rx.VERSION0).fullmatch
    classes = _case_classes(unicode)
    return normalize((o, o) for c in classes if member(chr(c)) for o in classes[c])


def word_characters(unicode: bool, ignore_case: bool) -> Ranges:
    """JS WordCharacters (what \\b tests): under ``u`` and ``i`` it gains 'ſ' and the Kelvin sign."""
    return case_closure(WORD, True) if unicode and ignore_case else WORD


def char(code: int) -> str:
    """One code as the engine reads it in a pattern, in or out of a class."""
    if 0x30 <= code <= 0x39 or 0x41 <= code <= 0x5A or 0x61 <= code <= 0x7A:
        return chr(code)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def emit(ranges: Ranges, negate: bool = False, extra: str = "") -> str:
    """A class for the engine; ``extra`` holds items the engine expands itself (\\p{...})."""
    body = "".join(char(lo) if lo == hi else f"{char(lo)}-{char(hi)}" for lo, hi in ranges) + extra
    if not body:
        return "[\\u0000-\\U0010ffff]" if negate else "(?!)"
    if not negate and not extra and len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return char(ranges[0][0])
    return f"[{'^' if negate else ''}{body}]"
