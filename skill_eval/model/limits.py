"""Bounds on what a user's file may ask of us, so hostile or broken input fails fast and clearly.

Each bound sits far above anything a real suite, eval set or adapter response needs.
"""

from __future__ import annotations

# Nesting depth of a suite, eval set or adapter response (lists and mappings inside each other).
# Python's recursion limit is about 1,000 frames; loading and validating use several per level.
MAX_DEPTH = 100

# YAML aliases may share a node many times; the loaded document may hold at most this many nodes
# (counting each expansion of an alias), which stops "billion laughs" documents in milliseconds.
MAX_YAML_NODES = 1_000_000

# A single regex check's search: longer means a pattern that backtracks catastrophically.
REGEX_TIMEOUT_MS = 1000
