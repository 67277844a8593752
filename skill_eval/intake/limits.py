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
