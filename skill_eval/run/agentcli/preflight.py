"""Preflight: what would make every run fail, found before the first paid call (``validate`` and
the start of ``run``; docs/adapters.md, "Preflight"). Each finding is one line naming what to
do: the agent CLI is not on the PATH (or not where ``*_bin`` says), answers ``--version`` with
a version older than the oldest supported, does not start inside the sandbox, or has no
credentials in the environment its adapter passes; a ``--scaffold`` run's script is missing; the
judge could not start for one of the same reasons.

Cheap by design: ``--version`` is asked once per executable while its file is unchanged
(run/adapters/shared/protocol_io.py ``agent_version``), and so is the sandboxed start. Builtins
that drive no CLI (demo, replay, openai) and ``command`` adapters have nothing to check here.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_eval.errors import InvalidInput, Problem
from skill_eval.model.builtins.clidesc import AgentCli, older_than
from skill_eval.model.config import AdapterConfig, Suite
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.run import sandbox
from skill_eval.run.adapters.shared.cli_version import cli_version
from skill_eval.run.adapters.shared.protocol_io import one_line
from skill_eval.run.agentcli.locate import Located, locate
from skill_eval.run.resolve import agent_cli, cli_command, resolve_agents

if TYPE_CHECKING:
    from skill_eval.model.project import Project

_SANDBOX_START_SECONDS = 60


def preflight(project: Project, adapter: ResolvedAdapter, *, scaffold_warns: bool = False) -> list[Problem]:
    """Every reason the suite's runs cannot start, one Problem each (errors). ``scaffold_warns``
    (``validate``, which does not know whether a run will pass ``--scaffold``): a missing
    scaffold script is a warning unless the suite itself runs scaffolds."""
    suite = project.suite
    out = cli_problems(suite, adapter, "adapter") if not suite.agents else []
    for agent, resolved in resolve_agents(suite).items():  # a suite with agents: each its own
        alone = dataclasses.replace(suite, adapter=next(a.adapter for a in suite.agents if a.name == agent),
                                    agents=())
        out += cli_problems(alone, resolved, f"agents ({agent})")
    out += scaffold_problems(project, warn=scaffold_warns and not suite.case_runs.scaffold)
    out += judge_problems(suite)
    return out


def refuse_unstartable(project: Project, adapter: ResolvedAdapter, *, runs: bool, grades: bool) -> None:
    """``run``'s preflight: InvalidInput (exit 2, nothing started) with every error, when there
    are runs to start (everything) or only grades to make (the judge)."""
    problems = preflight(project, adapter) if runs else judge_problems(project.suite) if grades else []
    errors = [p for p in problems if p.is_error]
    if errors:
        raise InvalidInput(errors)


def cli_problems(suite: Suite, resolved: ResolvedAdapter, part: str, sandboxed: bool = True) -> list[Problem]:
    """The agent CLI of ``suite.adapter`` (``part`` names the block in messages: adapter, judge)."""
    desc: AgentCli | None = agent_cli(suite)
    command = cli_command(suite)
    if desc is None or command is None:
        return []
    file = suite.display(suite.path)
    found = locate(command)
    if found.exe is None:
        return [Problem(file, _not_found(desc, found, part))]
    version = cli_version(str(found.exe), desc)
    if version.startswith("unavailable"):
        why = version.removeprefix("unavailable ")
        return [Problem(file, f"{part}: {found.exe} --version failed {why}: "
                              f"{desc.product} cannot start; reinstall it ({desc.install}) or set "
                              f"{part}.options.{desc.bin_option} to a working executable")]
    out = []
    if older_than(version, desc.oldest):
        out.append(Problem(file, f"{part}: {desc.product} {version} at {found.exe} is older than the oldest "
                                 f"supported, {desc.oldest}; upgrade it ({desc.upgrade})"))
    elif sandboxed and resolved.sandbox is not None:
        why = _sandbox_start(found, resolved)
        if why is not None:
            out.append(Problem(file, f"{part}: {found.exe} starts but not inside the sandbox ({why}); set "
                                     f"{part}.options.{desc.bin_option} to the executable that runs "
                                     f"({found.target}), or see docs/sandbox.md"))
    missing = credentials_problem(desc, suite.adapter.options, resolved.env_names, part)
    if missing:
        out.append(Problem(file, missing))
    return out


def _not_found(desc: AgentCli, found: Located, part: str) -> str:
    if os.sep in found.asked:
        return (f"{part}: {part}.options.{desc.bin_option} {found.asked} is not an executable file; fix "
                f"the path, or install {desc.product} ({desc.install})")
    where = ", ".join(found.looked_in) or "an empty PATH"
    return (f"{part}: {desc.product} CLI '{found.asked}' not found on PATH (looked in {where}); install it "
            f"({desc.install}) or set {part}.options.{desc.bin_option} to its path")


def credentials_problem(desc: AgentCli, options: dict[str, Any], passed: tuple[str, ...], part: str
                        ) -> str | None:
    """None when the CLI will find credentials in a run: a key set in the environment the
    adapter passes (its allow-list ``passed``), a provider switch, or a login it reads."""
    named = options.get(desc.key_option) if desc.key_option else None
    keys = tuple(dict.fromkeys([*([str(named)] if named else []), *desc.keys]))

    def given(name: str) -> bool:
        return name in passed and bool(os.environ.get(name, "").strip())

    if any(given(k) for k in keys):
        return None
    if any(given(p) and os.environ[p].strip().lower() not in ("0", "false", "no") for p in desc.providers):
        return None
    if any(Path(os.path.expanduser(f)).exists() for f in desc.login_state):
        return None
    unpassed = [k for k in keys if os.environ.get(k, "").strip() and k not in passed]
    if unpassed:
        fix = f"{unpassed[0]} is set but not passed: add it to {part}.env"
    else:
        how = f"the {part} passes it" if keys[0] in passed else f"pass it with {part}.env"
        fix = f"set {keys[0]} ({how})"
    note = f"; {desc.login_note}" if desc.login_note else ""
    unset = f"{keys[0]} is not set" if len(keys) == 1 else f"none of {', '.join(keys)} is set"
    return (f"{part}: no credentials for {desc.product}: {unset} in the environment skill-eval passes it; "
            f"{fix}{note}")


def scaffold_problems(project: Project, warn: bool = False) -> list[Problem]:
    """A scaffold script a ``--scaffold`` run needs that is not in its case folder."""
    if not project.suite.case_runs.scaffold and not warn:
        return []
    out = []
    for se in project.skills:
        for case in se.cases:
            script = case.settings.scaffold if case.settings is not None else None
            if script is None or script.text is not None:
                continue
            out.append(Problem(case.source or project.suite.display(project.suite.path),
                               f'case "{case.id}": context.scaffold_script "{script.rel}" does not exist in '
                               "the case folder; a --scaffold run needs it: add it, or run without "
                               "--scaffold",
                               case.line, severity="warning" if warn else "error"))
    return out


def judge_problems(suite: Suite) -> list[Problem]:
    """The judge's own CLI, version and credentials (it runs outside the sandbox), or why it
    cannot be resolved (a missing judge script)."""
    cfg = suite.judge
    if cfg is None:
        return []
    from skill_eval.model.builtins import judge_builtin
    from skill_eval.run.judge_process import resolve_judge

    try:
        resolved = resolve_judge(suite)
    except InvalidInput as exc:
        return list(exc.problems)
    as_adapter = AdapterConfig(builtin=judge_builtin(cfg.builtin) if cfg.builtin else None,
                               command=cfg.command, env=cfg.env, options=dict(cfg.options))
    return cli_problems(dataclasses.replace(suite, adapter=as_adapter), resolved, "judge", sandboxed=False)


def _sandbox_start(found: Located, resolved: ResolvedAdapter) -> str | None:
    """None when ``<cli> --version`` runs inside the suite's sandbox with what it mounts for it;
    else why not. Skipped (None) where bwrap itself cannot run: `run` refuses that on its own."""
    try:
        bwrap = sandbox.require()
    except sandbox.SandboxUnavailable:
        return None
    exe = found.exe
    assert exe is not None
    st = exe.stat()
    return _started(str(exe), st.st_ino, st.st_size, st.st_mtime_ns, resolved.network, resolved.readable,
                    bwrap)


@functools.lru_cache(maxsize=32)
def _started(exe: str, inode: int, size: int, mtime_ns: int, network: str, readable: tuple[str, ...],
             bwrap: str) -> str | None:
    with tempfile.TemporaryDirectory(prefix="skill-eval-preflight-") as tmp:
        ws = Path(tmp)
        (ws / "home").mkdir()
        argv = sandbox.wrap([exe, "--version"], ws, network, [Path(p) for p in readable], (), exe=bwrap)
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(ws / "home"), "LANG": "C.UTF-8"}
        try:
            done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ws,
                                  timeout=_SANDBOX_START_SECONDS, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return one_line(str(exc), 200)
    if done.returncode == 0 and done.stdout.strip():
        return None
    lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
    return one_line(lines[-1], 200) if lines else f"exit status {done.returncode}"
