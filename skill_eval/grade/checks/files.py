"""Checks on the files a run left in its workspace: file_exists, and path safety.

Paths are workspace-relative, as in the seed harness: ``report.md``, ``outputs/x.json``. What
is looked at is the copy kept with the run in the store (every file the adapter created outside
``inputs/`` and ``skills/``), so a first grade and a regrade see the same files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skill_eval.grade.checks.shared.checktype import CheckType
from skill_eval.grade.checks.shared.context import CheckContext, CheckParamError, clip
from skill_eval.grade.checks.shared.kept import resolve_output_file

__all__ = ["file_exists", "resolve_output_file"]


def file_exists(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    rel = params.get("path")
    if not isinstance(rel, str) or not rel:
        raise CheckParamError("'path' must be a non-empty string")
    path, why = resolve_output_file(ctx, rel)
    if path is None:
        return False, clip(why)
    if not path.exists():
        return False, clip(f"{rel} does not exist")
    kind = "folder" if path.is_dir() else f"{path.stat().st_size} bytes"
    return True, clip(f"{rel} exists ({kind})")


FILE_EXISTS = CheckType(
    "file_exists", file_exists,
    "Passes when the run left `path` in its workspace (a file or a folder among the kept files).",
    {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": ("Workspace-relative path, as in the seed harness: 'report.md', "
                            "'outputs/x.json'. '..', absolute paths and symlinks leaving the workspace are "
                            "refused."),
        },
    },
    required=("path",),
)
