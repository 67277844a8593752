"""Checks on the files a run left in its workspace: file_exists, and path safety.

Paths are workspace-relative, as in the seed harness: ``report.md``, ``outputs/x.json``. What
is looked at is the copy kept with the run in the store (every file the adapter created outside
``inputs/`` and ``skills/``), so a first grade and a regrade see the same files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from skill_eval.grade.checks.context import CheckContext, CheckParamError, clip


def _kept_root(ctx: CheckContext, rel: str) -> tuple[Path | None, str, str]:
    """(folder the path is under, the path within it, why not)."""
    if ctx.files_dir is not None:
        return ctx.files_dir, rel, ""
    parts = PurePosixPath(rel.replace("\\", "/")).parts
    if ctx.outputs_dir is not None and parts and parts[0] == "outputs":
        # A run stored by an older version, which kept outputs/ only.
        return ctx.outputs_dir, "/".join(parts[1:]) or ".", ""
    if ctx.outputs_dir is not None:
        return None, "", (f"{rel!r}: this run was stored by an older skill-eval that kept only "
                          "outputs/; re-run it (run --force) to keep its other files")
    return None, "", f"{rel!r}: this run kept no files"


def resolve_output_file(ctx: CheckContext, rel: str) -> tuple[Path | None, str]:
    """``rel`` (workspace-relative) among the run's kept files, or (None, why not).

    An eval set must not be able to make a grade depend on files outside the run's own
    workspace: absolute paths, '..' and symlinks that resolve elsewhere are refused.
    """
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or PureWindowsPath(rel).drive:
        return None, f"refused absolute path {rel!r}: paths are relative to the run's workspace"
    if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
        return None, f"refused {rel!r}: '..' may not leave the run's workspace"
    base, inner, why = _kept_root(ctx, rel)
    if base is None:
        return None, why
    root = base.resolve()
    target = base / inner
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError) as e:  # a symlink loop
        return None, f"{rel!r}: cannot resolve ({e})"
    if resolved != root and root not in resolved.parents:
        return None, f"refused {rel!r}: it resolves outside the run's workspace (a symlink?)"
    return resolved, ""


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
