"""``adapter.command`` checked where the suite is read: a script that is not there is the suite's
problem (its file, its line, the path as written), not a run error in a temporary workspace."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem
from skill_eval.intake.yamlpos import load_yaml

# argv[0] names an interpreter: the logic is in the script it is given.
INTERPRETER = re.compile(r"(python|pypy|bash|sh|zsh|dash|node|deno|bun|ruby|perl|php|Rscript)[0-9.]*(\.exe)?")
SCRIPT_SUFFIX = re.compile(r"\.(py|sh|bash|zsh|js|mjs|cjs|ts|rb|pl|php|r)$", re.IGNORECASE)
_TAKES_VALUE = ("-m", "-c", "-e", "--eval", "-r", "--require")


def _script_arg(command: list[Any]) -> tuple[int, str] | None:
    """(index, text) of the script an interpreter is given, or None (``-m module``, ``-c code``)."""
    args = command[1:]
    for i, arg in enumerate(args, start=1):
        if not isinstance(arg, str):
            return None
        if command[i - 1] in _TAKES_VALUE:
            return None
        if not arg.startswith("-"):
            return i, arg
    return None


def command_problems(raw: dict[str, Any], root: Path, file: str, where: Any) -> list[Problem]:
    agents = raw.get("agents") if isinstance(raw.get("agents"), list) else []
    entries = [(("adapter",), raw.get("adapter")), *((("agents", i), a) for i, a in enumerate(agents))]
    return [p for at, entry in entries for p in _entry_problems(entry, at, root, file, where)]


def _entry_problems(adapter: Any, at: tuple[Any, ...], root: Path, file: str, where: Any) -> list[Problem]:
    command = adapter.get("command") if isinstance(adapter, dict) else None
    if not isinstance(command, list) or not command or not isinstance(command[0], str):
        return []  # absent, or the schema check has reported it
    label = ".".join(str(p) for p in at)
    first = command[0]
    if ("/" in first or first.startswith(".")) and not (root / first).expanduser().exists():
        line, col = where((*at, "command", 0))
        return [Problem(file, f"{label}.command: '{first}' not found (looked for {root / first}); fix the "
                              "path (relative paths start from the suite's folder)", line, col)]
    if not INTERPRETER.fullmatch(Path(first).name):
        return []
    found = _script_arg(command)
    if found is None:
        return []
    i, script = found
    if not (SCRIPT_SUFFIX.search(script) or "/" in script) or (root / script).expanduser().is_file():
        return []
    line, col = where((*at, "command", i))
    return [Problem(file, f"{label}.command: script '{script}' not found (looked for {root / script}); fix "
                          "the path (relative paths start from the suite's folder)", line, col)]


def suite_command_problems(suite_path: Path, display: str) -> list[Problem]:
    """``command_problems`` of the suite file as written (positions and paths as the user typed
    them); called where the adapter is resolved, so ``validate`` and ``run`` say the same line."""
    try:
        located = load_yaml(suite_path, display)
    except (InvalidInput, OSError):
        return []  # the suite's reader has said what is wrong with the file
    if not isinstance(located.data, dict):
        return []
    return command_problems(located.data, suite_path.resolve().parent, display, located.where)
