"""The builtin adapters and judges by name: one registry (``ADAPTERS``, of ``AdapterDescriptor``)
that validate, the runner, the fast path, preflight, ``init`` and the argument parser all read.

``descriptor`` says why the registry entry lives in the model layer while the adapter's program
lives in ``run/adapters/``; ``catalog`` holds the entries (importing this package registers
them); ``clidesc`` describes the agent CLIs they drive.
"""

from __future__ import annotations

from typing import Any

from skill_eval.errors import Problem
from skill_eval.model.builtins import catalog  # noqa: F401  (registers the builtins)
from skill_eval.model.builtins.descriptor import (
    ADAPTERS,
    AdapterDescriptor,
    adapter_module,
    adapter_names,
    completion_judges,
    find,
    judge_builtin,
    judge_names,
)

__all__ = ["ADAPTERS", "AdapterDescriptor", "adapter_module", "adapter_names", "completion_judges",
           "find", "judge_builtin", "judge_names", "judge_problems"]


def judge_problems(suite_file: str, judge: Any) -> list[Problem]:
    """Problems with a suite's ``judge:`` mapping that the schema cannot express."""
    if isinstance(judge, dict) and judge.get("builtin") and judge_builtin(str(judge["builtin"])) is None:
        return [Problem(suite_file, f"judge: builtin '{judge['builtin']}' cannot judge (judge builtins: "
                                    f"{', '.join(judge_names())}; or use 'command: [...]')")]
    if isinstance(judge, dict) and judge.get("builtin") and judge.get("command"):
        return [Problem(suite_file, "judge: set either 'builtin' or 'command', not both")]
    return []
