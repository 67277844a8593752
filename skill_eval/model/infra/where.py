"""Where a suite's runs execute and where its results are shared: the ``executor:`` and
``remote:`` keys. Neither is part of any key: every executor gives the same results, and an
entry fetched from a remote is the entry a local run would have stored under that key."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ExecutorConfig:
    """Where runs execute (never part of a key: every executor gives the same results)."""

    name: str = "threads"  # "threads" | "ray"
    address: str | None = None  # ray: "auto", "ray://host:10001", host:port; None: RAY_ADDRESS or local
    num_cpus_per_run: float = 1.0
    resources: dict[str, float] = field(default_factory=dict, hash=False)
    runtime_env: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class RemoteConfig:
    """The shared remote store behind the local one (docs/remote.md)."""

    url: str  # s3://bucket/prefix, gs://..., az://..., file:///folder
    push: bool = True  # False: read only
    sign_key_env: str | None = None  # the variable holding the HMAC key that signs and checks entries


def executor_config(raw: Any) -> ExecutorConfig:
    if not raw:
        return ExecutorConfig()
    if isinstance(raw, str):
        return ExecutorConfig(raw)
    name, cfg = next(iter(raw.items()))
    cfg = cfg or {}
    return ExecutorConfig(name, address=cfg.get("address"),
                          num_cpus_per_run=float(cfg.get("num_cpus_per_run", 1)),
                          resources={k: float(v) for k, v in (cfg.get("resources") or {}).items()},
                          runtime_env=dict(cfg.get("runtime_env") or {}))


def remote_config(raw: Any) -> RemoteConfig | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return RemoteConfig(raw)
    return RemoteConfig(raw["url"], push=bool(raw.get("push", True)),
                        sign_key_env=raw.get("sign_key_env"))
