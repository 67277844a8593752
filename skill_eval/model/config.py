"""Suite configs: YAML → schema check → frozen ``Suite``. Relative paths resolve from the file's folder."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput, Problem
from skill_eval.intake.schemas_io import describe_value, schema_problems
from skill_eval.intake.textcheck import hostile_parts, path_text
from skill_eval.model.ablation.parts import Ablation, default_name
from skill_eval.model.agents.configs import (
    AdapterConfig,
    AgentConfig,
    adapter_entry_problems,
    agents_problems,
    read_adapter,
    read_agents,
)
from skill_eval.model.agents.configs import resolve_path as _resolve
from skill_eval.model.builtins import judge_builtin, judge_problems
from skill_eval.model.evalcache import marker_exists, remember_valid, schema_marker
from skill_eval.model.infra.where import ExecutorConfig, RemoteConfig, executor_config, remote_config
from skill_eval.model.plugins.folder_suite import suite_source
from skill_eval.model.plugins.layout import Plugin, load_plugin, suite_plugin
from skill_eval.model.runsettings import CaseRunOptions
from skill_eval.model.until_decided import UntilDecidedSettings, until_decided_problems


@dataclass(frozen=True)
class JudgeConfig:
    builtin: str | None = None
    command: tuple[str, ...] | None = None
    model: str | None = None
    env: tuple[str, ...] = ()
    version: str | None = None
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    timeout_seconds: float | None = None
    concurrency: int = 4  # judge requests in flight at once, over every grade (never in a key)
    env_preset: str | None = None


@dataclass(frozen=True)
class SkillSelector:
    """One entry of ``skills:``: a name or glob, optionally with a format and eval-set files."""

    pattern: str
    format: str | None = None
    evals: tuple[str, ...] = ()
    line: int | None = field(default=None, compare=False)  # where the suite names it, for messages


@dataclass(frozen=True)
class Suite:
    path: Path  # the config file, absolute
    name: str
    skills_dir: Path
    skills: tuple[SkillSelector, ...]
    adapter: AdapterConfig
    models: tuple[str, ...] = ("default",)
    iterations: int = 3
    arms: tuple[str, ...] = ("with_skill", "without_skill")
    timeout_seconds: float = 120.0
    max_output_bytes: int = 1_048_576
    max_kept_files: int = 2000  # workspace files kept per run; the rest are listed as not kept
    jobs: int = 4
    minimum_lift: float | None = None
    store: Path = Path(".skill-eval/store")
    results: Path = Path("results")
    judge: JudgeConfig | None = None
    allow_scripts: bool = False
    strict_skills: bool = False
    skill_name_check: str = "error"  # "warn": a name differing from its folder is a warning
    max_cost_usd: float | None = None
    include_unscorable: bool = False  # unscorable runs count as failures instead of being left out
    split: str = "all"
    ablations: tuple[Ablation, ...] = ()
    executor: ExecutorConfig = ExecutorConfig()
    remote: RemoteConfig | None = None
    until_decided: UntilDecidedSettings | None = None
    gate: str = "mean"  # "holm": needs a Holm p <= 0.05 too; "decided": an unsignificant lift is undecided
    case_runs: CaseRunOptions = CaseRunOptions()  # allow_tools, scaffold: for plugin eval cases
    threshold: float = 1.0  # plugin eval's pass mark on a case's with-arm score (comparison/plugin_scores)
    plugin: Plugin | None = None  # the plugin the skills belong to: loaded whole in the with-skill arm
    # ``agents:``: several agents, each a column of the tables beside the model; () with one
    # ``adapter:`` (then ``adapter`` is it; with agents, ``adapter`` is the first agent's).
    agents: tuple[AgentConfig, ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """The tables' columns: the models, or with ``agents:`` each agent x model (``agent/model``)."""
        if not self.agents:
            return self.models
        return tuple(column(a.name, m) for a in self.agents for m in self.models)

    def adapters(self) -> tuple[AdapterConfig, ...]:
        """Every adapter the suite runs (the agents', or the one ``adapter:``)."""
        return tuple(a.adapter for a in self.agents) or (self.adapter,)

    def allow_listed_env(self) -> tuple[str, ...]:
        """Every variable the suite allow-lists for its adapters and its judge."""
        return (*(n for a in self.adapters() for n in a.env), *(self.judge.env if self.judge else ()))

    def sandboxed(self, box: str) -> Suite:
        """The suite with every adapter in sandbox ``box`` (``run --sandbox``)."""
        agents = tuple(replace(a, adapter=replace(a.adapter, sandbox=box)) for a in self.agents)
        return replace(self, adapter=replace(self.adapter, sandbox=box), agents=agents)

    @property
    def root(self) -> Path:
        """The config file's folder: relative paths in the suite resolve from here."""
        return self.path.parent

    def display(self, path: Path) -> str:
        """A path as shown to users: relative to the current folder when it is inside it."""
        return display_path(path)


def column(agent: str | None, model: str) -> str:
    """A table column: the model, or ``agent/model`` in a suite with ``agents:``."""
    return model if agent is None else f"{agent}/{model}"


def describe_judge(suite: Suite) -> str:
    """A short human name for reports: ``claude-code (model sonnet)`` or ``command judge.py``."""
    cfg = suite.judge
    if cfg is None:
        return "none"
    if cfg.builtin:
        name = judge_builtin(cfg.builtin) or cfg.builtin
    else:
        script = next((a for a in (cfg.command or ())[1:] if Path(a).suffix), None)
        name = "command " + Path(script or (cfg.command or ("?",))[0]).name
    return name + (f" (model {cfg.model})" if cfg.model else "")


def display_path(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def glob_files(root: Path, pattern: str) -> list[Path]:
    """Regular files matching ``pattern`` (relative to ``root``; ``**`` spans folders), sorted."""
    if Path(pattern).is_absolute():
        return sorted(p for p in Path(Path(pattern).anchor).glob(pattern[1:]) if p.is_file())
    return sorted(p for p in root.glob(pattern) if p.is_file())


def depends_files(suite: Suite) -> list[Path]:
    """Every file ``adapter.depends`` matches, once, in path order."""
    found: set[Path] = set()
    for pattern in suite.adapter.depends:
        found.update(glob_files(suite.root, pattern))
    return sorted(found)


def _depends_problems(raw: dict[str, Any], root: Path, file: str, where: Any) -> list[Problem]:
    agents = raw.get("agents") if isinstance(raw.get("agents"), list) else []
    entries = [(("adapter",), raw.get("adapter")), *((("agents", i), a) for i, a in enumerate(agents))]
    problems = []
    for at, adapter in entries:
        depends = adapter.get("depends") if isinstance(adapter, dict) else None
        if not isinstance(depends, list):
            continue  # absent, or the schema check has reported it
        for i, pattern in enumerate(depends):
            if isinstance(pattern, str) and pattern and not glob_files(root, pattern):
                line, col = where((*at, "depends", i))
                label = ".".join(str(p) for p in at)
                problems.append(Problem(file, f"{label}.depends: {pattern!r} matches no file; fix the glob "
                                              "(it is relative to this file's folder) or remove it",
                                        line, col))
    return problems


def _judge(raw: dict[str, Any] | None, root: Path) -> JudgeConfig | None:
    if not raw:
        return None
    command = raw.get("command")
    if command:
        first = command[0]
        if ("/" in first or first.startswith(".")) and not Path(first).is_absolute():
            command = [str(_resolve(root, first)), *command[1:]]
        # A script argument named relative to the suite ([python3, judge.py]) resolves from it too:
        # the judge runs in a temporary folder, and the script's content is in the judge identity.
        command = [command[0], *(str(_resolve(root, a)) if not a.startswith("-") and not Path(a).is_absolute()
                                 and (root / a).is_file() else a for a in command[1:])]
    return JudgeConfig(
        builtin=raw.get("builtin"), command=tuple(str(c) for c in command) if command else None,
        model=raw.get("model"), env=tuple(raw.get("env", ())),
        version=None if raw.get("version") is None else str(raw["version"]),
        options=dict(raw.get("options", {})), timeout_seconds=raw.get("timeout_seconds"),
        concurrency=int(raw.get("concurrency", JudgeConfig.concurrency)), env_preset=raw.get("env_preset"),
    )


def _semantic_problems(raw: dict[str, Any], file: str, where: Any) -> list[Problem]:
    problems: list[Problem] = []
    problems += adapter_entry_problems(raw.get("adapter") or {}, file, where, ("adapter",))
    problems += agents_problems(raw, file, where)
    judge = raw.get("judge")
    if isinstance(judge, dict) and not (judge.get("builtin") or judge.get("command")):
        line, col = where(("judge",))
        problems.append(Problem(file, "judge: needs 'builtin' or 'command'; add one "
                                      "(e.g. command: [python3, judge.py])", line, col))
    elif isinstance(judge, dict):
        line, col = where(("judge",))
        problems += [Problem(p.file, p.message, line, col) for p in judge_problems(file, judge)]
    problems += until_decided_problems(raw, file, where)
    for key in ("store", "results", "skills_dir"):
        value = raw.get(key)
        long = [part for part in re.split(r"[/\\]", value) if len(part.encode("utf-8", "replace")) > 255] \
            if isinstance(value, str) else []
        if long:
            line, col = where((key,))
            problems.append(Problem(file, f"{key}: folder name '{long[0][:40]}...' is "
                                    f"{len(long[0].encode('utf-8', 'replace'))} bytes long; file systems "
                                    "allow 255: shorten it", line, col))
    return problems


def _skills_dir_problem(raw: dict[str, Any], root: Path, file: str, where: Any) -> tuple[Path, list[Problem]]:
    named = raw.get("plugin")  # a suite naming its plugin and no skills_dir tests the plugin's skills
    value = raw.get("skills_dir", f"{named}/skills" if isinstance(named, str) and named else "skills")
    if not isinstance(value, str) or not value:
        return root, []  # the schema check has reported it
    skills_dir = _resolve(root, value)
    line, col = where(("skills_dir",)) if "skills_dir" in raw else (None, None)
    shown = display_path(skills_dir)
    try:
        skills_dir.stat()
    except FileNotFoundError:
        pass
    except OSError as exc:  # a name too long, a loop of links, no permission: the check below says "missing"
        return skills_dir, [Problem(file, f"skills_dir: cannot read {shown[:80]}: {exc.strerror}; "
                                          "fix the path", line, col)]
    if skills_dir.is_file():
        return skills_dir, [Problem(file, f"skills_dir: {shown} is a file, not a folder; point skills_dir at "
                                          "the folder that holds one folder per skill", line, col)]
    if not skills_dir.is_dir():
        how = "" if "skills_dir" in raw else "; set 'skills_dir' (the default is 'skills')"
        return skills_dir, [Problem(file, f"skills_dir: folder {shown} does not exist; fix the path "
                                          f"(it is relative to this file's folder){how}", line, col)]
    if (skills_dir / "SKILL.md").is_file():
        return skills_dir, [Problem(file, f"skills_dir: {shown} is a skill itself (it has SKILL.md); point "
                                          "skills_dir at the folder that holds it and name the skill in "
                                          "'skills'", line, col)]
    return skills_dir, []


# Bumped when what passes the suite check changes (2: numbers must be finite), so a config
# remembered as valid under the old rules is checked again.
_SCHEMA_RULES = 2


def load_suite(path: str | Path) -> Suite:
    """Load and validate a suite config; raise InvalidInput listing every problem found."""
    path, located = suite_source(Path(path))
    file = display_path(path)
    raw = located.data
    hostile = hostile_parts(raw)
    if hostile:
        raise InvalidInput([Problem(file, f"{path_text(at)}: {what}", *located.where(at))
                            for at, what in hostile])
    if raw is None:
        raise InvalidInput([Problem(file, "the file is empty; a suite needs at least 'suite: <name>'")])
    if not isinstance(raw, dict):
        raise InvalidInput([Problem(file, "must be a mapping of keys (suite: ..., skills_dir: ...), "
                                          f"got {describe_value(raw)}; see configs/demo.yaml", 1, 1)])
    root = path.resolve().parent
    marker = schema_marker(raw, root, _SCHEMA_RULES)
    problems = [] if marker is not None and marker_exists(marker) else schema_problems("suite", raw, file,
                                                                                located.where)
    problems += _semantic_problems(raw, file, located.where)
    problems += _depends_problems(raw, root, file, located.where)
    skills_dir, dir_problems = _skills_dir_problem(raw, root, file, located.where)
    problems += dir_problems
    plugin_root, why = (None, None) if dir_problems else suite_plugin(raw, root, skills_dir)
    problems += [Problem(file, why, *located.where(("plugin",)))] if why else []
    if problems:
        problems.sort(key=lambda p: (p.line or 0, p.column or 0))
        raise InvalidInput(problems)
    remember_valid(marker)

    selectors = []
    for i, entry in enumerate(raw.get("skills", ["*"])):
        line = located.where(("skills", i))[0] if "skills" in raw else None
        if isinstance(entry, str):
            selectors.append(SkillSelector(entry, line=line))
        else:
            selectors.append(SkillSelector(entry["name"], entry.get("format"), tuple(entry.get("evals", ())),
                                           line=line))
    agents = read_agents(raw.get("agents") or [], root)
    store = _resolve(root, raw.get("store", ".skill-eval/store"))
    results = _resolve(root, raw.get("results", "results"))
    return Suite(
        path=path.resolve(),
        name=raw["suite"],
        skills_dir=skills_dir,
        skills=tuple(selectors),
        adapter=agents[0].adapter if agents else read_adapter(raw.get("adapter") or {}, root),
        agents=agents,
        models=tuple(raw.get("models", ["default"])),
        iterations=int(raw.get("iterations", 3)),
        arms=tuple(raw.get("variants", ["with_skill", "without_skill"])),
        timeout_seconds=float(raw.get("timeout_seconds", 120)),
        max_output_bytes=int(raw.get("max_output_bytes", 1_048_576)),
        max_kept_files=int(raw.get("max_kept_files", 2000)),
        jobs=int(raw.get("jobs", 4)),
        minimum_lift=raw.get("minimum_lift"),
        store=store,
        results=results,
        judge=_judge(raw.get("judge"), root),
        allow_scripts=bool(raw.get("allow_scripts", False)),
        strict_skills=bool(raw.get("strict_skills", False)),
        skill_name_check=raw.get("skill_name_check", "error"),
        max_cost_usd=raw.get("max_cost_usd"),
        include_unscorable=bool(raw.get("include_unscorable", False)),
        split=raw.get("split", "all"), remote=remote_config(raw.get("remote")),
        ablations=_ablations(raw.get("ablations") or [], file, located.where),
        executor=executor_config(raw.get("executor")), threshold=float(raw.get("threshold", 1.0)),
        until_decided=None if raw.get("adaptive") is None else UntilDecidedSettings(**raw["adaptive"]),
        gate=raw.get("gate", "mean"), case_runs=CaseRunOptions.from_raw(raw),
        plugin=None if plugin_root is None else load_plugin(plugin_root, (  # and <suite>.baseline.json
            store, results, path.resolve(), path.resolve().with_name(f"{path.stem}.baseline.json"))),
    )


def _ablations(raw: list[dict[str, Any]], file: str, where: Any) -> tuple[Ablation, ...]:
    out = []
    for i, entry in enumerate(raw):
        remove = tuple(str(r) for r in entry["remove"])
        out.append(Ablation(entry.get("name") or default_name(remove), remove, entry.get("skill"), file,
                            where(("ablations", i))[0], tuple(entry.get("cases", ()))))
    return tuple(out)
