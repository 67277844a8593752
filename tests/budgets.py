"""How many examples a property test tries.

Each property test names a default sized for the README's test command (the loop a developer
runs, within its time budget): enough that every promise the test makes is tried on generated
input as well as on its ``@example`` cases, which always run. ``SKILL_EVAL_FUZZ_EXAMPLES=N``
tries N examples in each instead, for a longer hunt or a CI tier with time to spare. The runs
are derandomized, so a given count tries the same inputs every time.
"""

from __future__ import annotations

import os


def examples(default: int) -> int:
    """``default``, or the count ``SKILL_EVAL_FUZZ_EXAMPLES`` asks for."""
    return int(os.environ.get("SKILL_EVAL_FUZZ_EXAMPLES", "0") or 0) or default
