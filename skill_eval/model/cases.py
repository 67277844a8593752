"""The internal eval-case model every eval-set reader produces."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_eval.errors import Problem
from skill_eval.model.ablation.parts import Ablation
from skill_eval.model.runsettings import RunSettings


@dataclass(frozen=True)
class Check:
    """One deterministic check of a run (see checks/ for the types).

    ``params`` holds the type's own fields (value, values, pattern, path, ...), exactly as in
    the eval set, so the grade key changes whenever any of them changes.
    """

    id: str
    type: str
    required: bool = True
    case_sensitive: bool = False
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    critical: bool = False  # a failure vetoes the run and is reported on its own
    arms: tuple[str, ...] | None = None  # the arms it applies to (None: every arm)
    # claude plugin eval's scoring (its §8/§9): the grader's weight in the run's score, and
    # whether it is a plugin-fired indicator, graded in the with-arm only and left out of the
    # score of a two-arm case (review/comparison/plugin_scores.py).
    weight: float = 1.0
    indicator: bool = False

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "type": self.type, "required": self.required,
               "case_sensitive": self.case_sensitive, "params": self.params}
        # Only when set, so grade keys of checks without them stay what they were.
        if self.critical:
            out["critical"] = True
        if self.arms is not None:
            out["arms"] = list(self.arms)
        if self.weight != 1.0:
            out["weight"] = self.weight
        if self.indicator:
            out["indicator"] = True
        return out

    def applies_to(self, arm: str | None) -> bool:
        if self.arms is None or arm is None:
            return True
        if arm.startswith("ablation:") and not any(a.lstrip("!") == arm for a in self.arms):
            arm = "with_skill"  # graded as the full-skill arm it is compared with
        if all(a.startswith("!") for a in self.arms):  # every arm but these
            return f"!{arm}" not in self.arms
        return arm in self.arms


@dataclass(frozen=True)
class RubricItem:
    """A plain-sentence assertion: only a judge can grade it; without one it is 'ungraded'."""

    id: str
    text: str
    weight: float = 1.0
    required: bool = True
    critical: bool = False
    indicator: bool = False  # a plugin-fired indicator (see Check.indicator)
    # A ``claude plugin eval`` grader (llm, baseline) is judged its way: ``votes`` one-word
    # PASS/FAIL calls, passing on a majority, each judging ``focus`` of the run (last_message,
    # trace, files, mock_calls or file:<path>) instead of the output. The defaults are the
    # native rubric item: one verdict in the batch request, on the output.
    votes: int = 1
    focus: str = ""
    # A baseline grader's reference transcript (the case's baseline_file, read at load) and its
    # case-relative name.
    reference: str | None = None
    reference_file: str = ""

    def plugin_json(self) -> dict[str, Any]:
        """The plugin-eval judging fields that differ from a native item's (none for those)."""
        out: dict[str, Any] = {}
        if self.votes != 1:
            out["votes"] = self.votes
        if self.focus:
            out["focus"] = self.focus
        if self.reference is not None:
            out.update(reference=self.reference, reference_file=self.reference_file)
        return out


@dataclass(frozen=True)
class Fixture:
    """An input file: sent to the adapter as ``inputs/<rel>``; ``source`` is where it is on disk."""

    rel: str
    source: Path


@dataclass(frozen=True)
class Case:
    """One eval case (or one trigger query, ``kind == "trigger"``)."""

    id: str
    prompt: str
    expected_output: str = ""
    fixtures: tuple[Fixture, ...] = ()
    checks: tuple[Check, ...] = ()
    rubric: tuple[RubricItem, ...] = ()
    kind: str = "task"  # "task" | "trigger"
    should_trigger: bool | None = None
    split: str | None = None  # "tune" | "holdout" | "holdback"
    source: str = ""  # the eval-set file, repo-relative, for messages
    line: int | None = None
    critical: bool = False  # a regression of this case fails `compare --fail-on-regression`
    settings: RunSettings | None = None  # the case's own run settings (plugin eval suites)

    @property
    def gates(self) -> bool:
        """Whether a regression of this case alone fails the regression gate: marked critical
        itself, or holding a critical check or rubric item."""
        return self.critical or any(c.critical for c in self.checks) or any(r.critical for r in self.rubric)

    def checks_json(self) -> list[dict[str, Any]]:
        return [c.to_json() for c in self.checks]

    def rubric_json(self) -> list[dict[str, Any]]:
        return [{"id": r.id, "text": r.text, "weight": r.weight, "required": r.required,
                 **({"critical": True} if r.critical else {}),
                 **({"indicator": True} if r.indicator else {}), **r.plugin_json()} for r in self.rubric]

    def grading_material(self) -> str:
        """Canonical text of everything the grader sees besides the run (checks, rubric, expected)."""
        return json.dumps({"checks": self.checks_json(), "rubric": self.rubric_json(),
                           "expected_output": self.expected_output}, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class EvalSet:
    """What one reader made of one eval-set file."""

    path: Path
    format: str
    skill_name: str | None
    cases: tuple[Case, ...]
    problems: tuple[Problem, ...] = ()
    ablations: tuple[Ablation, ...] = ()  # declared beside the cases (harness manifests)
    # Graders of the source format that no check or rubric item stands for ("case/grader (type): why").
    unmapped: tuple[str, ...] = ()
    # Files outside the eval set that its reader read or looked for (a plugin's manifest and MCP
    # configuration): what they hold can change the cases' keys, so the fast path watches them,
    # missing ones too (one added later is seen).
    inputs: tuple[Path, ...] = ()

    @property
    def tasks(self) -> tuple[Case, ...]:
        return tuple(c for c in self.cases if c.kind == "task")

    @property
    def triggers(self) -> tuple[Case, ...]:
        return tuple(c for c in self.cases if c.kind == "trigger")
