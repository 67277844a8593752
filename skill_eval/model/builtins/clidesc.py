"""What skill-eval must know of an agent CLI before its first run (docs/adapters.md, "Where the
agent CLI is found" and "Preflight"): its executable's name and the option that overrides it, the
oldest version we support, how to install or upgrade it, and how it finds its credentials in a
run. Each builtin that drives a CLI has one ``AgentCli`` as its descriptor's ``cli``
(model/builtins/catalog.py); the fast path, run/agentcli/preflight.py and run/resolve.py read it
there, so a new CLI builtin needs no code of its own in them, and its program imports it too.

Adapters run as ``python -m`` and import this: keep its imports light.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERSION = re.compile(r"(?<![\d.])(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class AgentCli:
    """One agent CLI, as its builtin describes it.

    ``keys``: environment variables any one of which authenticates a run, when set in the
    environment the adapter passes (its own allow-list plus ``adapter.env``). ``key_option``: an
    adapter option naming such a variable instead (Codex's ``env_key``). ``providers``: switches
    that make the CLI use another provider's own credentials (Bedrock, Vertex), taken as present.
    ``login_state``: files under the run's own HOME where the CLI keeps a login it reads in a run
    (none for Claude Code and Codex: their adapters point HOME inside the workspace, so the
    user's login is never read). ``login_note`` says so in the refusal.
    """

    product: str
    binary: str
    bin_option: str
    oldest: str
    install: str
    upgrade: str
    keys: tuple[str, ...]
    key_option: str | None = None
    providers: tuple[str, ...] = ()
    login_state: tuple[str, ...] = ()
    login_note: str = ""
    # The package whose metadata holds the version (shared/cli_version.py): read instead of
    # starting the CLI for ``--version`` (a Node bundle takes tens of seconds on a loaded machine).
    npm: str = ""
    pypi: str = ""
    version_prefix: str = ""  # what ``--version`` prints before the number ("vibe ")


def version_tuple(text: str) -> tuple[int, ...] | None:
    """The first dotted version in ``text`` (``2.1.337 (Claude Code)``, ``codex-cli 0.153.3``)."""
    found = _VERSION.search(text or "")
    if found is None:
        return None
    return tuple(int(part) for part in found.groups() if part is not None)


def older_than(version: str, oldest: str) -> bool:
    """True when ``version`` (a ``--version`` line) is known to be older than ``oldest``; an
    unreadable version is not refused."""
    have, floor = version_tuple(version), version_tuple(oldest)
    return have is not None and floor is not None and have < floor
