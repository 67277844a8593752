"""What `report` and `compare`, which run nothing, say of stored runs found damaged (removed by
verification): named one per line, so that none reads as a run never made."""

from __future__ import annotations

import sys


def say_damaged(names: list[str]) -> None:
    """For commands that run nothing (report, compare): each stored run found damaged is named,
    so that it is not mistaken for one never run; `run` redoes it."""
    for name in sorted(names):
        print(f"skill-eval: the stored run agent:{name} was damaged (it did not match its "
              "checksums) and was removed; 'skill-eval run' runs it again", file=sys.stderr)
