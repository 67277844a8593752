"""What a run produced (or why it could not), as typed objects shared by runner, store and grading."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Event:
    """An adapter event: ``skill_loaded`` (name = skill), ``tool_call`` (name = tool, input = a
    bounded preview of its input, input_json = its whole input as ``claude plugin eval`` encodes
    it, subagent = made inside a subagent), ``command`` (argv = the command line the agent ran),
    ``stop`` (name = why the agent stopped), ``unscorable`` (name = why the run cannot be
    scored), ``session`` (name ``complete``: every step of the session is reported, so no
    tool_call means no call), ..."""

    type: str
    name: str | None = None
    argv: tuple[str, ...] | None = None
    input: str | None = None
    input_json: str | None = None
    subagent: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.name is not None:
            out["name"] = self.name
        if self.argv is not None:
            out["argv"] = list(self.argv)
        if self.input is not None:
            out["input"] = self.input
        if self.input_json is not None:
            out["input_json"] = self.input_json
        if self.subagent:
            out["subagent"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        argv = data.get("argv")
        return cls(data["type"], data.get("name"), tuple(argv) if argv is not None else None,
                   data.get("input"), data.get("input_json"), data.get("subagent") is True)


def loads_skill(events: tuple[Event, ...] | list[Event], i: int) -> bool:
    """Is ``events[i]`` a ``Skill`` tool call that loaded a skill (its ``skill_loaded`` follows)?
    Such a call is counted as the load, not as a step (tool-call counts, native trace checks);
    plugin eval's graders see it as the tool call it is."""
    e = events[i]
    return (e.type == "tool_call" and e.name == "Skill" and i + 1 < len(events)
            and events[i + 1].type == "skill_loaded")


@dataclass(frozen=True)
class AdapterResponse:
    """A validated protocol-v1 response."""

    output: str
    events: tuple[Event, ...] = ()
    usage: dict[str, float] = field(default_factory=dict, hash=False)

    def loaded_skills(self) -> set[str]:
        return {e.name for e in self.events if e.type == "skill_loaded" and e.name}

    def tool_calls(self) -> int | None:
        """How many tool calls the agent made (a shell tool call and the command it ran count
        once; a command reported alone counts too); None when the adapter reports no steps nor
        turns (its trajectory is unknown, not empty)."""
        n, before = 0, None
        for i, e in enumerate(self.events):
            if (e.type == "tool_call" and not loads_skill(self.events, i)) or (
                    e.type == "command" and not (before and before.type == "tool_call")):
                n += 1
            before = e
        return n if n or "num_turns" in self.usage else None

    def to_json(self) -> dict[str, Any]:
        """The protocol-v1 JSON form (what the store writes as response.json)."""
        return {"output": self.output,
                "events": [e.to_json() for e in self.events],
                "usage": dict(self.usage)}


@dataclass(frozen=True)
class RunResult:
    """A finished run: the response plus timing and the files the adapter left under outputs/."""

    key: str
    response: AdapterResponse
    duration_s: float
    outputs_dir: Path | None = None  # the kept outputs/ folder (in the store), if any
    # The kept workspace files (in the store), workspace-relative; None for a run stored by an
    # older version, which kept only outputs/.
    files_dir: Path | None = None
    # Files the adapter left that could not be kept (path -> why: over max_output_bytes,
    # unreadable). Known only to the invocation that ran it; the store lists them in meta.json.
    not_kept: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    # What it ran under (timeout, output cap, sandbox, jobs; run/runner.run_limits), from its
    # meta.json; None for a run stored before it was recorded.
    limits: dict[str, Any] | None = field(default=None, hash=False, compare=False)
    # The session as JSON lines (plugin eval's target: trace), when the adapter kept one.
    session_path: Path | None = field(default=None, hash=False, compare=False)
    # Workspace-relative paths of the files the run created (not the scaffold's, not only
    # modified), sorted as JavaScript sorts strings; None for a run stored before they were listed.
    created: tuple[str, ...] | None = field(default=None, hash=False, compare=False)
    # Every call to a mocked MCP tool ({tool, input, output, error}); None: no mocks were served.
    mock_calls: tuple[dict[str, Any], ...] | None = field(default=None, hash=False, compare=False)

    @property
    def output(self) -> str:
        return self.response.output


@dataclass(frozen=True)
class RunError:
    """A run that could not produce a result. Recorded for the report; never a cache hit."""

    key: str
    # not_found | exit | fatal | timeout | invalid_response | workspace | interrupted | sandbox
    # | unscorable (the run happened but cannot be scored: message "<reason>: ...")
    kind: str
    message: str
    duration_s: float = 0.0


UNSCORABLE = "unscorable"
# The unscorable cause of a run whose agent never asked the model (an unknown slash command the
# CLI answered itself, a refused login): an adapter says so with an ``unscorable`` event; the
# run is an error, never graded, and counts in no pass rate, not even with include_unscorable.
NO_MODEL_REQUEST = "no_model_request"


def unscorable_reason(result: RunResult | RunError) -> str | None:
    """Why a run cannot be scored (``truncated``, ``turn_limit``, ``model_mismatch``, or what an
    adapter said), or None: a run that stopped short or was served by another model than asked
    says nothing about the skill, so it is kept out of pass rates like an error."""
    if isinstance(result, RunError):
        if result.kind != UNSCORABLE:
            return None
        return result.message.split(":", 1)[0].strip() or UNSCORABLE
    for e in result.response.events:
        if e.type == UNSCORABLE:
            return (e.name or UNSCORABLE).split(":", 1)[0].strip() or UNSCORABLE
    return None
