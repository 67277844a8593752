"""Checks every reader applies to the cases it builds; all findings become Problems."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from skill_eval.errors import Problem, did_you_mean
from skill_eval.fs.specialfiles import special_kind
from skill_eval.intake import timedmatch
from skill_eval.intake.limits import REGEX_TIMEOUT_MS
from skill_eval.intake.regexrisk import risk
from skill_eval.intake.schemapatterns import schema_patterns
from skill_eval.intake.userschema import schema_validator
from skill_eval.model.cases import Check, Fixture
from skill_eval.model.evalsets.regexparams import RegexParam, regex_params
from skill_eval.model.evalsets.source import Document

At = tuple[str | int, ...]
Marked = Mapping[str, tuple[RegexParam, ...]]


def at_text(at: At) -> str:
    out = ""
    for part in at:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def leaves_workspace(value: str) -> bool:
    """Whether a workspace-relative path is absolute or climbs out with '..'."""
    pure = PurePosixPath(value.replace("\\", "/"))
    return pure.is_absolute() or ".." in pure.parts or bool(PureWindowsPath(value).drive)


def check_path_problem(check: Check) -> str | None:
    """Why the kept file a check reads is not a file of the run's workspace, or None. Every check
    that reads a kept file names it in ``file`` (``path`` for file_exists)."""
    key = "path" if check.type == "file_exists" else "file"
    value = check.params.get(key)
    if not isinstance(value, str) or (key == "file" and value in ("", "output")):
        return None
    if not leaves_workspace(value):
        return None
    return (f"{check.type} {key} {value!r} leaves the run's workspace; use a path relative to the "
            "workspace without '..' (e.g. 'outputs/report.md')")


@dataclass
class Collector:
    """Gathers the Problems of one eval-set file, each placed at its key path's line."""

    doc: Document
    problems: list[Problem] = field(default_factory=list)
    seen_files: dict[tuple[str, str], tuple[Path, str]] = field(default_factory=dict)

    def add(self, message: str, at: At = (), severity: str = "error") -> None:
        line, col = self.doc.where(at)
        where = at_text(at) + ": " if at else ""
        self.problems.append(Problem(self.doc.display, where + message, line, col, severity))

    def error(self, message: str, at: At = ()) -> None:
        self.add(message, at)

    def warn(self, message: str, at: At = ()) -> None:
        self.add(message, at, "warning")

    def unknown_fields(self, obj: dict[str, Any], known: Iterable[str], at: At) -> None:
        """Warn about every key the reader does not use, so nothing is dropped silently."""
        known = list(known)
        for key in obj:
            if key not in known:
                self.warn(f"field '{key}' is not understood and is ignored{did_you_mean(key, known)}; "
                          "remove it or rename it", (*at, key))

    def case_id(self, raw: Any, at: At, seen: dict[str, At]) -> str | None:
        if isinstance(raw, bool) or not isinstance(raw, str | int) or raw == "":
            what = "is missing" if raw is None else f"must be a non-empty string or integer, got {raw!r}"
            self.error(f"case id {what}; give the case a unique id", at)
            return None
        cid = str(raw)
        if cid in seen:
            self.error(f"duplicate case id '{cid}' (first used at {at_text(seen[cid])}); "
                       "give each case its own id", at)
            return None
        seen[cid] = at
        return cid

    def prompt(self, raw: Any, at: At) -> str | None:
        if not isinstance(raw, str) or not raw.strip():
            self.error("prompt is required and must be non-empty text; add the user's request", at)
            return None
        return raw

    def text(self, raw: dict[str, Any], key: str, at: At) -> str:
        """``raw[key]`` as text ("" when absent or, with an error, not text)."""
        value = raw.get(key, "")
        if isinstance(value, str):
            return value
        self.error(f"{key} must be text", (*at, key))
        return ""

    def optional_bool(self, raw: dict[str, Any], key: str, at: At) -> bool | None:
        """``raw[key]`` as true or false (None when absent or, with an error, not a boolean)."""
        value = raw.get(key)
        if value is None or isinstance(value, bool):
            return value
        self.error(f"{key} must be true or false", (*at, key))
        return None

    def string_list(self, raw: Any, at: At, what: str) -> list[str]:
        if raw is None:
            return []
        if isinstance(raw, str):
            return [raw]
        if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
            self.error(f"{what} must be a list of strings", at)
            return []
        return list(raw)

    def fixtures(self, raw: Any, root: Path, at: At) -> tuple[Fixture, ...]:
        """Input files, relative to ``root``: they must exist and stay inside it."""
        out: list[Fixture] = []
        for i, rel in enumerate(self.string_list(raw, at, "files")):
            real = self.inside(rel, root, (*at, i))
            if real is not None:
                out.append(Fixture(rel=PurePosixPath(rel.replace("\\", "/")).as_posix(), source=real))
        return tuple(out)

    def inside(self, rel: str, root: Path, at: At, missing: str = "error", suffix: str = "") -> Path | None:
        """The existing file ``root/rel``, or None after a Problem naming the path tried.

        ``..``, absolute paths and symlinks that resolve outside ``root`` are refused.
        """
        shape = _path_shape(rel)
        if shape == "empty":
            self.error("empty file path; remove it or name a file", at)
            return None
        if shape == "absolute":
            self.error(f"file '{rel}' is an absolute path; give it relative to {root}", at)
            return None
        if shape == "climbs":
            self.error(f"file '{rel}' uses '..' and would leave {root}; keep fixtures inside it", at)
            return None
        tried = root / rel
        real, state = self._look(rel, root)
        if state == "outside":
            self.error(f"file '{rel}' ({tried}) resolves to {real}, outside {root}; "
                       "copy the file inside instead of linking to it", at)
            return None
        if state == "missing":
            self.add(f"file '{rel}' not found (tried {tried}); add it or fix the path{suffix}", at, missing)
            return None
        if state == "folder":
            self.error(f"file '{rel}' is a folder ({tried}); list the files inside it", at)
            return None
        if state != "ok":
            self.error(f"file '{rel}' ({tried}) is {state}, not a file: copying it would block the "
                       "run; name a regular file", at)
            return None
        return real

    def _look(self, rel: str, root: Path) -> tuple[Path, str]:
        """Where ``root/rel`` really is, and whether it is 'ok', 'outside', 'missing' or a 'folder';
        asked of the file system once per file and eval set (cases share fixtures)."""
        key = (rel, str(root))
        if key not in self.seen_files:
            tried = root / rel
            try:
                real = tried.resolve()
                if not real.is_relative_to(root.resolve()):
                    state = "outside"
                elif not real.exists():
                    state = "missing"
                else:
                    state = special_kind(real) or ("ok" if real.is_file() else "folder")
            except OSError:  # a name too long, a loop of links: there is no such file to use
                real, state = tried, "missing"
            self.seen_files[key] = (real, state)
        return self.seen_files[key]

    def finish_checks(self, checks: list[tuple[Check, At]]) -> tuple[Check, ...]:
        """Give default ids (``<type>-<n>``), refuse duplicate ids and regexes that do not compile."""
        out: list[Check] = []
        seen: set[str] = set()
        per_type: dict[str, int] = {}
        marked = regex_params()
        for check, at in checks:
            per_type[check.type] = per_type.get(check.type, 0) + 1
            if not check.id:
                check = replace(check, id=f"{check.type}-{per_type[check.type]}")
            if check.id in seen:
                self.error(f"duplicate check id '{check.id}' in this case; give each check its own id", at)
                continue
            seen.add(check.id)
            if not self._regex_ok(check, at, marked):
                continue
            if not self._output_path_ok(check, at):
                continue
            if check.type == "json_schema" and isinstance(check.params.get("schema"), dict):
                _, why = schema_validator(check.params["schema"])
                if why is not None:
                    self.error(f"json_schema check: {why}", at)
                    continue
            out.append(check)
        return tuple(out)

    def _output_path_ok(self, check: Check, at: At) -> bool:
        """A path a check reads from the run's kept workspace files must stay inside the
        workspace: an absolute path or one climbing out with '..' can be refused before anything
        runs (a symlink out is caught when the check runs)."""
        why = check_path_problem(check)
        if why is not None:
            self.error(why, at)
            return False
        return True

    def _regex_ok(self, check: Check, at: At, marked: Marked) -> bool:
        """Every pattern the check holds compiles on the engine grading uses; a risky one warns."""
        for key, pattern in check_patterns(check, marked):
            if not isinstance(pattern, str):
                continue  # the schema or the typed mapping already reported it
            try:
                timedmatch.compiled(pattern, check.case_sensitive)
            except timedmatch.BadPattern as exc:
                self.error(f"{check.type} {key} {pattern!r} does not compile: "
                           f"{str(exc).split(': ', 1)[-1]}; fix the regular expression", at)
                return False
            why = risk(pattern)
            if why is not None:
                self.warn(f"{check.type} {key} {pattern!r} {why}, which can take exponential time on "
                          f"some outputs; grading stops it after {REGEX_TIMEOUT_MS} ms and fails the "
                          "check: rewrite it so each piece of text can match one way only", at)
        return True


def check_patterns(check: Check, marked: Marked | None = None) -> list[tuple[str, Any]]:
    """(where, pattern) of every regex a check supplies, whatever its type: each parameter its
    type's schema marks as a Python regex (model/evalsets/regexparams), every pattern in a
    json_schema check's schema. ``marked``: ``regex_params()``, when the caller holds it."""
    params = check.params
    if check.type == "json_schema":
        schema = params.get("schema")
        return [("schema pattern", p) for p in schema_patterns(schema)] if isinstance(schema, dict) else []
    found: list[tuple[str, Any]] = []
    for param in (regex_params() if marked is None else marked).get(check.type, ()):
        if not param.many and param.key in params:
            found.append((param.key, params[param.key]))
        elif param.many and isinstance(params.get(param.key), list):
            found.extend((param.key, p) for p in params[param.key])
    return found


@lru_cache(maxsize=4096)
def _path_shape(rel: str) -> str:
    """'empty', 'absolute', 'climbs' (uses '..') or 'ok': a pure function of the text, so cases
    sharing a fixture pay for it once."""
    if not rel.strip():
        return "empty"
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).drive or PureWindowsPath(rel).root:
        return "absolute"
    if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
        return "climbs"
    return "ok"


def check_skill_name(col: Collector, skill_name: Any, root: Path, at: At) -> str | None:
    """The eval set's ``skill_name`` should name the skill folder it belongs to."""
    if skill_name is None:
        return None
    if not isinstance(skill_name, str) or not skill_name:
        col.error("skill_name must be a non-empty string", at)
        return None
    if (root / "SKILL.md").is_file():
        if root.name != skill_name:
            col.warn(f"skill_name '{skill_name}' does not match the skill folder name '{root.name}'; "
                     "make them equal", at)
        return skill_name
    # Evals kept beside the skill (repo/evals + repo/<skill>/SKILL.md): find the skill by name.
    found = [p.parent.name for p in (*root.glob("*/SKILL.md"), *root.glob("*/*/SKILL.md"))]
    if skill_name not in found:
        hint = did_you_mean(skill_name, found) if found else f" (no SKILL.md in or below {root})"
        col.warn(f"skill_name '{skill_name}' names no skill folder here{hint}; "
                 "make skill_name equal the skill folder name", at)
    return skill_name
