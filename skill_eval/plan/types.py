"""The planned units of work. Pure data: the planner makes them, tasks and the runner consume them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skill_eval.model.ablation.parts import AblatedSkill
from skill_eval.model.cases import Case
from skill_eval.model.plugins.layout import Plugin
from skill_eval.plan.adapter import ResolvedAdapter


@dataclass(frozen=True)
class RunSpec:
    """One (skill, case, arm, model, iteration) run, with its content key."""

    key: str
    skill_name: str
    skill_path: Path
    case: Case
    arm: str  # "with_skill" | "without_skill" | "ablation:<name>"
    model: str
    iteration: int  # 1-based
    adapter: ResolvedAdapter
    skill_names: tuple[str, ...] = ()  # what an agent may report loading it as (folder, SKILL.md name)
    ablation: AblatedSkill | None = None  # an ablation arm: what it removes from the installed copy
    plugin: Plugin | None = None  # the plugin loaded whole with the skill (with-skill and ablation arms)
    agent: str | None = None  # the agent's name in a suite with ``agents:``; None with one ``adapter:``

    @property
    def column(self) -> str:
        """The run's column of the tables: its model, or ``agent/model`` with ``agents:``."""
        return self.model if self.agent is None else f"{self.agent}/{self.model}"

    @property
    def task_name(self) -> str:
        return f"agent:{self.skill_name}/{self.case.id}/{self.arm}/{self.column}/{self.iteration}"

    @property
    def asked_model(self) -> str:
        """The model this run asks for: a case's own ``model`` where the suite leaves the choice
        to the adapter (``default``); a model the suite names overrides it (plugin eval's --model)."""
        own = self.case.settings.model if self.case.settings is not None else None
        return own if own and self.model == "default" else self.model

    @property
    def with_skill(self) -> bool:
        return self.arm == "with_skill"

    @property
    def installs_skill(self) -> bool:
        """The full skill (with_skill) or an ablated copy of it (ablation arms)."""
        return self.arm == "with_skill" or self.ablation is not None

    @property
    def plugin_rel(self) -> str | None:
        """Where the run's workspace holds the plugin it loads (``plugins/<folder>``), or None."""
        return f"plugins/{self.plugin.folder}" if self.plugin is not None and self.installs_skill else None

    @property
    def skill_rel(self) -> str | None:
        """Where the run's workspace holds the skill: ``skills/<name>``, or inside the plugin's
        copy where the skill belongs to a plugin; None in the without-skill arm."""
        if not self.installs_skill:
            return None
        if self.plugin_rel is not None and self.plugin is not None:
            return f"{self.plugin_rel}/{self.skill_path.resolve().relative_to(self.plugin.root).as_posix()}"
        return f"skills/{self.skill_name}"
