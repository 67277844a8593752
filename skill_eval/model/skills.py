"""Skills: discovery under ``skills_dir`` and SKILL.md validation per agentskills.io."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem, did_you_mean
from skill_eval.fs.specialfiles import special_files
from skill_eval.intake.schemas_io import schema_problems
from skill_eval.intake.yamlpos import loads_yaml
from skill_eval.model.config import SkillSelector, display_path

_FRONTMATTER_END = re.compile(r"^---\s*$", re.MULTILINE)
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_EXTRA_HINT = "; agentskills.io keeps other fields under 'metadata'"


@dataclass(frozen=True)
class Skill:
    name: str  # the folder name: what the suite, keys and tables use
    path: Path
    description: str = ""
    frontmatter: dict[str, Any] = field(default_factory=dict, hash=False)
    problems: tuple[Problem, ...] = ()
    selector: SkillSelector | None = None

    @property
    def skill_md(self) -> Path:
        return self.path / "SKILL.md"

    @property
    def names(self) -> tuple[str, ...]:
        """Every name an agent may report loading it by: the folder's, and its SKILL.md name."""
        declared = self.frontmatter.get("name")
        return (self.name, declared) if isinstance(declared, str) and declared != self.name else (self.name,)


def parse_frontmatter(text: str, file: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The YAML between the leading '---' lines, or None with a problem saying why."""
    if text.startswith("\ufeff"):
        text = text[1:]
    first_nl = text.find("\n")
    if not _FRONTMATTER_END.fullmatch(text[:first_nl] if first_nl >= 0 else text):
        return None, [Problem(file, "no frontmatter: SKILL.md must start with a '---' line, then "
                                    "'name:' and 'description:', then '---'", 1)]
    end = _FRONTMATTER_END.search(text, 3)
    if end is None or first_nl < 0 or end.start() <= first_nl:
        return None, [Problem(file, "frontmatter is not closed: add a '---' line after it", 1)]
    body = text[first_nl + 1:end.start()]
    try:
        located = loads_yaml(body, file, line_offset=1)
    except InvalidInput as exc:
        return None, [Problem(p.file, f"frontmatter: {p.message}", p.line, p.column) for p in exc.problems]
    data = located.data
    if not isinstance(data, dict):
        return None, [Problem(file, "frontmatter must be a mapping with 'name' and 'description'; write them "
                                    "as 'name: ...' and 'description: ...' lines", 2)]
    problems = [_explain(p) for p in schema_problems("skill-frontmatter", data, file, located.where)]
    problems.sort(key=lambda p: (p.line or 0, p.column or 0))
    return data, problems


def _explain(problem: Problem) -> Problem:
    """Frontmatter-specific wording for a few schema messages."""
    message = problem.message
    if message.startswith("unknown key"):
        message += _EXTRA_HINT
    elif message.startswith("name: '") and "does not match the required pattern" in message:
        value = message.split("'")[1]
        message = (f"name: '{value}' must be lowercase letters, digits and single hyphens, not at the start "
                   "or end (agentskills.io); rename the skill and its folder")
    return Problem(problem.file, message, problem.line, problem.column, problem.severity)


def load_skill(path: Path, selector: SkillSelector | None = None, strict: bool = False,
               name_check: str = "error") -> Skill:
    """Read and validate one skill folder. Never raises for a bad SKILL.md: problems are returned.

    Missing or unreadable frontmatter is an error, and so is a name that differs from the folder
    unless ``name_check`` is "warn" (a suite's ``skill_name_check``); other spec violations are
    warnings unless ``strict`` (a suite's ``strict_skills``).
    """
    path = Path(path)
    skill_md = path / "SKILL.md"
    file = display_path(skill_md)
    refused = _refused_files(path, skill_md)
    if refused:
        return Skill(path.name, path, problems=tuple(refused), selector=selector)
    if not skill_md.is_file():
        alt = [p.name for p in path.glob("*.md") if p.name.lower() == "skill.md"]
        hint = (f"found {alt[0]}: rename it to SKILL.md" if alt else
                "add one (frontmatter with name and description), or leave this folder out of 'skills'")
        return Skill(path.name, path, problems=(Problem(file, f"missing SKILL.md; {hint}"),),
                     selector=selector)
    try:
        text = skill_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Skill(path.name, path, problems=(Problem(file, f"cannot read: {exc}; save it as UTF-8 text"),),
                     selector=selector)
    data, problems = parse_frontmatter(text, file)
    if data is None:
        return Skill(path.name, path, problems=tuple(problems), selector=selector)
    severity = "error" if strict else "warning"
    out = [Problem(p.file, p.message, p.line, p.column, severity) for p in problems]
    name = data.get("name")
    if isinstance(name, str) and name != path.name:
        line = _line_of(text, "name")
        if name_check == "warn":
            out.append(Problem(file, f"name '{name}' does not match its folder '{path.name}'; it runs as "
                                     f"'{path.name}' (skill_name_check: warn)", line, 1 if line else None,
                               severity="warning"))
        else:
            out.append(Problem(file, f"name '{name}' does not match its folder '{path.name}'; rename one "
                                     "so they are equal, or set skill_name_check: warn in the suite", line,
                               1 if line else None, severity="error"))
        out.sort(key=lambda p: (p.line or 0, p.column or 0))
    description = data.get("description")
    return Skill(
        name=path.name,
        path=path,
        description=description if isinstance(description, str) else "",
        frontmatter=data,
        problems=tuple(out),
        selector=selector,
    )


def _refused_files(path: Path, skill_md: Path) -> list[Problem]:
    """A SKILL.md linked from outside the folder (the agent would get no SKILL.md, and editing
    the target would re-run nothing), and FIFOs, sockets or devices anywhere in the folder
    (reading one blocks or never ends)."""
    out = [Problem(display_path(f), f"is {what}, not a file: reading it would block skill-eval; "
                   "remove it from the skill folder") for f, what in special_files(path)]
    if skill_md.is_symlink():
        target = skill_md.resolve()
        if not target.is_relative_to(path.resolve()):
            out.append(Problem(display_path(skill_md), f"SKILL.md is a link to {target}, outside the "
                               "skill folder: the agent would get no SKILL.md and edits to it would "
                               "re-run nothing; copy the file into the skill folder instead"))
    return out


def _line_of(text: str, key: str) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith(f"{key}:"):
            return i
    return None


def discover_skills(skills_dir: Path, selectors: tuple[SkillSelector, ...], strict: bool = False,
                    config_file: str = "", name_check: str = "error") -> list[Skill]:
    """The skills under ``skills_dir`` matching the selectors, in name order.

    A selector naming a skill that does not exist (no glob characters) is an error, and so is a
    suite that selects no skill at all.
    """
    file = config_file or display_path(skills_dir)
    folders = sorted(p for p in skills_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    names = [f.name for f in folders]
    chosen: dict[str, SkillSelector] = {}
    missing: list[Problem] = []
    for sel in selectors:
        matched = [f for f in folders if fnmatch.fnmatchcase(f.name, sel.pattern)]
        if not matched and not any(ch in sel.pattern for ch in "*?["):
            hint = did_you_mean(sel.pattern, names) or (f"; skill folders there: {', '.join(names[:10])}"
                                                        if names else "; that folder is empty")
            missing.append(Problem(file, f"skills: no skill folder '{sel.pattern}' under "
                                         f"{display_path(skills_dir)}{hint}; fix the name or skills_dir",
                                   sel.line))
        for f in matched:
            # A later, more specific entry (with a format) overrides a glob.
            if f.name not in chosen or sel.format or sel.evals:
                chosen[f.name] = sel
    if not chosen and not missing:
        line = selectors[0].line if selectors else None
        patterns = ", ".join(s.pattern for s in selectors) or "(none)"
        what = "has no skill folders" if not names else f"has no folder matching {patterns}"
        missing.append(Problem(file, f"skills: {display_path(skills_dir)} {what}; point skills_dir at the "
                                     "folder holding one folder per skill, or fix 'skills'", line))
    if missing:
        raise InvalidInput(missing)
    return [load_skill(skills_dir / name, sel, strict, name_check) for name, sel in sorted(chosen.items())]
