"""Bounds on what a user's file may ask of us, so hostile or broken input fails fast and clearly.

Each bound sits far above anything a real suite, eval set or adapter response needs.
"""

from __future__ import annotations

from typing import Any

# Nesting depth of a suite, eval set or adapter response (lists and mappings inside each other).
# Python's recursion limit is about 1,000 frames; loading and validating use several per level.
MAX_DEPTH = 100

# YAML aliases may share a node many times; the loaded document may hold at most this many nodes
# (counting each expansion of an alias), which stops "billion laughs" documents in milliseconds.
MAX_YAML_NODES = 1_000_000

# Digits in one whole number of a user's file. Python refuses to convert more than 4,300 (a
# ValueError deep in a parser); no count, bound or setting needs a hundredth of this.
MAX_NUMBER_DIGITS = 1000

# A single regex check's search: longer means a pattern that backtracks catastrophically.
REGEX_TIMEOUT_MS = 1000


def depth_over(value: Any, limit: int) -> bool:
    """True when ``value`` nests lists and mappings more than ``limit`` levels deep (iterative:
    it must not hit the recursion limit itself)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class NumberTooLong(ValueError):
    """A whole number written with more than MAX_NUMBER_DIGITS digits."""

    def __init__(self, digits: int) -> None:
        super().__init__(f"a number of {digits:,} digits (at most {MAX_NUMBER_DIGITS:,} are read); "
                         "write a smaller number")


def bounded_int(text: str) -> int:
    """``int(text)``, NumberTooLong past MAX_NUMBER_DIGITS digits (json.loads' parse_int)."""
    digits = sum(ch.isdigit() for ch in text)
    if digits > MAX_NUMBER_DIGITS:
        raise NumberTooLong(digits)
    return int(text)
