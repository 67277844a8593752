"""Eval cases that give their answer away or cannot be read as written, found without a run:
warnings at `validate` and `inspect` (the same lines from both), one line per kind and eval set.

- A case whose ``files`` hold the skill's own files (SKILL.md, references/, ...: anything of the
  skill folder outside its evals): every arm gets its fixtures, so the without-skill arm reads
  the skill too and the lift shrinks toward zero.
- A prompt naming a fixture by the path it has in the skill folder: the agent finds it at
  ``inputs/<path>`` in its workspace, not there.
- A case whose prompt or fixtures already hold its answer: the expected output (in the prompt
  or a fixture), or the text a ``contains`` check requires (in the prompt; a fixture may hold
  it by design) (the leakage lint of adewale's skill-eval-harness).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from skill_eval.errors import Problem
from skill_eval.model.cases import Case, EvalSet

# Shorter answers (a status word, a number) turn up in prompts by chance.
MIN_LEAK_CHARS = 12
_MAX_READ = 1 << 20  # a fixture larger than this is not searched
_EVAL_FOLDERS = ("evals", "eval", "tests")


def case_leaks(es: EvalSet, skill_dir: Path | None, display: str = "") -> list[Problem]:
    """The warnings for one eval set; ``skill_dir`` is the skill folder it belongs to (None for
    a file outside one: the skill-files lint is skipped)."""
    tasks = [c for c in es.cases if c.kind == "task"]
    # (the lint, its verb for one case and for several, the rest of the line)
    lints: list[tuple[Callable[[Case], str | None], tuple[str, str], str]] = [
        (_misnamed_fixture, ("names", "name"), "{what} in the prompt by the path it has in the skill "
         "folder; the agent finds each file at inputs/<path> in its workspace: write that path"),
        (_answer_given, ("already holds", "already hold"), "{what} in the prompt or the files: the "
         "without-skill arm can copy the answer; remove it from what the agent is given"),
    ]
    if skill_dir is not None:
        lints.insert(0, (lambda c: _skill_files(c, skill_dir), ("lists", "list"),
                         "the skill's own {what} in files: every arm gets them, so the without-skill "
                         "arm reads the skill too; drop them from files"))
    out = []
    for lint, verbs, rest in lints:
        hits = [(c, found) for c in tasks if (found := lint(c))]
        if hits:
            out.append(_one_line(hits, verbs, rest, display))
    return out


def _one_line(hits: list[tuple[Case, str]], verbs: tuple[str, str], rest: str, display: str) -> Problem:
    first, what = hits[0]
    if len(hits) == 1:
        who = f"case '{first.id}' {verbs[0]}"
    else:
        ids = ", ".join(c.id for c, _ in hits[:3]) + (", ..." if len(hits) > 3 else "")
        who = f"{len(hits)} cases ({ids}) {verbs[1]}"
    return Problem(first.source or display, f"{who} {rest.format(what=what)}", first.line, severity="warning")


def _skill_files(case: Case, skill_dir: Path) -> str | None:
    root = skill_dir.resolve()
    own = []
    for f in case.fixtures:
        try:
            rel = f.source.resolve().relative_to(root)
        except ValueError:
            continue
        if rel.parts and rel.parts[0] not in _EVAL_FOLDERS:
            own.append(rel.as_posix())
    return "files (" + ", ".join(own[:3]) + (", ..." if len(own) > 3 else "") + ")" if own else None


def _misnamed_fixture(case: Case) -> str | None:
    for f in case.fixtures:
        if "/" in f.rel and _names(case.prompt, f.rel) and f"inputs/{f.rel}" not in case.prompt:
            return f"a fixture ('{f.rel}', at inputs/{f.rel})"
    return None


def _names(text: str, path: str) -> bool:
    return re.search(r"(?<![\w/.-])" + re.escape(path) + r"(?![\w/-])", text) is not None


def _answer_given(case: Case) -> str | None:
    """The expected output in the prompt or a fixture; a check's required text in the prompt
    (a fixture may hold it by design: notes that must keep the CVE id of the change log)."""
    prompt = _squash(case.prompt)
    expected = _squash(case.expected_output)
    if len(expected) >= MIN_LEAK_CHARS and (expected in prompt or any(
            expected in _squash(_read(f.source)) for f in case.fixtures)):
        return "its expected output"
    # Naming an input file is not its answer ("the notes name changes-2.4.0.txt").
    names = {_squash(n) for f in case.fixtures for n in (f.rel, f.rel.rsplit("/", 1)[-1], f"inputs/{f.rel}")}
    for check in case.checks:
        values = ([check.params.get("value")] if check.type == "contains"
                  else list(check.params.get("values") or []) if check.type == "contains_all" else [])
        for value in values:
            if (isinstance(value, str) and len(value.strip()) >= MIN_LEAK_CHARS and _squash(value) in prompt
                    and _squash(value) not in names):
                return f"the text check '{check.id}' requires"
    return None


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


def _read(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(_MAX_READ).decode("utf-8", "replace")
    except OSError:
        return ""
