"""A suite's ``adapter:`` → a protocol-v1 process to start: argv, environment allow-list, and the
identity that joins every run key."""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from skill_eval.errors import InvalidInput, Problem, did_you_mean
from skill_eval.model.agents.configs import DEFAULT_ADAPTER
from skill_eval.model.builtins import AdapterDescriptor, adapter_names, find
from skill_eval.model.builtins.clidesc import AgentCli
from skill_eval.model.config import depends_files
from skill_eval.model.plugins.environment import preset_names
from skill_eval.model.runsettings import SHELL_TOOLS, tool_name
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.run import sandbox
from skill_eval.run.agentcli.locate import locate, mounts

if TYPE_CHECKING:
    from skill_eval.model.config import Suite


# Package root on PYTHONPATH so builtins start even from a source checkout that is not installed.
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


def _problem(suite: Suite, message: str) -> InvalidInput:
    return InvalidInput([Problem(suite.display(suite.path), f"adapter: {message}")])


def _descriptor(suite: Suite, name: str) -> AdapterDescriptor:
    found = find(name)
    if found is None:
        names = adapter_names()
        raise _problem(suite, f"unknown builtin '{name}'{did_you_mean(name, names)} "
                              f"(builtins: {', '.join(names)}; or use 'command: [...]')")
    return found


def _load(suite: Suite, name: str) -> ModuleType:
    try:
        return importlib.import_module(_descriptor(suite, name).module)
    except ImportError as exc:
        raise _problem(suite, f"builtin '{name}' is not available in this installation "
                              f"({exc}); use another builtin or a 'command'") from None


def _python_path(module: ModuleType) -> str:
    """PYTHONPATH for the builtin's process: skill_eval's root, and the folder a builtin from
    outside skill_eval is imported from (a user's own, or a test's toy)."""
    if module.__name__.startswith("skill_eval.") or not module.__file__:
        return _PACKAGE_PARENT
    root = Path(module.__file__).resolve().parents[module.__name__.count(".")]
    return os.pathsep.join((_PACKAGE_PARENT, str(root)))


def option_args(options: dict[str, Any]) -> list[str]:
    """Default mapping of ``adapter.options`` to flags, in sorted order for a stable key."""
    args: list[str] = []
    for key in sorted(options):
        flag = "--" + key.replace("_", "-")
        value = options[key]
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, list | tuple):
            for item in value:
                args += [flag, str(item)]
        else:
            args += [flag, str(value)]
    return args


def depends_identity(suite: Suite) -> dict[str, str]:
    """{path relative to the suite's folder: sha256} of every file ``adapter.depends`` matches."""
    out = {}
    for path in depends_files(suite):
        with open(path, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        out[Path(os.path.relpath(path, suite.root)).as_posix()] = digest
    return out


def resolve_adapter(suite: Suite) -> ResolvedAdapter:
    """The suite's adapter as argv + identity (its part of every run key). ``adapter.depends``
    adds the content of the files it names; without it the identity is what it always was."""
    grants = suite.case_runs.allow_tools
    if suite.adapter.sandbox is None and any(tool_name(t) in SHELL_TOOLS for t in grants):
        # A shell grant runs the agent sandboxed, as plugin eval does (FORMAT.md §7.3).
        suite = replace(suite, adapter=replace(suite.adapter, sandbox="bwrap"))
    resolved = replace(_sandboxed(suite, _resolve_adapter(suite)), allow_tools=grants,
                       scaffold=suite.case_runs.scaffold)
    if not suite.adapter.depends:
        return resolved
    try:
        depends = depends_identity(suite)
    except OSError as exc:
        raise _problem(suite, f"depends: {exc.filename} cannot be read ({exc.strerror}); "
                              "fix its permissions or the glob") from None
    return replace(resolved, identity={**resolved.identity, "depends": depends})


def resolve_agents(suite: Suite) -> dict[str, ResolvedAdapter]:
    """name -> adapter for each of a suite's ``agents:`` (empty with one ``adapter:``). Each is
    resolved as that suite's only adapter would be: its options, env and sandbox its own."""
    out = {}
    for agent in suite.agents:
        try:
            out[agent.name] = resolve_adapter(replace(suite, adapter=agent.adapter, agents=()))
        except InvalidInput as exc:  # say which agent
            raise InvalidInput([Problem(p.file, p.message.replace("adapter:", f"agents ({agent.name}):", 1),
                                        p.line, p.column) for p in exc.problems]) from None
    return out


def _sandboxed(suite: Suite, resolved: ResolvedAdapter) -> ResolvedAdapter:
    """With ``adapter.sandbox``: the sandbox joins the identity (so the run key), and the
    paths the adapter must read inside it are listed. Without it, nothing changes (same key)."""
    cfg = suite.adapter
    if cfg.sandbox is None:
        return resolved
    extra = [*depends_files(suite), *(v for v in cfg.options.values() if isinstance(v, str)),
             *cli_mounts(suite)]
    readable = tuple(str(p) for p in sandbox.needed_paths(resolved.argv, extra))
    return replace(resolved, sandbox=cfg.sandbox, network=cfg.network, readable=readable,
                   identity={**resolved.identity, "sandbox": sandbox.identity(cfg.sandbox, cfg.network)})


def agent_cli(suite: Suite) -> AgentCli | None:
    """The ``AgentCli`` of the suite's builtin (its descriptor's ``cli``), None for a builtin
    that drives no CLI and for a command adapter."""
    cfg = suite.adapter
    if cfg.command:
        return None
    return _descriptor(suite, cfg.builtin or DEFAULT_ADAPTER).cli


def cli_command(suite: Suite) -> str | None:
    """The agent CLI the adapter will start, as the suite names it (its ``*_bin`` option, else
    the CLI's own name, looked up on PATH)."""
    desc = agent_cli(suite)
    if desc is None:
        return None
    return str(suite.adapter.options.get(desc.bin_option) or desc.binary)


def cli_mounts(suite: Suite) -> list[Path]:
    """What the sandbox mounts for the agent CLI, found on the user's PATH as their shell finds
    it (a native installer's link under ~/.local/bin, an npm or nvm tree under HOME)."""
    command = cli_command(suite)
    return mounts(locate(command)) if command else []


def _resolve_adapter(suite: Suite) -> ResolvedAdapter:
    cfg = suite.adapter
    if cfg.command:
        from skill_eval.run.adapters.command import resolve_command

        return resolve_command(suite)
    name = cfg.builtin or DEFAULT_ADAPTER
    module = _load(suite, name)
    build = getattr(module, "build_args", None)
    args = list(build(dict(cfg.options), suite)) if build else option_args(cfg.options)
    identity: dict[str, Any] = {
        "builtin": name.replace("-", "_"),
        "builtin_version": str(getattr(module, "BUILTIN_VERSION", "1")),
        "options": cfg.options,
        "version": cfg.version,
    }
    describe = getattr(module, "identity_extra", None)
    if describe:
        identity.update(describe(dict(cfg.options), suite))
    env_names = tuple(dict.fromkeys((*getattr(module, "ENV", ()), *cfg.env,
                                     *preset_names(cfg.env_preset, os.environ))))
    return ResolvedAdapter(
        name=name,
        argv=(sys.executable, "-m", module.__name__, *args),
        env_names=env_names,
        identity=identity,
        extra_env={"PYTHONPATH": _python_path(module)},
    )
