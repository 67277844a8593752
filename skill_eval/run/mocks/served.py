"""A run's mocked MCP servers (model/mocks.py): their specs and call log held by the runner's
mock host (run/mocks/host.py), whose socket is all their private folder outside the workspace
holds (the agent can neither read its own mocks, as in plugin eval, nor add a call to their
log), the request's ``mcp_servers`` entries that make the agent start them
(run/mocks/server.py), and what they recorded once the run is over: every call (the run's
``mock_calls``) or the abort of the run, and the lines the host refused.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import skill_eval
from skill_eval.fs.removal import remove_tree
from skill_eval.plan.types import RunSpec
from skill_eval.run.containment import owner
from skill_eval.run.mocks.host import MockHost
from skill_eval.run.mocks.relay import SOCKET
from skill_eval.run.workspace import PREFIX


@dataclass(frozen=True)
class MockRun:
    folder: Path
    servers: tuple[dict[str, Any], ...]  # the request's mcp_servers entries
    host: MockHost
    agents: bool = False  # an agent mock is served: the run's judge relay must be up

    def _lines(self) -> list[dict[str, Any]]:
        self.host.close()  # the run is over: what the servers sent is all in
        return list(self.host.lines)

    @property
    def refused(self) -> list[str]:
        """Lines sent to the host on a connection no mocked server opened (the agent's, say)."""
        return list(self.host.refused)

    def records(self) -> tuple[list[dict[str, Any]], dict[str, Any] | None, list[dict[str, Any]]]:
        """(every answered call, the abort record or None, the agent-mock answers recorded as
        {server, file, text, adopt_dir}), from one read of the servers' log."""
        calls: list[dict[str, Any]] = []
        aborted: dict[str, Any] | None = None
        recordings: list[dict[str, Any]] = []
        for record in self._lines():
            if isinstance(record.get("aborted"), dict):
                aborted = aborted or record["aborted"]
            elif isinstance(record.get("recording"), dict):
                recordings.append(record["recording"])
            elif "recording" not in record:
                calls.append(record)
        return calls, aborted, recordings

    def remove(self) -> None:
        self.host.close()
        if self.folder.exists():
            remove_tree(self.folder)


def abort_message(aborted: dict[str, Any]) -> str:
    """A run's error text for plugin eval's ``aborted`` record (``{server, tool, reason}``)."""
    return f"aborted by mock {aborted.get('server')}/{aborted.get('tool')}: {aborted.get('reason')}"


def mocks_refusal(spec: RunSpec) -> str | None:
    """Why a run shipped to another machine fails: its mocked servers are served locally only."""
    mocks = spec.case.settings.mocks if spec.case.settings is not None else None
    if mocks is None or not mocks.served(spec.installs_skill):
        return None
    return (f'case "{spec.case.id}" uses mocked MCP servers, which run with the threads executor only; '
            "run it without --executor ray")


def start(spec: RunSpec, judge_model: str | None = None, judge_timeout: float = 600.0) -> MockRun | None:
    """Write the specs of the servers this run gets (a server the plugin declares only where the
    skill is installed); None when the case has no mocks or none is served in this arm. A server
    with an agent mock is told where the run's judge relay listens (run/mocks/relay.py)."""
    mocks = spec.case.settings.mocks if spec.case.settings is not None else None
    if mocks is None:
        return None
    served = mocks.served(spec.installs_skill)
    if not served:
        return None
    # Named like a workspace, so the next run removes it if we are killed meanwhile.
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{owner.claim()}-mocks-"))
    # The agent starts the server with its own environment; this names the skill_eval it runs.
    root = str(Path(skill_eval.__file__).resolve().parent.parent)
    entries = []
    specs = []
    agents = False
    for server in served:
        served_spec = mocks.spec(server)
        if any(t.kind == "agent" for t in server.tools):
            agents = True
            served_spec.update(relay=str(folder / SOCKET), relay_timeout=judge_timeout, model=judge_model)
        specs.append(served_spec)
    host = MockHost(folder, specs)
    for i, server in enumerate(served):
        name = server.registered(mocks.plugin)
        entries.append({"name": name, "command": sys.executable,
                        "args": ["-m", "skill_eval.run.mocks.server", str(host.path), str(i)],
                        "env": {"PYTHONPATH": root},
                        "tools": [f"mcp__{name}__{t.name}" for t in server.tools]})
    return MockRun(folder, tuple(entries), host, agents)
