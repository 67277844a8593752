"""An agent CLI found as the user's shell finds it: on their PATH, every link followed, and for
a script the interpreter its ``#!`` line names. The sandbox hides the user's home, where the
native installers put CLIs (``~/.local/bin/claude`` links to
``~/.local/share/claude/versions/<v>``, a single executable) and where npm prefixes and nvm keep
theirs; ``mounts`` lists exactly the paths such a CLI needs read-only, so it starts in the
sandbox while the rest of the home stays hidden (run/sandbox.py widens a path inside
``node_modules`` to that tree, for an npm CLI's launcher)."""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

_MAX_LINKS = 40


@dataclass(frozen=True)
class Located:
    """``exe``: the executable as found (a PATH entry or the path given), None when not found;
    ``links``: each symlink followed from it; ``target``: the file that runs; ``interpreter``: a
    script's interpreter as PATH finds it; ``looked_in``: where the executable was looked for."""

    asked: str
    exe: Path | None
    links: tuple[Path, ...] = ()
    target: Path | None = None
    interpreter: Path | None = None
    looked_in: tuple[str, ...] = ()


def _search_path(path: str | None) -> str:
    return path if path is not None else os.environ.get("PATH", os.defpath)


def _links(exe: Path) -> tuple[Path, ...]:
    """Every symlink on the way from ``exe`` to the file it names, ``exe`` first when a link."""
    hops: list[Path] = []
    here = exe
    for _ in range(_MAX_LINKS):
        if not here.is_symlink():
            break
        hops.append(here)
        here = (here.parent / os.readlink(here)).absolute()
    return tuple(hops)


def _interpreter(target: Path, path: str) -> Path | None:
    """The interpreter of a ``#!`` script (``#!/usr/bin/env node`` -> node on PATH)."""
    try:
        with open(target, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = shlex.split(head[2:].split(b"\n", 1)[0].decode("utf-8", "replace"))
    if not words:
        return None
    if Path(words[0]).name == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        found = shutil.which(names[0], path=path) if names else None
        return Path(found) if found else None
    return Path(words[0]) if os.path.isabs(words[0]) else None


def locate(command: str, path: str | None = None) -> Located:
    """``command`` (a name looked up on ``path``, the user's PATH by default, or a path) with
    its links and interpreter."""
    search = _search_path(path)
    if os.sep in command:
        given = Path(command).expanduser().absolute()
        looked = (str(given),)
        if not (given.is_file() and os.access(given, os.X_OK)):
            return Located(command, None, looked_in=looked)
        exe = given
    else:
        looked = tuple(d for d in search.split(os.pathsep) if d)
        found = shutil.which(command, path=search)
        if found is None:
            return Located(command, None, looked_in=looked)
        exe = Path(found).absolute()
    target = exe.resolve()
    return Located(command, exe, _links(exe), target, _interpreter(target, search), looked)


def mounts(located: Located) -> list[Path]:
    """What the CLI needs to read: the executable as found, each link on the way, the file that
    runs, and a script's interpreter (with its own links). Nothing beside them."""
    if located.exe is None or located.target is None:
        return []
    out = [located.exe, *located.links, located.target]
    if located.interpreter is not None:
        out += [located.interpreter, *_links(located.interpreter), located.interpreter.resolve()]
    return list(dict.fromkeys(out))
