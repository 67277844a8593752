"""How many examples a property test tries.

Each property test names a default sized for the README's test command (the loop a developer
runs, within its time budget): enough that every promise the test makes is tried on generated
input as well as on its ``@example`` cases, which always run. ``SKILL_EVAL_FUZZ_EXAMPLES=N``
tries N examples in each instead, for a longer hunt; ``SKILL_EVAL_EXAMPLES_SCALE=K`` tries K times
each test's default (`.ci/run` runs every property test once more at 4x: at least the counts they had before
their defaults were sized for the README's run). The runs are derandomized, so a given count tries
the same inputs every time.
"""

from __future__ import annotations

import os


def examples(default: int) -> int:
    """``default``, or the count ``SKILL_EVAL_FUZZ_EXAMPLES`` asks for, or ``default`` times
    ``SKILL_EVAL_EXAMPLES_SCALE``."""
    fixed = int(os.environ.get("SKILL_EVAL_FUZZ_EXAMPLES", "0") or 0)
    return fixed or default * max(1, int(os.environ.get("SKILL_EVAL_EXAMPLES_SCALE", "1") or 1))
