"""Checks on the files a run left under its kept outputs/ folder: file_exists, and path safety."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from skill_eval.grade.checks.context import CheckContext, CheckParamError, clip


def resolve_output_file(ctx: CheckContext, rel: str) -> tuple[Path | None, str]:
    """``rel`` under the run's outputs folder, or (None, why not).

    An eval set must not be able to make a grade depend on files outside the run's own
    outputs: absolute paths, '..' and symlinks that resolve elsewhere are refused.
    """
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or PureWindowsPath(rel).drive:
        return None, f"refused absolute path {rel!r}: paths are relative to the run's outputs/"
    if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
        return None, f"refused {rel!r}: '..' may not leave the run's outputs/"
    if ctx.outputs_dir is None:
        return None, f"{rel!r}: this run kept no outputs/ folder"
    root = ctx.outputs_dir.resolve()
    target = ctx.outputs_dir / rel
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError) as e:  # a symlink loop
        return None, f"{rel!r}: cannot resolve ({e})"
    if resolved != root and root not in resolved.parents:
        return None, f"refused {rel!r}: it resolves outside the run's outputs/ (a symlink?)"
    return resolved, ""


def file_exists(params: Mapping[str, Any], case_sensitive: bool, ctx: CheckContext) -> tuple[bool, str]:
    rel = params.get("path")
    if not isinstance(rel, str) or not rel:
        raise CheckParamError("'path' must be a non-empty string")
    path, why = resolve_output_file(ctx, rel)
    if path is None:
        return False, clip(why)
    if not path.exists():
        return False, clip(f"outputs/{rel} does not exist")
    kind = "folder" if path.is_dir() else f"{path.stat().st_size} bytes"
    return True, clip(f"outputs/{rel} exists ({kind})")
