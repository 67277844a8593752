"""The Claude Code plugin the skills under test belong to: loaded whole in the with-skill arm, as
``claude plugin eval`` loads it (``claude -p --plugin-dir <plugin>``, checked with the real CLI:
docs/dialects.md), and not at all in the without-skill arm.

A suite's skills belong to a plugin when the suite names it (``plugin: DIR``) or, with the
claude-code adapter, when ``skills_dir`` is a plugin's ``skills/`` folder: the folder above it
has a manifest (``.claude-plugin/plugin.json`` or ``plugin.json``) or another plugin part
(``commands/``, ``agents/``, ``hooks/hooks.json``, ``.mcp.json``). ``plugin: false`` keeps the
skill alone. What the agent is given of the plugin (and what the with-arm's run key covers) is
every file in it but its eval folder, each skill's own ``evals/``, and the suite's store,
results and file when they sit inside it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_eval.fs.hashing import tree_files
from skill_eval.model.builtins import ADAPTERS, find

MANIFESTS = (".claude-plugin/plugin.json", "plugin.json")
# Parts of a plugin besides skills/ and a manifest (Claude Code's plugin layout).
PARTS = ("commands", "agents", "hooks/hooks.json", ".mcp.json")
EVALS = "evals"


@dataclass(frozen=True)
class Plugin:
    name: str  # the namespace: /<name>:<command>, <name>:<skill>, mcp__plugin_<name>_<server>__*
    root: Path
    excluded: tuple[str, ...] = ()  # root-relative folders never given to the agent
    excluded_files: tuple[str, ...] = ()  # root-relative files never given to it (the suite file)

    @property
    def folder(self) -> str:
        """The copy's folder name in a workspace: the root's own name, which Claude Code takes
        for the plugin's name where the manifest gives none."""
        return self.root.name

    def files(self) -> list[Path]:
        """What the with-skill arm is given of the plugin, and what its run key covers."""
        return tree_files(self.root, self.excluded, self.excluded_files)


def _manifest(root: Path) -> dict[str, Any]:
    for rel in MANIFESTS:
        try:
            data = json.loads((root / rel).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return data if isinstance(data, dict) else {}
    return {}


def plugin_name(root: Path) -> str:
    """The manifest's ``name``, else the folder's: Claude Code's namespace for the plugin."""
    name = _manifest(root).get("name")
    return name if isinstance(name, str) and name else root.name


def is_plugin(root: Path) -> bool:
    """A manifest, or a plugin part beside ``skills/``."""
    return any((root / rel).is_file() for rel in MANIFESTS) or (
        (root / "skills").is_dir() and any((root / rel).exists() for rel in PARTS))


def plugin_of_skills(skills_dir: Path) -> Path | None:
    """The plugin whose ``skills/`` folder ``skills_dir`` is, or None."""
    root = skills_dir.parent
    return root if skills_dir.name == "skills" and is_plugin(root) else None


def eval_dir(root: Path) -> Path:
    """The plugin's eval folder: the manifest's ``experimental.evals`` (a plain relative path),
    else ``evals/``, as ``claude plugin eval`` chooses it."""
    experimental = _manifest(root).get("experimental")
    chosen = experimental.get("evals") if isinstance(experimental, dict) else None
    plain = isinstance(chosen, str) and chosen and not Path(chosen).is_absolute()
    if plain and ".." not in Path(str(chosen)).parts:
        return root / str(chosen)
    return root / EVALS


def load_plugin(root: Path, outside: tuple[Path, ...] = ()) -> Plugin:
    """The plugin at ``root``; ``outside``: the suite's own paths (store, results, suite file,
    blessed baseline) kept out of what the agent is given where they sit inside it."""
    root = root.resolve()
    evals = [eval_dir(root), *(p for p in (root / "skills").glob("*/evals") if p.is_dir())]
    own = _inside(root, list(outside))
    return Plugin(plugin_name(root), root, tuple(sorted({*_inside(root, evals), *own})), own)


def _inside(root: Path, paths: list[Path]) -> tuple[str, ...]:
    rels: set[str] = set()
    for path in paths:
        try:
            rel = path.resolve().relative_to(root).as_posix()
        except ValueError:
            continue  # outside the plugin: never part of it
        if rel != ".":
            rels.add(rel)
    return tuple(sorted(rels))


def resolve_plugin(value: Any, root: Path, skills_dir: Path,
                   builtin: str | None) -> tuple[Path | None, str | None]:
    """The suite's ``plugin:`` (``value``; None when absent) as the plugin's root, and a problem
    (the message, naming the fix) when it cannot be the one."""
    descriptor = find(builtin)
    if value is False:
        return None, None
    if not isinstance(value, str):
        loads = descriptor is not None and descriptor.loads_plugin
        found = plugin_of_skills(skills_dir) if loads else None
        return found, None
    path = Path(value).expanduser()
    path = (path if path.is_absolute() else root / path).resolve()
    if not path.is_dir():
        return None, f"plugin: folder {path} does not exist; fix the path (relative to this file's folder)"
    if not is_plugin(path) and not (path / "skills").is_dir():
        return None, (f"plugin: {path} is not a Claude Code plugin (no .claude-plugin/plugin.json, "
                      "plugin.json or skills/ folder); point it at the plugin's folder")
    if descriptor is not None and descriptor.no_plugins:  # its agent has no Claude Code plugins
        loaders = " or ".join(d.name for d in ADAPTERS if d.loads_plugin)
        return None, (f"plugin: the {builtin} adapter cannot load a Claude Code plugin; use "
                      f"adapter.builtin: {loaders}, or remove plugin:")
    if not skills_dir.resolve().is_relative_to(path):
        return None, (f"plugin: the skills under test ({skills_dir}) are not in the plugin {path}; set "
                      "skills_dir to the plugin's skills folder, or leave it out")
    return path, None


def suite_plugin(raw: dict[str, Any], root: Path, skills_dir: Path) -> tuple[Path | None, str | None]:
    """``resolve_plugin`` for a suite's raw config (its ``plugin:`` and adapter)."""
    adapter = raw.get("adapter")
    builtin = adapter.get("builtin") if isinstance(adapter, dict) else None
    return resolve_plugin(raw.get("plugin"), root, skills_dir, builtin)
