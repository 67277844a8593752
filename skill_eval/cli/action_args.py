"""``python -m skill_eval.cli.action_args``: the GitHub Action's ``args`` input (in ``$ARGS``) as
the list of arguments it names, NUL-separated on stdout, for ``skill-eval run``.

The input is a list, never shell words: one argument a line (a multi-line input), or a JSON
array of strings. Nothing is split on spaces or globbed against the checkout, so
``Bash(npm test *)`` arrives as one argument. A line that starts with ``-`` and holds a space
before any ``=`` is refused: it is almost always an option and its value written on one line
(``--max-cost 5``), which would reach ``run`` as one unknown argument.
"""

from __future__ import annotations

import json
import os
import sys

_HOW = "one argument a line, or a JSON array of strings"


class BadArgs(ValueError):
    """The input cannot be read as a list of arguments (one line, for the job's log)."""


def parse(text: str) -> list[str]:
    """The arguments ``text`` names."""
    if text.strip().startswith("["):
        try:
            found = json.loads(text)
        except ValueError as exc:
            raise BadArgs(f"args: not a JSON array ({exc}); write {_HOW}") from None
        if not isinstance(found, list) or not all(isinstance(a, str) for a in found):
            raise BadArgs(f"args: the JSON array must hold strings only; write {_HOW}")
        if any("\0" in a for a in found):
            raise BadArgs("args: an argument holds a NUL character, which no command line can pass")
        return found
    out = []
    for line in text.splitlines():
        arg = line.strip()
        if not arg:
            continue
        if arg.startswith("-") and any(c.isspace() for c in arg.split("=", 1)[0]):
            option, value = arg.split(None, 1)
            raise BadArgs(f"args: {arg!r} is one line, so one argument; write {_HOW}: {option} on "
                          f"one line and {value} on the next, or {option}={value}")
        out.append(arg)
    return out


def main() -> int:
    try:
        args = parse(os.environ.get("ARGS", ""))
    except BadArgs as exc:
        print(f"skill-eval: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write("".join(a + "\0" for a in args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
