"""Claude Code's ``claude plugin eval`` suites: a plugin's ``evals/`` folder, read as it is.

A case is any folder under the eval folder holding ``prompt.md`` and/or ``case.yaml`` (folders
inside a case belong to it). The prompt is ``prompt.md``'s body or ``execution.prompt``; the
graders are ``case.yaml``'s ``graders:`` list, then ``graders/<name>.md`` (frontmatter: type and
options; body: the rubric of an ``llm`` grader). ``graders`` maps each grader to one check
or rubric item, or names it as not graded here. ``context.add_dirs`` become the case's input
files; the run settings (runs, model, max_turns, ..., the scaffold script and history file)
become the case's RunSettings (run_settings.py); ``plugins`` may name the enclosing plugin
only (the one whose skills are under test). The plugin's skills
(``<plugin>/skills/*/SKILL.md``) are the skills under test: with several, a case belongs to the
skill its "skill fired" grader names, and a case naming none to the first skill.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem
from skill_eval.fs.confined import Unreadable, confined_text, refusal
from skill_eval.fs.readonce import ReadOnce
from skill_eval.intake.yamlpos import Located, loads_yaml
from skill_eval.model.cases import Case, Check, EvalSet, Fixture, RubricItem
from skill_eval.model.evalsets.claude_plugin.graders import (
    GRADER_KEYS,
    indicator_candidate,
    map_grader,
    skill_named,
    weight_of,
    with_reference,
)
from skill_eval.model.evalsets.claude_plugin.run_settings import read_settings
from skill_eval.model.evalsets.validate import check_path_problem
from skill_eval.model.mocks import plugin_files, read_mocks

FORMAT = "plugin_eval"
# Keys of prompt.md's frontmatter and case.yaml's top level / execution: section (plugin eval's docs).
TOP_KEYS = ("schema_version", "name", "description", "tags", "plugins", "runs", "expected_outcome")
EXECUTION_KEYS = ("model", "max_turns", "timeout_seconds", "allowed_tools", "append_system_prompt", "env")
PROMPT_KEYS = (*TOP_KEYS, *EXECUTION_KEYS)
CASE_KEYS = (*TOP_KEYS, "execution", "context", "graders")
CONTEXT_KEYS = ("scaffold_script", "history_file", "add_dirs")
_SKIP = ("results", "mocks", "node_modules")


def _is_case(folder: Path) -> bool:
    return (folder / "prompt.md").is_file() or (folder / "case.yaml").is_file()


def case_dirs(eval_dir: Path) -> list[Path]:
    """Every case folder under ``eval_dir``, in path order; a case's own subfolders are not cases."""
    found: list[Path] = []
    for here, dirs, _ in os.walk(eval_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP)
        if Path(here) != eval_dir and _is_case(Path(here)):
            found.append(Path(here))
            dirs[:] = []
    return found


def detect(data: Any, path: Path) -> int:
    return 0  # a folder, never one file: see detect_folder


def detect_folder(path: Path) -> int:
    """A plugin eval folder: cases, one at least with graders, and no eval-set files of its own
    (a skill's evals/ whose fixtures hold a prompt.md is not one)."""
    own_sets = any(path.glob("evals.*")) or any(path.glob("shared-benchmark.*"))
    if not path.is_dir() or _is_case(path) or own_sets:
        return 0
    cases = case_dirs(path)
    graded = any((c / "graders").is_dir() or (c / "case.yaml").is_file() for c in cases)
    return 95 if graded else 0


def plugin_root(eval_dir: Path) -> Path:
    for folder in (eval_dir.parent, *eval_dir.parent.parents):
        if (
            (folder / "plugin.json").is_file()
            or (folder / ".claude-plugin" / "plugin.json").is_file()
            or (folder / "skills").is_dir()
        ):
            return folder
    return eval_dir.parent


def plugin_skills(eval_dir: Path) -> list[str]:
    return sorted(p.parent.name for p in (plugin_root(eval_dir) / "skills").glob("*/SKILL.md"))


def _display(file: Path, eval_dir: Path, display: str) -> str:
    return str(Path(display) / file.relative_to(eval_dir))


class _Case:
    """Problems and results of reading one case folder."""

    def __init__(self, folder: Path, eval_dir: Path, display: str) -> None:
        self.folder, self.eval_dir, self.display = folder, eval_dir, display
        self.problems: list[Problem] = []

    def problem(self, file: Path, message: str, line: int | None = None, severity: str = "warning") -> None:
        self.problems.append(
            Problem(_display(file, self.eval_dir, self.display), message, line, severity=severity)
        )

    def yaml(self, file: Path, text: str, offset: int = 0) -> Located | None:
        try:
            located = loads_yaml(text, _display(file, self.eval_dir, self.display), line_offset=offset)
        except InvalidInput as exc:
            self.problems.extend(exc.problems)
            return None
        if located.data is None:
            return Located({}, {})
        if not isinstance(located.data, dict):
            self.problem(file, "must be a mapping of keys", 1 + offset, "error")
            return None
        return located

    def read(self, file: Path) -> str | None:
        """The file's text, or None after an error naming it (a folder, a FIFO, not UTF-8)."""
        try:
            return confined_text(file)
        except Unreadable as exc:
            self.problem(file, str(exc), None, "error")
            return None

    def front(self, file: Path) -> tuple[dict[str, Any], str, Located | None] | None:
        """(frontmatter, body, positions) of a Markdown file with optional YAML frontmatter;
        None when it cannot be read (reported)."""
        text = self.read(file)
        if text is None:
            return None
        if not text.startswith("---"):
            return {}, text, None
        head, sep, body = text[3:].partition("\n---")
        if not sep:
            self.problem(file, "frontmatter is not closed: add a '---' line after it", 1, "error")
            return {}, text, None
        located = self.yaml(file, head, 0)
        return (located.data if located else {}), body.split("\n", 1)[-1] if "\n" in body else "", located


def _unknown(
    c: _Case,
    file: Path,
    obj: dict[str, Any],
    known: tuple[str, ...],
    located: Located | None,
    at: tuple[str, ...],
    severity: str,
) -> None:
    for key in obj:
        if key not in known:
            line = located.where((*at, key))[0] if located else None
            what = "is an error in claude plugin eval" if severity == "error" else "is not a documented key"
            c.problem(file, f"{'.'.join((*at, key))}: unknown key ({what}); remove it", line, severity)


Grader = tuple[str, dict[str, Any], Path, int | None]  # (name, its mapping, the file, its line)


def read_case(
    folder: Path, eval_dir: Path, display: str, base: Path, reads: ReadOnce | None = None
) -> tuple[Case | None, list[str], list[Problem]]:
    """(case, unmapped graders as 'case/grader (type): why', problems). ``reads``: the suite's
    mock files, read once for all its cases."""
    c = _Case(folder, eval_dir, display)
    spec: dict[str, Any] = {}
    graders: list[Grader] = []
    yaml_file, md_file = folder / "case.yaml", folder / "prompt.md"
    if yaml_file.is_file():
        read_yaml = _case_yaml(c, yaml_file)
        if read_yaml is None:
            return None, [], c.problems
        spec, graders = read_yaml
    prompt = spec.get("prompt")
    if md_file.is_file():
        read = c.front(md_file)
        if read is None:
            return None, [], c.problems
        front, body, located_md = read
        _unknown(c, md_file, front, PROMPT_KEYS, located_md, (), "error")
        spec.update(front)
        prompt = body.strip("\n")
    unreadable = _grader_files(c, folder, graders)
    name = spec.get("name") or folder.name
    source = md_file if md_file.is_file() else yaml_file
    if not isinstance(prompt, str) or not prompt.strip():
        c.problem(source, "no prompt: write it as prompt.md's body or execution.prompt", 1, "error")
        return None, [], c.problems
    if not graders and not unreadable:
        c.problem(source, "no graders: add graders/<name>.md or a graders: list", 1, "error")
    mocks = read_mocks(eval_dir, folder, plugin_root(eval_dir), lambda m: c.problem(source, m, 1, "error"),
                       reads)
    # §8: a grader on mock_calls is an indicator when every mocked server is the plugin's own;
    # when every grader is an indicator, all are scored normally in both arms.
    own = mocks is not None and bool(mocks.servers) and all(s.declared for s in mocks.servers)
    checks, rubric, unmapped = _map_graders(c, name, folder, graders, own)
    settings = read_settings(folder, spec, lambda m: c.problem(source, m, 1, "error"), mocks)
    _check_plugins(c, folder, spec.get("plugins"), source)
    fixtures = _fixtures(c, folder, spec.get("add_dirs"), base, yaml_file)
    case = Case(
        id=str(name),
        prompt=prompt,
        fixtures=fixtures,
        checks=tuple(checks),
        rubric=tuple(rubric),
        source=_display(source, eval_dir, display),
        line=1,
        settings=settings,
    )
    return case, unmapped, c.problems


def _case_yaml(c: _Case, yaml_file: Path) -> tuple[dict[str, Any], list[Grader]] | None:
    """case.yaml: its keys (``execution:`` and ``context:`` flattened in) and its ``graders:``
    list; None when it cannot be read."""
    text = c.read(yaml_file)
    located = c.yaml(yaml_file, text) if text is not None else None
    if located is None:
        return None
    spec = dict(located.data)
    _unknown(c, yaml_file, spec, CASE_KEYS, located, (), "warning")
    for part, keys in (("execution", (*EXECUTION_KEYS, "prompt")), ("context", CONTEXT_KEYS)):
        if isinstance(spec.get(part), dict):
            _unknown(c, yaml_file, spec[part], keys, located, (part,), "warning")
            spec.update({k: v for k, v in spec[part].items() if k != "graders"})
    if spec.get("schema_version") != "1.1":
        c.problem(
            yaml_file,
            f'schema_version {spec.get("schema_version")!r}: claude plugin eval requires "1.1"',
            located.where(("schema_version",))[0],
        )
    graders: list[Grader] = []
    listed = spec.get("graders") or []
    if not isinstance(listed, list):
        c.problem(yaml_file, f"graders: must be a list of graders, got {type(listed).__name__}",
                  located.where(("graders",))[0], "error")
        listed = []
    for i, g in enumerate(listed):
        line = located.where(("graders", i))[0]
        if isinstance(g, dict):
            graders.append((str(g.get("name") or f"grader-{i + 1}"), g, yaml_file, line))
        else:
            c.problem(yaml_file, f"graders[{i}]: must be a mapping (type: ..., and its options)",
                      line, "error")
    return spec, graders


def _grader_files(c: _Case, folder: Path, graders: list[Grader]) -> bool:
    """``graders/<name>.md`` added to ``graders`` (the body an llm grader's rubric); True when
    one could not be read."""
    unreadable = False
    for file in sorted((folder / "graders").glob("*.md")):
        read = c.front(file)
        if read is None:
            unreadable = True
            continue
        front, body, _ = read
        if body.strip() and "criteria" not in front:
            front = {**front, "criteria": body.strip()}
        graders.append((file.stem, front, file, 1))
    return unreadable


def _map_graders(c: _Case, name: Any, folder: Path, graders: list[Grader],
                 own: bool) -> tuple[list[Check], list[RubricItem], list[str]]:
    """Each grader as a check, a rubric item, or named as not graded here ('case/grader (type): why')."""
    only_fired = all(indicator_candidate(g, own) for _, g, _, _ in graders)
    checks: list[Check] = []
    rubric: list[RubricItem] = []
    unmapped: list[str] = []
    for gname, g, gfile, line in graders:
        for key in g:
            if key not in GRADER_KEYS:
                c.problem(gfile, f"grader '{gname}': key '{key}' is not a documented grader key and is "
                          "ignored", line)
        if weight_of(g) is None:
            c.problem(gfile, f"grader '{gname}': weight {g.get('weight')!r} must be a number above 0 "
                      "(claude plugin eval refuses to load the case)", line, "error")
        mapped = map_grader(gname, g, indicator=indicator_candidate(g, own) and not only_fired)
        if mapped.error is not None:
            c.problem(gfile, f"grader '{gname}' ({mapped.type}): {mapped.error}", line, "error")
            continue
        for w in mapped.warnings:
            c.problem(gfile, f"grader '{gname}': {w}", line)
        if mapped.check is not None and check_path_problem(mapped.check) is not None:
            # Refused here, at validate, naming the grader file: not first at grading time.
            # Only a regex grader's file target reads a path (file_exists globs the created list).
            value = mapped.check.params.get("file")
            c.problem(gfile, f"grader '{gname}': target path {value!r} leaves the run's workspace; use a "
                      "path relative to the workspace without '..'", line, "error")
        elif mapped.check is not None:
            checks.append(mapped.check)
        elif mapped.rubric is not None:
            item, why = with_reference(mapped.rubric, folder)
            if item is None:
                c.problem(gfile, f"grader '{gname}' ({mapped.type}): {why}", line, "error")
            else:
                rubric.append(item)
        else:
            unmapped.append(f"{name}/{gname} ({mapped.type}): {mapped.unmapped}")
            c.problem(gfile, f"grader '{gname}' ({mapped.type}) is not graded by skill-eval: "
                      f"{mapped.unmapped}", line)
    return checks, rubric, unmapped


def _check_plugins(c: _Case, folder: Path, plugins: Any, file: Path) -> None:
    root = plugin_root(c.eval_dir).resolve()
    for rel in plugins if isinstance(plugins, list) else ([plugins] if plugins else []):
        if (folder / str(rel)).resolve() != root:
            c.problem(file, f"plugins: {rel!r} is not the plugin enclosing the eval folder ({root.name}); "
                      "skill-eval tests that plugin's skills only: remove the entry", 1, "error")


def _fixtures(c: _Case, folder: Path, dirs: Any, base: Path, file: Path) -> tuple[Fixture, ...]:
    out: list[Fixture] = []
    inside = folder.resolve()
    for rel in dirs if isinstance(dirs, list) else []:
        root = (folder / str(rel)).resolve()
        if not root.is_dir() or inside not in root.parents:
            c.problem(
                file,
                f"context.add_dirs: {rel!r} is not a folder inside the case; fix the path",
                severity="error",
            )
            continue
        for path in sorted(p for p in root.rglob("*") if not p.is_dir()):
            # The native readers' rule: no link out of the case, no FIFO or device to copy.
            why = refusal(path, inside)
            if why is not None:
                c.problem(file, f"context.add_dirs: {path.relative_to(inside).as_posix()} {why}",
                          severity="error")
            elif path.is_file():
                out.append(Fixture(path.relative_to(inside).as_posix(), path))
    return tuple(out)


def _special_plugin_files(eval_dir: Path, display: str) -> list[Problem]:
    """The plugin's manifest or MCP configuration when it is a FIFO or device: read without
    waiting (model/mocks.py), and refused here, once, as a one-line error."""
    out = []
    for file in plugin_files(plugin_root(eval_dir)):
        why = refusal(file)
        if why is not None:
            shown = os.path.normpath(Path(display) / os.path.relpath(file, eval_dir))
            out.append(Problem(shown, why, severity="error"))
    return out


def read(data: Any, path: Path, skill_root: Path, display: str) -> EvalSet:
    problems: list[Problem] = []
    cases: list[Case] = []
    unmapped: list[str] = []
    owner: dict[str, str | None] = {}
    seen: set[str] = set()
    reads = ReadOnce(path)
    for folder in case_dirs(path):
        case, lost, found = read_case(folder, path, display, skill_root, reads)
        problems += found
        if case is None:
            continue
        if case.id in seen:
            problems.append(
                Problem(case.source, f"case name '{case.id}' is used twice; give each case its own name", 1)
            )
            continue
        seen.add(case.id)
        cases.append(case)
        unmapped += lost
        # The skill a "skill fired" grader names owns the case.
        owner[case.id] = next(
            (
                named
                for c in case.checks
                if c.type == "plugin_tool_used"
                and (named := skill_named({"type": "tool_used", **c.params})) is not None
            ),
            None,
        )
    problems += _special_plugin_files(path, display)
    skills = plugin_skills(path)
    skill_name = (
        skill_root.name if (skill_root / "SKILL.md").is_file() else (skills[0] if len(skills) == 1 else None)
    )
    if skill_name is not None and len(skills) > 1:
        first = skills[0]
        cases = [c for c in cases if (owner[c.id] if owner[c.id] in skills else first) == skill_name]
    return EvalSet(path, FORMAT, skill_name, tuple(cases), tuple(problems), unmapped=tuple(unmapped),
                   inputs=plugin_files(plugin_root(path)))


__all__ = ["detect", "detect_folder", "read", "case_dirs", "skill_named"]
