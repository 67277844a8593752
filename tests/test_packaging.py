"""What a wheel ships: setuptools takes the packages pyproject.toml lists, and a folder left out
is either missing from the wheel or (with package-data) shipped with a warning on every install,
the README's first command included."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_folder_with_files_under_the_package_is_a_listed_package():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {p.parent for p in (ROOT / "skill_eval").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    dotted = {".".join(f.relative_to(ROOT).parts) for f in folders}
    assert sorted(dotted - listed) == [], "add these to [tool.setuptools] packages in pyproject.toml"
