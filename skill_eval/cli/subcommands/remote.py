"""`skill-eval push`, `pull` and `gc --remote`: a suite's entries and the shared remote
(docs/remote.md); and the lines every command prints about the remote when it is done."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from skill_eval.cli.terminal import shown
from skill_eval.engine.engine import Engine
from skill_eval.engine.options import RunOptions
from skill_eval.engine.remote_sync import collect_remote, pull_suite, push_suite
from skill_eval.errors import InvalidInput
from skill_eval.model.project import Project
from skill_eval.store.redact import redact
from skill_eval.store.store import Store


class _Shown:
    """`pull: 1200/6000` on stderr: rewritten on a terminal, every tenth otherwise."""

    def __init__(self, verb: str) -> None:
        self.verb = verb
        self.tty = sys.stderr.isatty()
        self.last = -1

    def __call__(self, done: int, total: int) -> None:
        tenth = done * 10 // max(total, 1)
        if self.tty:
            print(f"\r{self.verb}: {done}/{total}", end="" if done < total else "\n", file=sys.stderr,
                  flush=True)
        elif tenth != self.last or done == total:
            self.last = tenth
            print(f"{self.verb}: {done}/{total}", file=sys.stderr, flush=True)


def remote_notes(engine: Engine) -> None:
    """When the pushes in flight are done: what the remote saved (stdout), its warning (once) and
    each entry it refused (once), on stderr."""
    tier = engine.remote
    if tier is None:
        return
    tier.drain()
    served = served_line(engine)
    if served:
        print(served, flush=True)
    # The store's messages quote the remote's errors: redacted, and escaped for the terminal.
    for warning in tier.warnings:
        print(f"skill-eval: warning: {shown(redact(warning))}", file=sys.stderr)
    for refused in tier.tally.refused:
        print(f"skill-eval: note: the remote's {shown(redact(refused))}; refused, made here instead "
              "(the remote entry is left as it is)", file=sys.stderr)


def served_line(engine: Engine) -> str | None:
    """What the remote saved this run, for the run's summary."""
    tier = engine.remote
    if tier is None or not tier.tally.served:
        return None
    money = f", ${tier.tally.saved_usd:.2f} saved" if tier.tally.saved_usd else ""
    return f"Remote: {tier.tally.served} runs served by {tier.config.url} (no adapter call{money})"


def _engine(project: Project, remote: str | None) -> Engine:
    if project.errors:
        raise InvalidInput(project.problems)
    return Engine(project, Store(project.suite.store), RunOptions(remote=remote))


def push(project: Project, remote: str | None) -> int:
    engine = _engine(project, remote)
    started = time.monotonic()
    done = push_suite(engine, _Shown("push"))
    remote_notes(engine)
    engine.cache.save()
    print(f"push: {done.runs} runs and {done.grades} grades/verdicts pushed, {done.there} already in "
          f"{engine.remote.config.url if engine.remote else ''} ({time.monotonic() - started:.1f}s)")
    return 0


def pull(project: Project, remote: str | None) -> int:
    engine = _engine(project, remote)
    started = time.monotonic()
    with engine.store.lock(wait=True):
        done = pull_suite(engine, _Shown("pull"))
    remote_notes(engine)
    engine.cache.save()
    missing = done.total - done.runs
    print(f"pull: {done.runs} runs and {done.grades} grades fetched, {done.there} already here"
          + (f", {missing} not in the remote" if missing else "") + f" ({time.monotonic() - started:.1f}s)")
    return 0


def gc_remote(suites: list[Path], remote: str | None, yes: bool) -> int:
    removed, kept = collect_remote(suites, remote, delete=yes)
    verb = "removed" if yes else "would remove (a dry run: add --yes to delete)"
    print(f"gc --remote: {verb} {removed} remote entries, kept {kept}")
    return 0
