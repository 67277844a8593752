"""An agent CLI's version for the run key, read from its package's metadata where it has one:
``<cli> --version`` starts the whole CLI (a Node bundle takes seconds, tens of seconds on a
loaded machine, past ``agent_version``'s timeout), and a version that reads "unavailable" under
load would change every run key. The text is what ``--version`` prints, so either way gives the
same key; without metadata, ``--version`` it is.

Adapters run as ``python -m ...``: keep imports light.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from skill_eval.model.builtins.clidesc import AgentCli
from skill_eval.run.adapters.shared.protocol_io import agent_version


def npm_package_version(binary: str, package: str) -> str | None:
    """The version in the package.json of npm ``package`` that holds ``binary`` (its link in
    node_modules/.bin resolved), or None."""
    exe = binary if os.sep in binary else shutil.which(binary)
    if not exe:
        return None
    for folder in Path(exe).resolve().parents:
        meta = folder / "package.json"
        if meta.is_file():
            try:
                data = json.loads(meta.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            if not isinstance(data, dict) or data.get("name") != package:
                return None
            return data["version"] if isinstance(data.get("version"), str) else None
        if folder.name == "node_modules":
            return None
    return None


def venv_package_version(binary: str, distribution: str) -> str | None:
    """The version of Python ``distribution`` installed in the venv whose ``bin/`` holds ``binary``."""
    exe = binary if os.sep in binary else shutil.which(binary)
    if not exe:
        return None
    root = Path(exe).absolute().parent.parent
    found = sorted(root.glob(f"lib/python3*/site-packages/{distribution}-*.dist-info"))
    return found[-1].name.removesuffix(".dist-info").split("-")[1] if found else None


def cli_version(binary: str, desc: AgentCli) -> str:
    """What ``binary --version`` prints, from the package metadata ``desc`` names when found."""
    version = npm_package_version(binary, desc.npm) if desc.npm else \
        venv_package_version(binary, desc.pypi) if desc.pypi else None
    return desc.version_prefix + version if version else agent_version(binary)
