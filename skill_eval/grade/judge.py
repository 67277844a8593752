"""The judge: grades rubric sentences (plain-sentence assertions) through a protocol-v1 process.

A suite's ``judge:`` is either ``{command: [...]}`` (any executable speaking the judge protocol)
or ``{builtin: claude-code|codex|openai, model, options, env}`` (run as
``python -m skill_eval.run.adapters.<module> --judge``, argv built by ``adapters.resolve_adapter``).

Request on stdin: ``{protocol_version: 1, prompt, output, expected_output, rubric: [{id, text}],
model}``. Response on stdout: ``{verdicts: [{id, passed, evidence}], usage?: {str: number}}``,
validated strictly (schemas/judge-response.schema.json; every rubric id answered once, no
other id, no other field).

Verdicts are cached in the store (kind ``judge``) under a key of the judge identity, the output's
hash, the prompt, the rubric items, expected_output and the judge prompt version: re-grading after
a check edit, or re-running an unchanged suite, makes no judge call; a rubric edit re-judges only
the cases it touched; a judge change re-judges everything and re-runs nothing. A failure is a
``JudgeError``: nothing is cached, so the next run asks again.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill_eval.model.errors import InvalidInput, Problem, SkillEvalError
from skill_eval.model.hashing import key_of, sha256_bytes
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.run.adapters.judge_prompt import JUDGE_PROMPT_VERSION

if TYPE_CHECKING:
    from skill_eval.engine.engine import Engine
    from skill_eval.model.config import Suite
    from skill_eval.model.results import RunResult
    from skill_eval.plan.types import RunSpec

PROTOCOL_VERSION = 1
# Builtins that serve ``--judge``; the offline demo/replay adapters do not.
JUDGE_BUILTINS = ("claude-code", "codex", "openai")
_ALIASES = {"claude_code": "claude-code", "openai_compat": "openai", "openai-compat": "openai"}
_STDERR_TAIL = 400


class JudgeError(SkillEvalError):
    """The judge could not grade a run: it failed, timed out, or answered outside the protocol."""


@dataclass(frozen=True)
class JudgeOutcome:
    verdicts: dict[str, dict[str, Any]]  # rubric id → {passed, evidence}
    usage: dict[str, float]
    cached: bool


def builtin_name(name: str) -> str | None:
    """The canonical judge builtin for ``name`` (claude_code → claude-code), or None if it is none."""
    canon = _ALIASES.get(name, name)
    return canon if canon in JUDGE_BUILTINS else None


def judge_problems(suite_file: str, judge: Any) -> list[Problem]:
    """Problems with a suite's ``judge:`` mapping that the schema cannot express."""
    if isinstance(judge, dict) and judge.get("builtin") and builtin_name(str(judge["builtin"])) is None:
        return [Problem(suite_file, f"judge: builtin '{judge['builtin']}' cannot judge (judge builtins: "
                                    f"{', '.join(JUDGE_BUILTINS)}; or use 'command: [...]')")]
    if isinstance(judge, dict) and judge.get("builtin") and judge.get("command"):
        return [Problem(suite_file, "judge: set either 'builtin' or 'command', not both")]
    return []


def resolve_judge(suite: Suite) -> ResolvedAdapter:
    """The judge as a process: argv, environment allow-list and identity (built like an adapter's)."""
    from skill_eval.model.config import AdapterConfig
    from skill_eval.run.adapters import resolve_adapter

    cfg = suite.judge
    if cfg is None:
        raise SkillEvalError("the suite has no judge")
    problems = judge_problems(suite.display(suite.path), {"builtin": cfg.builtin, "command": cfg.command})
    if problems:
        raise InvalidInput(problems)
    as_adapter = AdapterConfig(builtin=builtin_name(cfg.builtin) if cfg.builtin else None,
                               command=cfg.command, env=cfg.env, version=cfg.version,
                               options=dict(cfg.options))
    resolved = resolve_adapter(dataclasses.replace(suite, adapter=as_adapter))
    argv = (*resolved.argv, "--judge") if cfg.builtin else resolved.argv
    return dataclasses.replace(resolved, name=f"judge {describe(suite)}", argv=argv)


def describe(suite: Suite) -> str:
    """A short human name for reports: ``claude-code (model sonnet)`` or ``command judge.py``."""
    cfg = suite.judge
    if cfg is None:
        return "none"
    if cfg.builtin:
        name = builtin_name(cfg.builtin) or cfg.builtin
    else:
        script = next((a for a in (cfg.command or ())[1:] if Path(a).suffix), None)
        name = "command " + Path(script or (cfg.command or ("?",))[0]).name
    return name + (f" (model {cfg.model})" if cfg.model else "")


def identity(suite: Suite) -> dict[str, Any]:
    """The judge's part of every key of a judged grade: what it is, which model, which prompt."""
    resolved = resolve_judge(suite)
    return {"judge": resolved.identity, "model": suite.judge.model if suite.judge else None,
            "prompt_version": JUDGE_PROMPT_VERSION, "protocol_version": PROTOCOL_VERSION}


def verdict_key(ident: dict[str, Any], prompt: str, output: str, rubric: list[dict[str, str]],
                expected_output: str) -> str:
    return key_of({"judge": ident, "prompt_sha256": sha256_bytes(prompt.encode("utf-8")),
                   "output_sha256": sha256_bytes(output.encode("utf-8")), "rubric": rubric,
                   "expected_output": expected_output, "prompt_version": JUDGE_PROMPT_VERSION})


def judge_verdicts(engine: Engine, spec: RunSpec, result: RunResult) -> JudgeOutcome:
    from skill_eval.store.redact import redact

    suite = engine.suite
    case = spec.case
    # What the judge sees is what the store keeps: the redacted output (a secret never leaves).
    output = redact(result.output)
    rubric = [{"id": r.id, "text": r.text} for r in case.rubric]
    key = verdict_key(engine.judge_identity(), case.prompt, output, rubric, case.expected_output)
    cached = engine.store.get_json("judge", key)
    if isinstance(cached, dict) and isinstance(cached.get("verdicts"), dict) and \
            set(cached["verdicts"]) == {r["id"] for r in rubric}:
        return JudgeOutcome(cached["verdicts"], dict(cached.get("usage", {})), True)
    request = {"protocol_version": PROTOCOL_VERSION, "prompt": case.prompt, "output": output,
               "expected_output": case.expected_output, "rubric": rubric,
               "model": suite.judge.model if suite.judge else None}
    verdicts, usage = call_judge(engine.judge_process(), request, suite)
    engine.store.put_json("judge", key, {"verdicts": verdicts, "usage": usage, "judge": describe(suite)})
    return JudgeOutcome(verdicts, usage, False)


def call_judge(judge: ResolvedAdapter, request: dict[str, Any], suite: Suite
               ) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    """One judge process for one request; the parsed verdicts and usage, or JudgeError."""
    from skill_eval.model.errors import AdapterError
    from skill_eval.run.process import run_process
    from skill_eval.run.workspace import Workspace

    cfg = suite.judge
    timeout = float(cfg.timeout_seconds if cfg and cfg.timeout_seconds else suite.timeout_seconds)
    folder = Path(tempfile.mkdtemp(prefix="skill-eval-judge-")).resolve()
    try:
        for sub in ("home", "tmp"):
            (folder / sub).mkdir()
        env = Workspace(folder, (), None).env(judge)  # minimal environment + the allow-list
        try:
            proc = run_process(judge.argv, json.dumps(request).encode("utf-8"), folder, env, timeout,
                               suite.max_output_bytes)
        except AdapterError as exc:
            raise JudgeError(f"{judge.name} could not start: {exc}") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    who = judge.name
    if proc.timed_out:
        raise JudgeError(f"{who} timed out after {timeout:g}s (raise judge.timeout_seconds)"
                         + _tail(proc.stderr))
    if proc.capped:
        raise JudgeError(f"{who} wrote more than {suite.max_output_bytes} bytes and was stopped")
    if proc.returncode != 0:
        raise JudgeError(f"{who} exited with status {proc.returncode}" + _tail(proc.stderr))
    return parse_judge_response(proc.stdout, [r["id"] for r in request["rubric"]], who)


def parse_judge_response(raw: bytes, ids: list[str], who: str = "judge"
                         ) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    from skill_eval.model.schemas_io import validator

    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        preview = raw[:120].decode("utf-8", "replace").strip() or "(nothing)"
        raise JudgeError(f"{who} did not answer with JSON ({exc}); stdout started: {preview!r}") from None
    errors = sorted(validator("judge-response").iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        where = lambda e: "/".join(str(p) for p in e.absolute_path) or "(top level)"  # noqa: E731
        detail = "; ".join(f"{where(e)}: {e.message}" for e in errors[:3])
        raise JudgeError(f"{who} answered outside the judge protocol: {detail} "
                         "(expected {verdicts: [{id, passed, evidence}], usage: {...}})")
    verdicts: dict[str, dict[str, Any]] = {}
    for v in data["verdicts"]:
        if v["id"] in verdicts:
            raise JudgeError(f"{who} gave two verdicts for rubric id {v['id']!r}")
        verdicts[v["id"]] = {"passed": v["passed"], "evidence": v["evidence"]}
    missing = [i for i in ids if i not in verdicts]
    extra = sorted(set(verdicts) - set(ids))
    if missing:
        raise JudgeError(f"{who} gave no verdict for rubric id(s) {', '.join(missing)}")
    if extra:
        raise JudgeError(f"{who} answered rubric id(s) it was not asked about: {', '.join(extra)}")
    return verdicts, dict(data.get("usage", {}))


def _tail(stderr: bytes) -> str:
    from skill_eval.store.redact import redact

    text = redact(stderr.decode("utf-8", "replace").strip())
    if not text:
        return ""
    return " | stderr: " + (text if len(text) <= _STDERR_TAIL else "..." + text[-_STDERR_TAIL:]).replace(
        "\n", " \\n ")
