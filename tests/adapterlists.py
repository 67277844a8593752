"""The two lists of builtin adapters that cannot read the registry, checked against it: the
builtin names in schemas/suite.schema.json's ``adapter`` description, and the adapter modules in
pyproject.toml's two adapter contracts (import-linter reads only its own file)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from skill_eval.model.builtins import ADAPTERS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "skill_eval.run.adapters."
# Builtins built on another one, so outside the independence contract: why, each.
BUILT_ON = {f"{PACKAGE}replay": "serves demo's recordings with demo's own reader and server"}


def schema_builtins() -> list[str]:
    """The builtins the suite schema's ``adapter`` description lists, in its order."""
    schema = json.loads((ROOT / "schemas" / "suite.schema.json").read_text(encoding="utf-8"))
    found = re.search(r"a builtin \(([^)]*)\)", schema["properties"]["adapter"]["description"])
    assert found, "the adapter description no longer lists the builtins as 'a builtin (...)'"
    return [name.strip() for name in found.group(1).split(",")]


def schema_drift() -> list[str]:
    """What to fix in the schema's list for it to equal the registry's names; [] when it does."""
    listed, registered = schema_builtins(), ADAPTERS.names()
    if listed == registered:
        return []
    return [f"schemas/suite.schema.json lists {', '.join(listed)}; the registry has "
            f"{', '.join(registered)}"]


def contract_gaps() -> list[str]:
    """Each builtin program in skill_eval.run.adapters missing from an adapter contract."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = contracts["tool"]["importlinter"]["contracts"]
    independent = next(c for c in contracts if c["type"] == "independence"
                       and all(m.startswith(PACKAGE) for m in c["modules"]))
    shared = next(c for c in contracts if c.get("source_modules") == [f"{PACKAGE}shared"])
    gaps = []
    for d in ADAPTERS:
        if not d.module.startswith(PACKAGE):
            continue  # a program outside skill_eval: no contract of ours can name it
        if d.module not in independent["modules"] and d.module not in BUILT_ON:
            gaps.append(f"{d.module} is not in {independent['name']!r}")
        if d.module not in shared["forbidden_modules"]:
            gaps.append(f"{d.module} is not in {shared['name']!r}")
    return gaps
