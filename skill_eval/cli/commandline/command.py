"""A command of ``skill-eval`` as one descriptor, and the table of the builtin ones.

The parser, ``main.command_in``, the dispatch, ``skill-eval --help`` and the README check in
tests/test_frictions.py read ``COMMANDS`` and nothing else. The builtins are a table here, not
descriptors beside their code: ``skill-eval --help`` must list every command without importing
what runs them (cli/commands.py and cli/subcommands/ pull in the model, the engine, yaml), so
each one's arguments and run are ``Lazy`` references, imported when that command is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from skill_eval.registry import Registry

if TYPE_CHECKING:
    import argparse

# NamedTuples rather than the frozen dataclasses descriptors elsewhere are: `skill-eval --help`
# reads this table, and importing dataclasses (inspect, ast, dis, tokenize) would be a fifth of
# its start-up. They are as immutable, and typed the same.


class Lazy(NamedTuple):
    """``module:function``, imported at its first call."""

    ref: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        module, _, name = self.ref.partition(":")
        return getattr(importlib.import_module(module), name)(*args, **kwargs)


class Command(NamedTuple):
    name: str
    help: str  # its line in `skill-eval --help`
    arguments: Callable[[argparse.ArgumentParser], None]  # adds its options to its own parser
    run: Callable[[argparse.Namespace], int]  # does it; the exit code
    description: str = ""  # the first words of its own --help (none: its help line)


COMMANDS: Registry[Command] = Registry("command")


def _builtin(name: str, help: str, arguments: str, description: str = "") -> Command:
    return Command(name, help, Lazy(f"skill_eval.cli.commandline.arguments:{arguments}"),
                   Lazy(f"skill_eval.cli.commands:cmd_{name}"), description)


_DOIT = "doit's own command line over the suite's tasks (run, list, info, forget, -n, ...)"

# The order is `skill-eval --help`'s.
for _command in (
    _builtin("init", "start here: a suite, a skill with drafted evals, an offline adapter (overwrites "
                     "nothing)", "args_init"),
    _builtin("validate", "check suite configs, skills, eval sets and fixtures (0 ok, 2 invalid)",
             "args_validate"),
    _builtin("run", "run what is out of date, grade it, rebuild the tables (0 pass, 1 fail, 2 error)",
             "args_run"),
    _builtin("status", "what would run, re-grade or rebuild, and why; runs nothing", "args_status"),
    _builtin("report", "rebuild tables and reports from the store, without running anything", "args_report"),
    _builtin("inspect", "one eval-set file or skill folder: detected format, counts, problems",
             "args_inspect"),
    _builtin("gc", "drop store entries that no listed suite references (--remote: the remote's, with --yes)",
             "args_gc"),
    _builtin("push", "push the suite's stored runs, grades and judge verdicts to its remote (docs/remote.md)",
             "args_sync"),
    _builtin("pull", "fetch the suite's runs and grades from its remote into the local store", "args_sync"),
    _builtin("export", "results (skill-creator, agentskills) or eval cases (plugin-eval) in another tool's "
                       "layout", "args_export"),
    _builtin("plan", "cases, runs and cost needed to detect a lift, from the stored spread of per-case "
                     "deltas", "args_plan"),
    _builtin("compare", "what an edit of a skill did: per case before/after, the paired change and its p",
             "args_compare"),
    _builtin("bless", "write <suite>.baseline.json from the stored results, for compare --against baseline",
             "args_bless"),
    _builtin("doit", _DOIT, "args_doit", _DOIT + "; paths are resolved from this folder. Exit codes are "
                                          "doit's (1: a task failed, e.g. the verdict is not a pass)."),
):
    COMMANDS.add(_command)
