"""``adapter:`` and ``agents:`` → frozen configs.

A suite names one adapter (``adapter:``) or several agents (``agents:``, entries shaped like
``adapter:`` plus a ``name`` defaulting to the builtin's). Each agent is a column of the tables
beside the model: its runs carry the agent's name in their key, so editing one agent's options
re-runs that agent's runs only, and a suite with one ``adapter:`` keeps its keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_eval.errors import Problem, did_you_mean
from skill_eval.model.builtins import adapter_module, adapter_names

DEFAULT_ADAPTER = "demo"
# An agent's name becomes part of folder names and task names: plain words only.
AGENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

Where = Callable[[tuple[Any, ...]], tuple[int | None, int | None]]


@dataclass(frozen=True)
class AdapterConfig:
    builtin: str | None = None
    command: tuple[str, ...] | None = None
    env: tuple[str, ...] = ()
    version: str | None = None
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    responses: Path | None = None  # replay: recorded responses (folder or another store)
    depends: tuple[str, ...] = ()  # globs (from the suite's folder) of files the adapter reads: its identity
    sandbox: str | None = None  # "bwrap": run the adapter in a bubblewrap sandbox (run/sandbox.py)
    network: str = "host"  # in the sandbox: "host" or "none" (a network namespace of its own)
    env_preset: str | None = None  # "plugin-eval": what claude plugin eval passes (model/plugins/environment)

    @property
    def name(self) -> str:
        return self.builtin or "command"


@dataclass(frozen=True)
class AgentConfig:
    """One entry of ``agents:``: an adapter under a name (the tables' agent column)."""

    name: str
    adapter: AdapterConfig


def resolve_path(root: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else (root / p).resolve()


def read_adapter(raw: dict[str, Any], root: Path) -> AdapterConfig:
    command = raw.get("command")
    if command:
        # A relative script path resolves from the config's folder, as users expect.
        first = command[0]
        if ("/" in first or first.startswith(".")) and not Path(first).is_absolute():
            command = [str(resolve_path(root, first)), *command[1:]]
        command = tuple(str(c) for c in command)
    responses = raw.get("responses")
    return AdapterConfig(
        builtin=raw.get("builtin") or (None if command else DEFAULT_ADAPTER),
        command=command or None,
        env=tuple(raw.get("env", ())),
        version=None if raw.get("version") is None else str(raw["version"]),
        options=dict(raw.get("options", {})),
        responses=resolve_path(root, responses) if responses else None,
        depends=tuple(str(g) for g in raw.get("depends", ())),
        sandbox=raw.get("sandbox") if raw.get("sandbox") not in (None, "none") else None,
        network=str(raw.get("network") or "host"), env_preset=raw.get("env_preset"),
    )


def default_name(raw: dict[str, Any]) -> str:
    """An agent's name when it gives none: its builtin's (``claude-code``), else ``command``."""
    builtin = raw.get("builtin")
    if builtin:
        return str(builtin).replace("_", "-")
    return "command" if raw.get("command") else DEFAULT_ADAPTER


def read_agents(raw: list[dict[str, Any]], root: Path) -> tuple[AgentConfig, ...]:
    return tuple(AgentConfig(str(entry.get("name") or default_name(entry)),
                             read_adapter({k: v for k, v in entry.items() if k != "name"}, root))
                 for entry in raw)


def adapter_entry_problems(entry: Any, file: str, where: Where, at: tuple[Any, ...]) -> list[Problem]:
    """What the schema cannot say about one ``adapter:`` mapping (or one agent's)."""
    label = ".".join(str(p) for p in at)
    if not isinstance(entry, dict):
        return []
    if entry.get("builtin") and entry.get("command"):
        line, col = where(at)
        return [Problem(file, f"{label}: set either 'builtin' or 'command', not both; remove one of them",
                        line, col)]
    name = entry.get("builtin")
    if isinstance(name, str) and name and adapter_module(name) is None:
        names = adapter_names()
        line, col = where((*at, "builtin"))
        return [Problem(file, f"{label}.builtin: unknown builtin '{name}'{did_you_mean(name, names)}; use "
                              f"one of {', '.join(names)}, or 'command: [...]' for your own", line, col)]
    return []


def agents_problems(raw: dict[str, Any], file: str, where: Where) -> list[Problem]:
    """``agents:`` beside ``adapter:``, names that repeat or cannot be folder names."""
    agents = raw.get("agents")
    if not isinstance(agents, list):
        return []
    problems: list[Problem] = []
    if raw.get("adapter") is not None:
        line, col = where(("agents",))
        problems.append(Problem(file, "agents: set either 'adapter' (one agent) or 'agents' (several), not "
                                      "both; move the adapter into the agents list", line, col))
    seen: dict[str, int] = {}
    for i, entry in enumerate(agents):
        if not isinstance(entry, dict):
            continue
        problems += adapter_entry_problems(entry, file, where, ("agents", i))
        name = str(entry.get("name") or default_name(entry))
        line, col = where(("agents", i))
        if not AGENT_NAME.match(name):
            problems.append(Problem(file, f"agents[{i}].name: {name!r} is not a plain name (letters, digits, "
                                          "'.', '_', '-'; at most 64); rename it", line, col))
        elif name in seen:
            problems.append(Problem(file, f"agents[{i}]: the name '{name}' is taken by agents[{seen[name]}]; "
                                          "give each agent its own 'name'", line, col))
        seen.setdefault(name, i)
    return problems
