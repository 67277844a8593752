"""no_secrets: fail when the run's output or a kept file held a secret.

Everything a run keeps is redacted before it is stored, so a secret survives only as its typed
marker (``[REDACTED:api-key]``): this check counts markers, which is why it gives the same
verdict at the first grade and at every regrade. ``kinds`` narrows it (``env`` matches every
``env:NAME``).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip
from skill_eval.store.redact import count_markers


def _kinds(params: Mapping[str, Any]) -> tuple[str, ...] | None:
    kinds = params.get("kinds")
    if kinds is None:
        return None
    if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) and k for k in kinds):
        raise CheckParamError("'kinds' must be a non-empty list of secret kinds (e.g. [api-key, env])")
    return tuple(kinds)


def _wanted(kind: str, kinds: tuple[str, ...] | None) -> bool:
    return kinds is None or kind in kinds or (kind.startswith("env:") and "env" in kinds)


def _kept_files(ctx: CheckContext) -> list[tuple[str, Path]]:
    root, prefix = (ctx.files_dir, "") if ctx.files_dir is not None else (ctx.outputs_dir, "outputs/")
    if root is None or not root.is_dir():
        return []
    found = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                found.append((prefix + path.relative_to(root).as_posix(), path))
    return found


def no_secrets(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    kinds = _kinds(params)
    places: list[tuple[str, Counter[str]]] = [("output", count_markers(ctx.output))]
    for rel, path in _kept_files(ctx):
        # latin-1 reads any bytes; the markers are ASCII.
        places.append((rel, count_markers(path.read_bytes().decode("latin-1"))))
    found = [(where, Counter({k: n for k, n in counts.items() if _wanted(k, kinds)}))
             for where, counts in places]
    found = [(where, counts) for where, counts in found if counts]
    if not found:
        return True, "no secret in the output or the kept files"
    total = Counter[str]()
    for _, counts in found:
        total.update(counts)
    kinds_text = ", ".join(f"{k} x{n}" for k, n in sorted(total.items()))
    return False, clip(f"{sum(total.values())} secret(s) [{kinds_text}] in "
                       + ", ".join(where for where, _ in found))


NO_SECRETS = CheckType(
    "no_secrets", no_secrets,
    ("Fails when the run's output or a kept workspace file held a secret (it was redacted to "
     "[REDACTED:<kind>] before it was stored)."),
    {
        "kinds": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1},
            "description": ("Only these kinds of secret fail the check: api-key, aws-key, bearer, "
                            "password, private-key, cookie, token, secret, credential, auth, env (any "
                            "env:NAME) or env:NAME."),
        },
    },
)
