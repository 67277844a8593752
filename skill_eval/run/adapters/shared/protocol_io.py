"""Protocol plumbing shared by the builtin adapters (claude_code, codex, openai_compat): reading
a request, answering, one-line failures, and mapping a suite's ``adapter.options`` to flags.

Adapters run as ``python -m skill_eval.run.adapters.<module>``: keep this module's imports light.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

PROTOCOL_VERSION = 1


class AdapterFailure(Exception):
    """A failure the adapter reports as one line on stderr with exit status 1."""


class AdapterFatal(AdapterFailure):
    """A failure every run of this adapter would share (bad or missing credentials): exit
    status FATAL_EXIT, so the engine stops the suite's remaining runs of the adapter."""


# Protocol v1: an adapter exiting with this status says "every run would fail the same way"
# (in --judge mode: every judge call; see run/judge_process.py).
FATAL_EXIT = 77  # EX_NOPERM of sysexits.h


def fail(message: str) -> NoReturn:
    raise AdapterFailure(message)


def one_line(text: str, limit: int = 500) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_request(stream: Any = None) -> dict[str, Any]:
    """Read and minimally check a JSON request object from stdin."""
    stream = stream if stream is not None else sys.stdin
    raw = stream.read()
    try:
        request = json.loads(raw)
    except json.JSONDecodeError as exc:
        fail(f"request on stdin is not valid JSON: {exc}")
    if not isinstance(request, dict):
        fail("request on stdin must be a JSON object")
    version = request.get("protocol_version")
    if version != PROTOCOL_VERSION:
        fail(f"unsupported protocol_version {version!r} (this adapter speaks {PROTOCOL_VERSION})")
    return request


def write_json(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False))
    sys.stdout.write("\n")
    sys.stdout.flush()


def run_entry(fn: Callable[[], int | None]) -> int:
    """Run an adapter entry point: an AdapterFailure becomes one stderr line and exit 1."""
    try:
        return fn() or 0
    except AdapterFailure as exc:
        sys.stderr.write(one_line(str(exc), 2000) + "\n")
        return FATAL_EXIT if isinstance(exc, AdapterFatal) else 1
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130


# --------------------------------------------------------------------------- suite options → argv


def options_to_argv(
    options: dict[str, Any], flags: dict[str, str], suite: Any = None, builtin: str = ""
) -> list[str]:
    """Map a suite's ``adapter.options`` to this adapter's flags, in a stable order.

    ``flags`` maps option key → flag. Lists repeat the flag; ``True`` gives the bare flag (a
    ``"!flag"`` entry means: give this flag when the option is ``False``); values go as
    ``--flag=value`` so a value starting with "-" (an extra CLI argument) is not read as a flag.
    Unknown keys are an ``InvalidInput`` naming the suite file.
    """
    from skill_eval.errors import InvalidInput, Problem, did_you_mean

    unknown = sorted(k for k in options if k not in flags)
    if unknown:
        where = str(getattr(suite, "path", "suite"))
        if suite is not None and hasattr(suite, "display"):
            where = suite.display(suite.path)
        raise InvalidInput(
            [
                Problem(
                    where,
                    f"adapter: unknown option '{k}' for builtin {builtin}{did_you_mean(k, flags)} "
                    f"(options: {', '.join(sorted(flags))})",
                )
                for k in unknown
            ]
        )
    argv: list[str] = []
    for key in sorted(options):
        flag, value = flags[key], options[key]
        if flag.startswith("!"):
            if value is False:
                argv.append(flag[1:])
            continue
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, list | tuple):
            argv += [f"{flag}={item}" for item in value]
        else:
            argv.append(f"{flag}={value}")
    return argv


def agent_version(binary: str, timeout: float = 30.0) -> str:
    """``<binary> --version`` (first line), or a marker saying why it is unknown. Asked once per
    executable as long as its file is unchanged (its stat), however many suites, judges and
    preflights ask: an upgrade in place changes the stat and is asked again."""
    import os
    import shutil

    exe = shutil.which(binary)
    if not exe:
        return f"unavailable ({binary} not found)"
    try:
        st = os.stat(exe)  # the file that runs, links followed
    except OSError as exc:
        return f"unavailable ({one_line(str(exc), 100)})"
    return _version_of(exe, st.st_ino, st.st_size, st.st_mtime_ns, timeout)


@functools.lru_cache(maxsize=64)
def _version_of(exe: str, inode: int, size: int, mtime_ns: int, timeout: float) -> str:
    import subprocess

    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable ({one_line(str(exc), 100)})"
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return f"unavailable (exit {done.returncode})"
    return lines[0].strip()
