"""Suite → run specs with content keys. Pure: reads files (through the hash cache), calls nothing.

Run key material (docs/incremental.md): protocol version, mode, prompt, each fixture's path and hash, the
skill tree digest (with_skill only), the adapter identity, model and iteration index. Not in it:
absolute paths, environment values, mtimes, the iteration count, limits.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skill_eval.fs.hashing import HashCache, key_of, tree_digest
from skill_eval.model.ablation.parts import AblatedSkill
from skill_eval.model.cases import Case
from skill_eval.model.project import Project
from skill_eval.model.skills import Skill
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.plan.types import RunSpec

PROTOCOL_VERSION = 1
KEY_SCHEME = 1  # bump only when the key derivation itself changes (invalidates every run)


@dataclass
class SkillDigest:
    digest: str
    files: dict[str, str]  # relative path → sha256: lets `status` name the file that changed


@dataclass
class Plan:
    project: Project
    adapter: ResolvedAdapter
    runs: list[RunSpec]
    skills: dict[str, SkillDigest] = field(default_factory=dict)
    materials: dict[str, dict[str, Any]] = field(default_factory=dict)  # run key → key material
    plugin: SkillDigest | None = None  # the plugin loaded whole in the with-skill arm (files: root-relative)
    # name -> adapter, for a suite with ``agents:`` (else empty: every run is ``adapter``'s).
    agents: dict[str, ResolvedAdapter] = field(default_factory=dict)

    @property
    def suite(self):  # noqa: ANN201 - Suite, avoided import cycle in annotations
        return self.project.suite


def fixture_material(case: Case, cache: HashCache) -> list[list[str]]:
    return [[f"inputs/{f.rel}", cache.file(f.source)] for f in case.fixtures]


def run_material(case: Case, arm: str, model: str, iteration: int, adapter: ResolvedAdapter,
                 fixtures: list[list[str]], skill_digest: str | None,
                 judge: dict[str, Any] | None = None, plugin_digest: str | None = None,
                 agent: str | None = None) -> dict[str, Any]:
    installs = arm == "with_skill" or arm.startswith("ablation:")
    # The agent's name only in a suite with ``agents:``: one ``adapter:`` keeps its keys.
    named = {} if agent is None else {"agent": agent}
    return {
        **named,
        "scheme": KEY_SCHEME,
        "protocol_version": PROTOCOL_VERSION,
        "mode": arm,
        "trigger": case.kind == "trigger",
        "prompt": case.prompt,
        "files": fixtures,
        "skill": skill_digest if installs else None,
        # The whole plugin the skill belongs to, where it is loaded: only then, so a bare skill's
        # runs (and every without-skill run) keep their keys.
        **({"plugin": plugin_digest} if plugin_digest is not None and installs else {}),
        "adapter": adapter.identity,
        "model": model,
        "iteration": iteration,
        **_settings_material(case, adapter, model, judge),
    }


def mock_judge(suite: Any) -> dict[str, Any] | None:
    """The judge as an agent mock's player: part of the key of a case with agent mocks (a new
    judge answers them anew). What it is, never its environment."""
    cfg = suite.judge
    if cfg is None:
        return None
    return {"builtin": cfg.builtin, "command": list(cfg.command or ()), "model": cfg.model,
            "version": cfg.version, "options": dict(cfg.options)}


def _settings_material(case: Case, adapter: ResolvedAdapter, model: str,
                       judge: dict[str, Any] | None = None) -> dict[str, Any]:
    """A case's own run settings (plugin eval suites): only when it has some, so every other
    run keeps its key. The suite's tool grants and --scaffold reach it through the adapter; a
    model the suite names overrides the case's (RunSpec.asked_model), which then is no input."""
    if case.settings is None:
        return {}
    material = case.settings.key_material(adapter.allow_tools, adapter.scaffold)
    mocks = case.settings.mocks
    if mocks is not None and mocks.agent_sources():
        material["mock_judge"] = judge
    if model != "default":
        material.pop("model", None)
    return {"settings": material} if material else {}


def case_iterations(case: Case, n_iter: int, overridden: bool) -> int:
    """The case's own ``runs`` unless --iterations (or --until-decided) says otherwise."""
    runs = case.settings.runs if case.settings is not None else None
    return n_iter if overridden or runs is None else runs


def arms_for(case: Case, arms: tuple[str, ...], both_arms: bool = False) -> tuple[str, ...]:
    # A trigger query asks whether an installed skill gets picked: only the with-skill arm applies.
    # A resumed transcript carries the skill into both arms (plugin eval runs it with-arm only).
    resumed = case.settings is not None and case.settings.history is not None and not both_arms
    if resumed:
        return tuple(v for v in arms if v == "with_skill")
    return ("with_skill",) if case.kind == "trigger" else arms


def make_plan(project: Project, adapter: ResolvedAdapter, cache: HashCache, *,
              iterations: int | None = None, only: str | None = None,
              rounds: Mapping[tuple[str, str], int] | None = None,
              agents: Mapping[str, ResolvedAdapter] | None = None) -> Plan:
    """``rounds``: iterations per (skill, column) for task cases (`run --until-decided`), where
    they differ from the suite's. ``agents``: name -> adapter for a suite with ``agents:``."""
    suite = project.suite
    n_iter = iterations or suite.iterations
    rounds = rounds or {}
    plan = Plan(project, adapter, [], agents=dict(agents or {}))
    plugin = suite.plugin
    if plugin is not None:
        pdigest, pitems = tree_digest(plugin.root, cache, plugin.excluded, plugin.excluded_files)
        plan.plugin = SkillDigest(pdigest, dict(pitems))
    who: list[tuple[str | None, ResolvedAdapter]] = list(plan.agents.items()) or [(None, adapter)]
    for se in project.skills:
        skill = se.skill
        digest, items = tree_digest(skill.path, cache)
        plan.skills[skill.name] = SkillDigest(digest, dict(items))
        for case in se.cases:
            fixtures = fixture_material(case, cache)
            for agent, resolved in who:
                for arm in arms_for(case, suite.arms, suite.case_runs.both_arms):
                    for model in suite.models:
                        column = model if agent is None else f"{agent}/{model}"
                        own = case_iterations(case, n_iter, bool(iterations))
                        n = rounds.get((skill.name, column), own) if case.kind == "task" else n_iter
                        for it in range(1, n + 1):
                            material = run_material(case, arm, model, it, resolved, fixtures, digest,
                                                    mock_judge(suite), _plugin_digest(plan), agent)
                            key = key_of(material)
                            spec = _spec(plan, key, skill, case, arm, model, it, None, agent, resolved)
                            if only and not matches_only(spec, only):
                                continue
                            plan.runs.append(spec)
                            plan.materials[key] = material
                if case.kind == "task":
                    _ablation_runs(plan, se.ablations, skill, case, fixtures, items, n_iter, only,
                                   agent, resolved)
    return plan


def _ablation_runs(plan: Plan, ablations: tuple[AblatedSkill, ...], skill: Skill, case: Case,
                   fixtures: list[list[str]], items: list[list[str]], n_iter: int, only: str | None,
                   agent: str | None, adapter: ResolvedAdapter) -> None:
    for ablated in ablations:
        if not ablated.runs_on(case.id):
            continue
        digest = ablated.digest(items)
        for model in plan.suite.models:
            for it in range(1, n_iter + 1):
                material = run_material(case, ablated.arm, model, it, adapter, fixtures, digest,
                                        mock_judge(plan.suite), _plugin_digest(plan), agent)
                key = key_of(material)
                spec = _spec(plan, key, skill, case, ablated.arm, model, it, ablated, agent, adapter)
                if only and not matches_only(spec, only):
                    continue
                plan.runs.append(spec)
                plan.materials[key] = material


def _plugin_digest(plan: Plan) -> str | None:
    return plan.plugin.digest if plan.plugin is not None else None


def _spec(plan: Plan, key: str, skill: Skill, case: Case, arm: str, model: str, iteration: int,
          ablated: AblatedSkill | None = None, agent: str | None = None,
          adapter: ResolvedAdapter | None = None) -> RunSpec:
    """A run of ``skill``; where it belongs to a plugin, the arms that install it load the plugin
    (its skill is then reported loaded as ``<plugin>:<skill>``, which the adapters read as the skill)."""
    plugin = plan.suite.plugin
    installs = arm == "with_skill" or ablated is not None
    return RunSpec(key, skill.name, skill.path, case, arm, model, iteration, adapter or plan.adapter,
                   skill.names, ablated, plugin if installs else None, agent)


def matches_only(spec: RunSpec, pattern: str) -> bool:
    name = spec.task_name.split(":", 1)[1]
    return (fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(spec.skill_name, pattern)
            or fnmatch.fnmatchcase(f"{spec.skill_name}/{spec.case.id}", pattern))


def matches_any(runs: list[RunSpec], pattern: str) -> bool:
    """Whether an --only pattern selects any planned run (before sharding)."""
    return any(matches_only(r, pattern) for r in runs)


def shard(runs: list[RunSpec], k: int, n: int) -> list[RunSpec]:
    """A deterministic 1/n of the runs, by key, so shards never overlap whatever the order."""
    return [r for r in runs if int(r.key[:8], 16) % n == k - 1]
