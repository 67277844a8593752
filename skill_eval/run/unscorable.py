"""Runs that happened but cannot be scored: stopped at the agent's turn limit, or served by
another model than the one asked for. A run cut at ``max_output_bytes`` is an ``unscorable``
RunError (its answer never arrived whole), and so is a run whose agent never asked the model,
``no_model_request`` (an unknown slash command answered by the CLI itself, a refused login).
Such a run says nothing about the skill; it is kept out of pass rates like an error
(``include_unscorable: true`` counts it as a failure), and counted and named in every table and
on the review page."""

from __future__ import annotations

import dataclasses

from skill_eval.model.results import NO_MODEL_REQUEST, UNSCORABLE, AdapterResponse, Event, RunError, RunResult

# ``stop`` event names (what adapters report) that mean the agent was cut off at its turn limit.
TURN_LIMIT_STOPS = frozenset({"max_turns", "turn_limit", "error_max_turns"})


def _served(response: AdapterResponse) -> str | None:
    return next((e.name for e in response.events if e.type == "model" and e.name), None)


def at_turn_limit(response: AdapterResponse) -> bool:
    return any(e.type == "stop" and (e.name or "").lower() in TURN_LIMIT_STOPS for e in response.events)


def reason(response: AdapterResponse, asked_model: str, graded_at_turn_limit: bool = False) -> str | None:
    """Why this response cannot be scored, or None. A model counts as the one asked when the
    asked name is part of the served one (``sonnet`` -> ``claude-sonnet-4-5-20250929``), so an
    alias or a dated snapshot is not a mismatch."""
    if any(e.type == UNSCORABLE for e in response.events):
        return None  # the adapter said so itself
    if not graded_at_turn_limit and at_turn_limit(response):
        return "turn_limit: the agent stopped at its turn limit"
    served = _served(response)
    asked = asked_model.strip()
    if served and asked and asked != "default" and asked.lower() not in served.lower():
        return f"model_mismatch: asked for {asked}, served by {served}"
    return None


def mark(response: AdapterResponse, asked_model: str, graded_at_turn_limit: bool = False) -> AdapterResponse:
    """The response with an ``unscorable`` event added when it cannot be scored
    (``graded_at_turn_limit``: a turn limit the case set itself is no reason)."""
    why = reason(response, asked_model, graded_at_turn_limit)
    if why is None:
        return response
    return dataclasses.replace(response, events=(*response.events, Event(UNSCORABLE, why)))


def never_reached(response: AdapterResponse) -> str | None:
    """The adapter's own ``no_model_request`` cause (its agent made no model request), or None.
    Such a run is stored as an unscorable RunError: never graded, and run again next time."""
    return next((e.name for e in response.events
                 if e.type == UNSCORABLE and (e.name or "").startswith(NO_MODEL_REQUEST)), None)


class SameCause:
    """The early stop for runs that never reach the model: once every run finished so far ended
    so, for one and the same cause, in ``cases`` different cases at least (one case's unknown
    slash command is that case's problem; a refused login is every run's), the rest would too.
    ``see`` returns the stop's message then, else None."""

    def __init__(self, cases: int = 2) -> None:
        self.cases_needed = cases
        self.cause: str | None = None
        self.cases: set[str] = set()
        self.mixed = False

    def see(self, case: str, outcome: RunResult | RunError) -> str | None:
        why = (outcome.message if isinstance(outcome, RunError) and outcome.kind == UNSCORABLE
               and outcome.message.startswith(NO_MODEL_REQUEST) else None)
        if why is None or self.mixed or (self.cause is not None and why != self.cause):
            self.mixed = True
            return None
        self.cause = why
        self.cases.add(case)
        if len(self.cases) < self.cases_needed:
            return None
        return f"every run so far never reached the model, for one cause: {why}"
