"""A loaded suite: the config, its skills, and their eval sets, with every problem collected."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from skill_eval.errors import InvalidInput, Problem
from skill_eval.fs.hashing import HashCache
from skill_eval.model.ablation.declared import resolve_ablations, unknown_ablation_skills
from skill_eval.model.ablation.parts import AblatedSkill
from skill_eval.model.cases import Case, EvalSet, RubricItem
from skill_eval.model.config import Suite, display_path, load_suite
from skill_eval.model.evalcache import EvalSetCache
from skill_eval.model.skills import Skill, discover_skills
from skill_eval.model.suitechecks.folder_names import name_problems


@dataclass(frozen=True)
class SkillEvals:
    skill: Skill
    evalsets: tuple[EvalSet, ...]
    ablations: tuple[AblatedSkill, ...] = ()  # the suite's and the eval sets', resolved

    @property
    def cases(self) -> tuple[Case, ...]:
        return tuple(c for es in self.evalsets for c in es.cases)


@dataclass(frozen=True)
class Project:
    suite: Suite
    skills: tuple[SkillEvals, ...]
    problems: tuple[Problem, ...]
    hashes: HashCache | None = field(default=None, compare=False, repr=False)  # shared with the plan

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.is_error)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if not p.is_error)

    def gradability_problems(self, warn: bool) -> list[Problem]:
        """Cases nothing can grade: no deterministic check, and rubric only without a judge
        (``run`` and ``validate`` refuse them; ``warn`` makes them warnings)."""
        judge = self.suite.judge is not None
        out = []
        for se in self.skills:
            for es in se.evalsets:
                bare = [c for c in es.cases if c.kind == "task" and not c.checks and not (c.rubric and judge)]
                out.extend(ungradable(se.skill.name, display_path(se.skill.path), bare,
                                      "warning" if warn else "error"))
        return out

    def counts(self) -> tuple[int, int, int]:
        """(skills, eval sets, cases)."""
        # An eval set several skills share (a plugin's evals/ folder) counts once.
        return (len(self.skills), len({es.path for s in self.skills for es in s.evalsets}),
                sum(len(s.cases) for s in self.skills))


def ungradable(skill: str, where: str, bare: list[Case], severity: str) -> list[Problem]:
    """Cases of one eval set nothing can grade: one line for all those that lack the same
    thing (a real set is often all expected_output: skill-creator's shape, which a judge
    grades). ``where``: the file named when a case has no source."""
    groups: dict[str, list[Case]] = {}
    for case in bare:
        why = ("only rubric assertions and the suite has no judge" if case.rubric else
               "only an expected_output and no checks" if case.expected_output.strip() else "no checks")
        groups.setdefault(why, []).append(case)
    out = []
    for why, cases in groups.items():
        first = cases[0]
        fix = ("add a 'judge' to the suite to grade each against its expected_output (as "
               "skill-creator does), or deterministic 'checks'" if why.startswith("only an expected")
               else "add deterministic 'checks' or a 'judge' to the suite")
        if len(cases) == 1:
            who = f"case '{first.id}' of {skill} has"
        else:
            ids = ", ".join(c.id for c in cases[:3]) + (", ..." if len(cases) > 3 else "")
            who = f"{len(cases)} cases of {skill} ({ids}) have"
        out.append(Problem(first.source or where, f"{who} {why}: {fix}", first.line, severity=severity))
    return out


# The rubric item a judge grades a case by when the case holds only an expected_output.
EXPECTED_ITEM = "expected_output"


def judged_against_expected(es: EvalSet) -> EvalSet:
    """With a judge in the suite, a task case with an expected_output and nothing else to grade
    it gets one rubric item: the output achieves what the expected output describes (the
    judge is sent the expected output beside it), as skill-creator's grader reads such cases."""
    def judged(case: Case) -> Case:
        if case.kind != "task" or case.checks or case.rubric or not case.expected_output.strip():
            return case
        item = RubricItem(EXPECTED_ITEM, "The response achieves what the expected output describes: "
                          + case.expected_output.strip())
        return dataclasses.replace(case, rubric=(item,))
    cases = tuple(judged(c) for c in es.cases)
    return es if cases == es.cases else dataclasses.replace(es, cases=cases)


def _select_split(cases: tuple[Case, ...], split: str) -> tuple[Case, ...]:
    if split == "all":
        return cases
    # Cases without a split are visible "tune" cases: only harness manifests declare splits.
    return tuple(c for c in cases if (c.split or "tune") == split)


def load_evalsets(skill: Skill, cache: EvalSetCache | None = None) -> tuple[list[EvalSet], list[Problem]]:
    from skill_eval.model.evalsets import find_evalsets, load_evalset

    sel = skill.selector
    if sel is not None and sel.evals:
        paths = [skill.path / rel for rel in sel.evals]
    else:
        paths = find_evalsets(skill.path)
    fmt = sel.format if sel is not None else None
    sets: list[EvalSet] = []
    problems: list[Problem] = []
    for path in paths:
        if not path.exists():
            problems.append(Problem(display_path(path), "eval-set file not found; fix 'evals' in the suite"))
            continue
        # A folder's stat says nothing of the files in it: a folder eval set is read every time.
        cached = cache is not None and path.is_file()
        es = cache.get(path, skill.path, fmt) if cached and cache is not None else None
        if es is None:
            try:
                es = load_evalset(path, skill.path, format=fmt)
            except InvalidInput as exc:
                problems.extend(exc.problems)
                continue
            # A set whose reader read files elsewhere (EvalSet.inputs) is not cached: the cache
            # vouches only for the files beside the eval-set file.
            if cached and cache is not None and not es.inputs:
                cache.put(path, skill.path, fmt, es)
        sets.append(es)
        problems.extend(es.problems)
    return sets, problems


def load_project(suite_path: str | Path, split: str | None = None, use_cache: bool = True,
                 only_skills: set[str] | None = None) -> Project:
    """Load everything a suite names. Config errors raise; skill and eval-set problems are
    collected so ``validate`` can report them all at once. ``use_cache`` reuses parsed eval sets
    from the suite's store (``validate`` reads everything afresh and writes nothing)."""
    suite = load_suite(suite_path)
    hashes = HashCache(suite.store / "hashcache.json") if use_cache else None
    cache = EvalSetCache(suite.store / "cache" / "evalsets", hashes) if hashes is not None else None
    skills = discover_skills(suite.skills_dir, suite.skills, suite.strict_skills, display_path(suite.path),
                             suite.skill_name_check)
    problems: list[Problem] = unknown_ablation_skills(suite.ablations, {s.name for s in skills})
    if only_skills is not None:
        skills = [s for s in skills if s.name in only_skills]
    split = split or suite.split
    loaded: list[SkillEvals] = []
    for skill in skills:
        problems.extend(skill.problems)
        sets, set_problems = load_evalsets(skill, cache)
        problems.extend(set_problems)
        # Before the split selection: an ablation may name a case another split holds.
        declared = [a for a in suite.ablations if a.skill in (None, skill.name)]
        declared += [a for es in sets for a in es.ablations]
        ablated, ablation_problems = resolve_ablations(skill, declared, [c for es in sets for c in es.cases])
        problems.extend(ablation_problems)
        if split != "all":
            sets = [EvalSet(es.path, es.format, es.skill_name, _select_split(es.cases, split), es.problems,
                            es.ablations)
                    for es in sets]
        if suite.judge is not None:
            sets = [judged_against_expected(es) for es in sets]
        loaded.append(SkillEvals(skill, tuple(sets), ablated))
    problems.extend(name_problems(display_path(suite.path), suite.models,
                                  ((se.skill.name, se.evalsets) for se in loaded)))
    # A plugin's evals/ folder is read once per skill that finds it: its problems are said once.
    return Project(suite, tuple(loaded), tuple(dict.fromkeys(problems)), hashes)
