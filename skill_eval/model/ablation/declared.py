"""Declared ablations checked against the skills they apply to, with every problem collected."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from skill_eval.errors import Problem, did_you_mean
from skill_eval.fs.hashing import tree_files
from skill_eval.model.ablation.parts import AblatedSkill, Ablation, resolve
from skill_eval.model.cases import Case
from skill_eval.model.config import display_path
from skill_eval.model.skills import Skill


def unknown_ablation_skills(ablations: Iterable[Ablation], skills: set[str]) -> list[Problem]:
    return [Problem(a.source, f"ablations: '{a.name}' names skill '{a.skill}', which the suite does not "
                              f"select{did_you_mean(a.skill, sorted(skills))}; fix 'skill' or leave it "
                              "out (every skill)", a.line)
            for a in ablations if a.skill is not None and a.skill not in skills]


def resolve_ablations(skill: Skill, declared: list[Ablation], cases: Sequence[Case]
                      ) -> tuple[tuple[AblatedSkill, ...], list[Problem]]:
    """Each ablation applied to ``skill``: the arms to run, and a problem per one that cannot be."""
    if not declared or not skill.skill_md.is_file():
        return (), []
    tree = tree_files(skill.path)
    out: list[AblatedSkill] = []
    problems: list[Problem] = []
    seen: dict[str, Ablation] = {}
    task_ids = {c.id for c in cases if c.kind == "task"}
    for ablation in declared:
        file = ablation.source or display_path(skill.path)
        severity = "error" if ablation.strict else "warning"
        left_out = "" if ablation.strict else " (left out)"
        unknown = [c for c in ablation.cases if c not in task_ids]
        if unknown:
            problems.append(Problem(file, f"ablation '{ablation.name}'{left_out} names case(s) "
                                          f"{', '.join(unknown)} that skill {skill.name} has no task case of"
                                          f"{did_you_mean(unknown[0], sorted(task_ids))}; fix its cases",
                                    ablation.line, severity=severity))
            continue
        if ablation.name in seen:
            problems.append(Problem(file, f"ablation '{ablation.name}' is declared twice for skill "
                                          f"{skill.name} (also in {seen[ablation.name].source}); give each "
                                          "its own name",
                                    ablation.line))
            continue
        seen[ablation.name] = ablation
        ablated, messages = resolve(ablation, skill.path, tree)
        problems += [Problem(file, f"ablation '{ablation.name}' of skill {skill.name}{left_out}: {m}",
                             ablation.line, severity=severity) for m in messages]
        if ablated is not None:
            out.append(ablated)
    return tuple(out), problems
