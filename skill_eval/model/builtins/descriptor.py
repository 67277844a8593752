"""What the rest of skill-eval knows of one builtin adapter, and the registry of them.

A builtin adapter is two things in two layers. Its *program* is a module of
``skill_eval.run.adapters`` started as a protocol-v1 process (``python -m``): it belongs to the
run layer, which starts processes. What the others must know of it without starting it (the
names a suite may write, whether it can apply a case's run settings, load a plugin, judge, which
agent CLI the fast path must watch, what ``init`` writes) is asked by ``validate`` in the model
layer, by the engine's fast path and by the CLI's argument parser, none of which may import the
run layer's adapters. So the registry entry is this descriptor, declared in the model layer, and
it names its program by module; the run layer imports that module only to start a run.

Names are matched with ``-`` and ``_`` alike (``claude_code`` is ``claude-code``).
"""

from __future__ import annotations

from dataclasses import dataclass

from skill_eval.model.builtins.clidesc import AgentCli
from skill_eval.registry import Registry


@dataclass(frozen=True)
class AdapterDescriptor:
    """One builtin adapter.

    ``module``: the dotted module its process runs with ``python -m`` (a module outside
    skill_eval works too: its folder joins the process's PYTHONPATH). ``cli``: the agent CLI it
    drives, when it drives one; that CLI's version is in the run key, so the fast path watches its
    executable (``cli.binary``, or the path in the ``cli.bin_option`` option), and preflight
    finds, version-checks and credential-checks it from this description alone.
    """

    name: str  # as users write it: "claude-code"
    module: str
    aliases: tuple[str, ...] = ()  # other spellings a suite may write: "openai_compat"
    cli: AgentCli | None = None
    applies_settings: bool = False  # applies a case's own run settings (claude plugin eval's)
    # Has tools of its own (a shell, file edits) that plugin eval's tool grants would remove.
    own_tools: bool = False
    loads_plugin: bool = False  # loads a Claude Code plugin whole (found by itself beside the skills)
    no_plugins: bool = False  # its agent has no Claude Code plugins: a suite's `plugin:` is refused
    judge: bool = False  # serves `judge: {builtin: NAME}`
    completion_judge: bool = False  # as a judge, answers a raw completion (an agent mock's turn)
    # The lines `init --adapter NAME` writes under `adapter:`; None: init does not offer it.
    init_block: str | None = None

    def spellings(self) -> tuple[str, ...]:
        """Every name a suite may write for it, hyphenated (the form messages show)."""
        return tuple(dict.fromkeys(n.replace("_", "-") for n in (self.name, *self.aliases)))


ADAPTERS: Registry[AdapterDescriptor] = Registry("builtin adapter")


def _key(name: str) -> str:
    return name.replace("-", "_")


def find(name: str | None) -> AdapterDescriptor | None:
    """The builtin adapter a suite calls ``name`` (any of its spellings), or None."""
    if not name:
        return None
    key = _key(name)
    return next((d for d in ADAPTERS if key in {_key(n) for n in (d.name, *d.aliases)}), None)


def adapter_module(name: str) -> str | None:
    """The dotted module of builtin adapter ``name``, or None when there is no such builtin."""
    found = find(name)
    return found.module if found else None


def adapter_names() -> list[str]:
    """Every spelling of every builtin, sorted (what an unknown name's message offers)."""
    return sorted({n for d in ADAPTERS for n in d.spellings()})


def judge_names() -> list[str]:
    """The builtins that can judge, by their own names."""
    return [d.name for d in ADAPTERS if d.judge]


def completion_judges() -> list[str]:
    """The judge builtins that answer a raw completion (an agent mock's turn)."""
    return [d.name for d in ADAPTERS if d.judge and d.completion_judge]


def judge_builtin(name: str) -> str | None:
    """The canonical judge builtin for ``name`` (claude_code → claude-code), or None if it is none."""
    found = find(name)
    return found.name if found is not None and found.judge else None
