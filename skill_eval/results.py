"""What a run produced (or why it could not), as typed objects shared by runner, store and grading."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Event:
    """An adapter event: ``skill_loaded`` (name = skill), ``tool_call`` (name = tool), ..."""

    type: str
    name: str | None = None


@dataclass(frozen=True)
class AdapterResponse:
    """A validated protocol-v1 response."""

    output: str
    events: tuple[Event, ...] = ()
    usage: dict[str, float] = field(default_factory=dict, hash=False)

    def loaded_skills(self) -> set[str]:
        return {e.name for e in self.events if e.type == "skill_loaded" and e.name}


@dataclass(frozen=True)
class RunResult:
    """A finished run: the response plus timing and the files the adapter left under outputs/."""

    key: str
    response: AdapterResponse
    duration_s: float
    outputs_dir: Path | None = None  # the kept outputs/ folder (in the store), if any

    @property
    def output(self) -> str:
        return self.response.output


@dataclass(frozen=True)
class RunError:
    """A run that could not produce a result. Recorded for the report; never a cache hit."""

    key: str
    kind: str  # not_found | exit | fatal | timeout | output_cap | invalid_response | workspace | interrupted
    message: str
    duration_s: float = 0.0
