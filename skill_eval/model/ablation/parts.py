"""Ablations: a skill with one part removed, run as an arm of its own (``ablation:<name>``).

A part is a file or folder of the skill (a path relative to the skill folder) or a section of
its SKILL.md, named by its Markdown heading (``## Severity rules``): the heading and everything
under it up to the next heading of the same or a higher level. Headings inside fenced code are
code, not headings. The ablated tree is resolved here, once, against the skill as loaded: the
planner hashes it (so an ablation arm's key covers exactly what it is given) and the workspace
installs it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from skill_eval.fs.hashing import key_of
from skill_eval.model.ablation import patch

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
_NAME = re.compile(NAME_PATTERN)
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Ablation:
    """One declared ablation: what to remove, from which skill (None: every skill of the suite)."""

    name: str
    remove: tuple[str, ...]
    skill: str | None = None
    source: str = ""  # the file that declares it, for messages
    line: int | None = None
    cases: tuple[str, ...] = ()  # the task cases it runs on; empty: every task case
    patches: tuple[tuple[str, str], ...] = ()  # (where from, deletion-only unified diff text)
    # A suite's own ablation that cannot be made is an error; a harness manifest's is left out
    # with a warning, as the manifest's other parts skill-eval cannot run are.
    strict: bool = True

    @property
    def arm(self) -> str:
        return f"ablation:{self.name}"


@dataclass(frozen=True)
class AblatedSkill:
    """An ablation resolved against one skill folder: the files it drops and the new SKILL.md."""

    name: str
    remove: tuple[str, ...]
    removed_files: frozenset[str]  # posix paths relative to the skill folder
    rewritten: tuple[tuple[str, bytes], ...]  # (path, new content): SKILL.md cut, patched files
    cases: tuple[str, ...] = ()  # empty: every task case

    def runs_on(self, case_id: str) -> bool:
        return not self.cases or case_id in self.cases

    @property
    def arm(self) -> str:
        return f"ablation:{self.name}"

    def items(self, items: list[list[str]]) -> list[list[str]]:
        """The ablated tree's (path, sha256) items, from the full tree's."""
        rewritten = dict(self.rewritten)
        out = []
        for rel, sha in items:
            if rel in self.removed_files:
                continue
            if rel in rewritten:
                sha = hashlib.sha256(rewritten[rel]).hexdigest()
            out.append([rel, sha])
        return out

    def digest(self, items: list[list[str]]) -> str:
        """The ablated tree's digest: the same derivation as hashing.tree_digest, so it covers
        exactly what the arm is given."""
        return key_of(self.items(items))


def default_name(remove: list[str] | tuple[str, ...]) -> str:
    """``no-<first part>`` as a name: ``## Severity rules`` -> ``no-severity-rules``."""
    first = str(remove[0]) if remove else "part"
    slug = re.sub(r"[^a-z0-9]+", "-", first.lower()).strip("-") or "part"
    return f"no-{slug}"


def valid_name(name: str) -> bool:
    return bool(_NAME.match(name))


def is_heading(item: str) -> bool:
    return item.lstrip().startswith("#")


def _parse_heading(line: str) -> tuple[int, str] | None:
    found = _HEADING.match(line.rstrip("\r\n"))
    return (len(found.group(1)), found.group(2).strip()) if found else None


def remove_section(text: str, heading: str) -> str | None:
    """``text`` without the section under ``heading`` (level and title as written, e.g.
    ``## Severity rules``), or None when no such heading exists outside fenced code."""
    wanted = _parse_heading(heading.strip())
    if wanted is None:
        return None
    lines = text.splitlines(keepends=True)
    fence: str | None = None
    start = end = None
    body = _body_start(lines)
    for i, line in enumerate(lines):
        if i < body:
            continue
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        parsed = _parse_heading(line)
        if parsed is None:
            continue
        if start is None and parsed == wanted:
            start = i
        elif start is not None and parsed[0] <= wanted[0]:
            end = i
            break
    if start is None:
        return None
    return "".join(lines[:start] + lines[end if end is not None else len(lines):])


def _body_start(lines: list[str]) -> int:
    """The first line after the frontmatter: a '# comment' there is YAML, not a heading."""
    if not lines or lines[0].lstrip("\ufeff").rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return i + 1
    return 0


def resolve(ablation: Ablation, skill_path: Path, tree: list[Path]) -> tuple[AblatedSkill | None, list[str]]:
    """The ablation applied to one skill folder whose files (hashing.tree_files) are ``tree``;
    or None and one message per part that cannot be removed (a stale target is an error, never
    an arm that silently removes nothing)."""
    files = {p.relative_to(skill_path).as_posix() for p in tree}
    removed: set[str] = set()
    problems: list[str] = []
    texts: dict[str, str] = {}

    def text_of(rel: str) -> str | None:
        if rel not in texts:
            try:
                # bytes, then decode: line endings stay as the author wrote them
                texts[rel] = (skill_path / rel).read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(f"cannot read {rel}: {exc}")
                return None
        return texts[rel]

    for item in ablation.remove:
        if is_heading(item):
            skill_md = text_of("SKILL.md")
            if skill_md is None:
                continue
            cut = remove_section(skill_md, item)
            if cut is None:
                problems.append(f"heading '{item.strip()}' not found in SKILL.md (outside code blocks); "
                                "write it as it appears there, with its '#' marks")
                continue
            texts["SKILL.md"] = cut
            continue
        rel = PurePosixPath(item.strip().rstrip("/"))
        if rel.is_absolute() or ".." in rel.parts or not rel.parts or str(rel) in (".", ""):
            problems.append(f"'{item}' must be a path inside the skill folder (no absolute path, no '..')")
            continue
        name = rel.as_posix()
        if name == "SKILL.md":
            problems.append("removing SKILL.md leaves no skill; remove one of its sections by heading "
                            "instead")
            continue
        matched = {f for f in files if f == name or f.startswith(name + "/")}
        if not matched:
            problems.append(f"'{name}' is not a file or folder of the skill (evals/ is never part of it)")
            continue
        removed |= matched
    for label, diff in ablation.patches:
        _patch(label, diff, files - removed, text_of, texts, problems)
    if problems:
        return None, problems
    rewritten = tuple(sorted((rel, text.encode("utf-8")) for rel, text in texts.items()))
    return AblatedSkill(ablation.name, ablation.remove + tuple(label for label, _ in ablation.patches),
                        frozenset(removed), rewritten, ablation.cases), []


def _patch(label: str, diff: str, files: set[str], text_of: Any, texts: dict[str, str],
           problems: list[str]) -> None:
    by_file, why = patch.parse(diff)
    problems += [f"patch {label}: {m}" for m in why]
    for rel, hunks in by_file.items():
        if rel not in files:
            problems.append(f"patch {label} edits '{rel}', which is not a file of the skill")
            continue
        text = text_of(rel)
        if text is None:
            continue
        patched, error = patch.apply(text, hunks)
        if patched is None:
            problems.append(f"patch {label}, {rel}: {error}")
            continue
        texts[rel] = patched
