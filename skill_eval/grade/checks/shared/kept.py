"""A path among the files a run kept, made safe: what every check that reads a kept file uses.

Paths are workspace-relative, as in the seed harness: ``report.md``, ``outputs/x.json``.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

from skill_eval.grade.checks.shared.context import CheckContext


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


def kept_text(ctx: CheckContext, rel: str, label: str | None = None,
              strict: bool = False) -> tuple[str | None, str]:
    """(The text of the kept file ``rel``, its ``label`` for evidence) or (None, why not).
    Undecodable bytes are replaced, or with ``strict`` make the file unreadable (JSON must be
    UTF-8)."""
    label = label or rel
    path, why = resolve_output_file(ctx, rel)
    if path is None:
        return None, why
    if not path.is_file():
        return None, f"{label} does not exist"
    try:
        return path.read_text("utf-8", errors="strict" if strict else "replace"), label
    except (OSError, UnicodeDecodeError) as e:
        return None, f"{label} unreadable: {e}"
