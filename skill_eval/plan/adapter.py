"""What the planner and runner need to know about an adapter, whatever kind it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ResolvedAdapter:
    """An adapter ready to run: every kind (command, demo, replay, claude-code, ...) is a
    protocol-v1 process, so one runner serves them all.

    ``identity`` is the adapter's part of the run key: builtin name and version, arguments with
    paths made relative, the content hash of its script/executable, the declared version. It
    never holds absolute paths or environment values.
    """

    name: str
    argv: tuple[str, ...]
    env_names: tuple[str, ...] = ()
    identity: dict[str, Any] = field(default_factory=dict, hash=False)
    extra_env: dict[str, str] = field(default_factory=dict, hash=False)  # fixed values, e.g. options
    # adapter.sandbox ("bwrap") and its network ("host" | "none"); None: not sandboxed.
    sandbox: str | None = None
    network: str = "host"
    readable: tuple[str, ...] = ()  # host paths the sandboxed adapter may read (never in the key)
    # The suite's tool grants (``allow_tools``, plugin eval's --allow-tools) and whether case
    # scaffold scripts run (``scaffold``): they reach a run's key only through a case's settings.
    allow_tools: tuple[str, ...] = ()
    scaffold: bool = False
