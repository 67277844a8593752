"""What a check sees of one run, and what it says back."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from skill_eval.model.results import Event

EVIDENCE_CHARS = 200
NO_TRACE = "no command or tool_call events reported (the adapter may not report them)"


@dataclass(frozen=True)
class CheckContext:
    """One run as the checks see it. Built once per run and shared by all its checks."""

    output: str
    outputs_dir: Path | None = None
    files_dir: Path | None = None  # the kept workspace files; None for runs stored before they were
    events: tuple[Event, ...] = ()
    usage: Mapping[str, float] = field(default_factory=dict, hash=False)
    duration_s: float | None = None
    skill_name: str = ""
    allow_scripts: bool = False
    skill_root: Path | None = None  # the skill folder: a script check's ``cwd`` is relative to it
    skill_aliases: tuple[str, ...] = ()  # other names the skill goes by (its SKILL.md name)
    session_path: Path | None = None  # the session as JSON lines (plugin eval's target: trace)
    created: tuple[str, ...] | None = None  # files the run created; None: not listed (older run)
    # calls to mocked MCP tools as the mock servers recorded them; None: no mocks were served
    mock_calls: tuple[Mapping[str, Any], ...] | None = field(default=None, hash=False)
    # How often a check asked for session_messages (run_check notes what a reading check missed).
    session_reads: list[int] = field(default_factory=lambda: [0], hash=False, compare=False, repr=False)

    @cached_property
    def session_text(self) -> str | None:
        """The kept session, one JSON message per line; None when the adapter kept none. Read
        once per run: every trace grader and the judge's trace focus share it."""
        if self.session_path is None:
            return None
        try:
            return self.session_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    @cached_property
    def _session_parsed(self) -> tuple[tuple[dict[str, Any], ...], tuple[int, ...]] | None:
        text = self.session_text
        if text is None:
            return None
        out = []
        unparsed = []
        for number, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                message = None
            if isinstance(message, dict):
                out.append(message)
            else:
                unparsed.append(number)
        return tuple(out), tuple(unparsed)

    @property
    def session_messages(self) -> tuple[dict[str, Any], ...] | None:
        """The kept session's messages, parsed once per run; None when none was kept. A line that
        is not a JSON object is not a message: a check that read the messages names it in its
        evidence (``session_note``), never skipping it in silence."""
        self.session_reads[0] += 1
        parsed = self._session_parsed
        return None if parsed is None else parsed[0]

    def session_note(self) -> str:
        """The session's lines that are not JSON objects (a session damaged in the store, or an
        adapter's line that is not JSON), for the evidence of a check that read the messages."""
        parsed = self._session_parsed
        lines = parsed[1] if parsed is not None else ()
        if not lines:
            return ""
        shown = ", ".join(str(n) for n in lines[:5])
        if len(lines) > 5:
            shown += f" and {len(lines) - 5} more"
        return f" [session line{'s' if len(lines) > 1 else ''} {shown} not JSON: not read]"

    def created_files(self) -> tuple[str, ...]:
        """Paths the run created; for a run stored before they were listed, every kept file."""
        if self.created is not None:
            return self.created
        if self.files_dir is None or not self.files_dir.is_dir():
            return ()
        return tuple(sorted(p.relative_to(self.files_dir).as_posix()
                            for p in self.files_dir.rglob("*") if p.is_file()))

    @cached_property
    def folded(self) -> str:
        # Casefolded once per run: five case-insensitive checks must not fold 2 KB five times.
        return self.output.casefold()


@dataclass(frozen=True)
class CheckResult:
    id: str
    type: str
    required: bool
    passed: bool
    evidence: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "required": self.required,
                "passed": self.passed, "evidence": self.evidence}


class CheckParamError(ValueError):
    """A check's parameters cannot be used (bad regex, invalid schema): invalid input, not a fail."""


# A check type: (params, case_sensitive, context) -> (passed, evidence).
CheckFn = Callable[[Mapping[str, Any], bool, CheckContext], tuple[bool, str]]


def clip(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """Evidence stays short: a grading.json must not carry whole outputs."""
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_metadata(ctx: CheckContext) -> dict[str, Any]:
    """The run's usage and elapsed time as the seed harness's metadata.json has them."""
    meta: dict[str, Any] = dict(ctx.usage)
    if ctx.duration_s is not None:
        meta["elapsed_ms"] = round(ctx.duration_s * 1000)
    return meta


def traced(ctx: CheckContext) -> bool:
    """Did the adapter report the run's steps? Some step, or its word that it reports the whole
    session (claude-code, codex: ``session complete``), so a run with no call is a clean trace."""
    return any(e.type in ("command", "tool_call") or (e.type == "session" and e.name == "complete")
               for e in ctx.events)
