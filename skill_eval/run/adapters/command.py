"""``adapter: {command: [...]}``: any protocol-v1 executable.

The run key must change when the adapter does, and only then: so the identity holds the
arguments with paths made relative to the suite's folder, and the content hash of the file that
really holds the adapter's logic — the script when argv[0] is an interpreter, else the executable.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput
from skill_eval.model.config import Suite
from skill_eval.model.plugins.environment import preset_names
from skill_eval.model.suitechecks.adapter_command import INTERPRETER, suite_command_problems
from skill_eval.plan.adapter import ResolvedAdapter

_INTERPRETER = INTERPRETER


def _sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def _portable(arg: str, root: Path) -> str:
    # Absolute paths differ between machines; the identity must not.
    if not os.path.isabs(arg):
        return arg
    try:
        return Path(arg).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(arg).name


def resolve_command(suite: Suite) -> ResolvedAdapter:
    cfg = suite.adapter
    assert cfg.command
    missing = suite_command_problems(suite.path, suite.display(suite.path))
    if missing:
        raise InvalidInput(missing)
    root = suite.root
    argv = list(cfg.command)
    # The adapter runs in its workspace, so a script argument named relative to the suite
    # would not be found there: make it absolute in argv (the identity keeps it relative).
    for i, arg in enumerate(argv[1:], start=1):
        if not arg.startswith("-") and not os.path.isabs(arg) and (root / arg).is_file():
            argv[i] = str((root / arg).resolve())
    exe = shutil.which(argv[0]) or argv[0]
    hashed: str | None = None
    if _INTERPRETER.fullmatch(Path(argv[0]).name):
        script = next((a for a in argv[1:] if not a.startswith("-") and os.path.isfile(a)), None)
        hashed = script
    target = hashed or exe
    identity: dict[str, Any] = {
        "command": [_portable(a, root) for a in argv],
        "sha256": _sha256(Path(target)),
        "version": cfg.version,
    }
    return ResolvedAdapter(name="command", argv=tuple(argv), env_names=tuple(dict.fromkeys(
        (*cfg.env, *preset_names(cfg.env_preset, os.environ)))), identity=identity)
