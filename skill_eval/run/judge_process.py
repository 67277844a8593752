"""The judge as a process: resolve the suite's ``judge:`` like an adapter, start it in a clean
folder, and hold its answer to the judge protocol.

Request on stdin: ``{protocol_version: 1, prompt, output, expected_output, rubric: [{id, text}],
model}``. Response on stdout: ``{verdicts: [{id, passed, evidence}], usage?: {str: number}}``,
validated strictly (schemas/judge-response.schema.json; every rubric id answered once, no
other id, no other field). A completion request (``{completion: {system, messages}}``, an agent
mock's question) is answered ``{text, usage?}`` (schemas/judge-completion.schema.json).
``JudgeProcess`` is the port ``grade`` is handed: grading never starts a process itself.

The claude-code builtin is the exception to "a process per request": its requests are made from
here, one Messages API request each (judge_direct.py), as ``claude plugin eval``'s judge makes
them. Either way at most ``judge.concurrency`` requests are in flight at once.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from skill_eval.errors import AdapterError, InvalidInput, JudgeError, JudgeFatal, SkillEvalError
from skill_eval.intake.schemas_io import validator
from skill_eval.intake.textcheck import hostile_parts, path_text
from skill_eval.model.builtins import judge_builtin, judge_problems
from skill_eval.model.config import AdapterConfig, Suite, describe_judge
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.run.adapters.shared.judge_prompt import JUDGE_PROMPT_VERSION
from skill_eval.run.adapters.shared.protocol_io import FATAL_EXIT
from skill_eval.run.containment import owner
from skill_eval.run.judge_direct import WAY, DirectJudge, direct
from skill_eval.run.process import run_process
from skill_eval.run.resolve import resolve_adapter
from skill_eval.run.workspace import PREFIX, Workspace
from skill_eval.store.redact import redact, register_env, secret_env_names

PROTOCOL_VERSION = 1
_STDERR_TAIL = 400


def resolve_judge(suite: Suite) -> ResolvedAdapter:
    """The judge as a process: argv, environment allow-list and identity (built like an adapter's)."""
    cfg = suite.judge
    if cfg is None:
        raise SkillEvalError("the suite has no judge")
    problems = judge_problems(suite.display(suite.path), {"builtin": cfg.builtin, "command": cfg.command})
    if problems:
        raise InvalidInput(problems)
    as_adapter = AdapterConfig(builtin=judge_builtin(cfg.builtin) if cfg.builtin else None,
                               command=cfg.command, env=cfg.env, version=cfg.version,
                               options=dict(cfg.options), env_preset=cfg.env_preset)
    resolved = resolve_adapter(dataclasses.replace(suite, adapter=as_adapter))
    argv = (*resolved.argv, "--judge") if cfg.builtin else resolved.argv
    return dataclasses.replace(resolved, name=f"judge {describe_judge(suite)}", argv=argv)


def identity(suite: Suite) -> dict[str, Any]:
    """The judge's part of every key of a judged grade: what it is, which model, which prompt."""
    resolved = resolve_judge(suite)
    ident = {"judge": resolved.identity, "model": suite.judge.model if suite.judge else None,
             "prompt_version": JUDGE_PROMPT_VERSION, "protocol_version": PROTOCOL_VERSION}
    return {**ident, "way": WAY} if direct(suite) else ident


class JudgeProcess:
    """The judge port for one suite. Its identity is computed on first use: a builtin judge's
    identity may ask the agent CLI for its version."""

    prompt_version = JUDGE_PROMPT_VERSION

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.name = describe_judge(suite)
        self._identity: dict[str, Any] | None = None
        self._process: ResolvedAdapter | None = None
        self._direct: DirectJudge | None = None
        self.fatal: str | None = None  # a judge call said every call would fail the same way
        self.concurrency = suite.judge.concurrency if suite.judge else 1
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._start = threading.Lock()

    @property
    def identity(self) -> dict[str, Any]:
        if self._identity is None:
            self._identity = identity(self.suite)
        return self._identity

    def _started(self, not_done: str) -> ResolvedAdapter:
        """The judge process, resolved once; a judge that failed fatally is not started again (it
        would fail the same way, and could take as long)."""
        if self.fatal is not None:
            raise JudgeFatal(f"{not_done}: {self.fatal}", started=False)
        with self._start:
            if self._process is None:
                process = resolve_judge(self.suite)
                # A builtin judge's own keys are secrets too.
                register_env(secret_env_names(self.suite.judge.env if self.suite.judge else (),
                                              process.env_names))
                if direct(self.suite):
                    self._direct = DirectJudge(self.suite, process, judge_timeout(self.suite))
                self._process = process
        return self._process

    def warm(self) -> None:
        """Resolve now what the first request would wait for (the claude CLI's default model),
        so it happens while the first runs go; a failure is left for that request to report."""
        try:
            self._started("not judged")
            if self._direct is not None:
                self._direct.model(None)
        except (SkillEvalError, OSError):
            pass

    def call(self, request: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
        process = self._started("not judged")
        try:
            with self._slots:
                if self._direct is not None:
                    raw = json.dumps(self._direct.call(request)).encode("utf-8")
                    return parse_judge_response(raw, [r["id"] for r in request["rubric"]], process.name)
                return call_judge(process, {"protocol_version": PROTOCOL_VERSION, **request}, self.suite)
        except JudgeFatal as exc:
            self.fatal = self.fatal or str(exc)
            raise

    def complete(self, system: str, messages: list[dict[str, str]]) -> tuple[str, dict[str, float]]:
        """A raw completion (an agent mock's answer): the reply text and usage, or JudgeError."""
        process = self._started("not asked")
        model = self.suite.judge.model if self.suite.judge else None
        request = {"protocol_version": PROTOCOL_VERSION, "model": model,
                   "completion": {"system": system, "messages": messages}}
        try:
            with self._slots:
                if self._direct is not None:
                    return self._direct.chat(system, messages, model)
                raw = _run_judge(process, request, self.suite)
        except JudgeFatal as exc:
            self.fatal = self.fatal or str(exc)
            raise
        return parse_completion(raw, process.name)


def parse_completion(raw: bytes, who: str = "judge") -> tuple[str, dict[str, float]]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        preview = redact(raw.decode("utf-8", "replace").strip())[:120] or "(nothing)"
        raise JudgeError(f"{who} did not answer with JSON; stdout started: {preview!r}") from None
    errors = list(validator("judge-completion").iter_errors(data))
    if errors or hostile_parts(data):
        raise JudgeError(f"{who} answered a completion outside the judge protocol "
                         "(expected {text, usage: {...}})")
    return data["text"], dict(data.get("usage", {}))


def call_judge(judge: ResolvedAdapter, request: dict[str, Any], suite: Suite
               ) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    """One judge process for one request; the parsed verdicts and usage, or JudgeError."""
    return parse_judge_response(_run_judge(judge, request, suite), [r["id"] for r in request["rubric"]],
                                judge.name)


def judge_timeout(suite: Suite) -> float:
    """A judge call's time limit: the judge's own, else the suite's."""
    cfg = suite.judge
    return float(cfg.timeout_seconds if cfg and cfg.timeout_seconds else suite.timeout_seconds)


def _run_judge(judge: ResolvedAdapter, request: dict[str, Any], suite: Suite) -> bytes:
    """One judge process for one request: its stdout, or JudgeError."""
    timeout = judge_timeout(suite)
    # Named like a workspace, so the next run removes it if we are killed meanwhile.
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{owner.claim()}-judge-")).resolve()
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
    if proc.returncode == FATAL_EXIT:
        # The adapters' "every call would fail the same way" (bad or missing key, endpoint down).
        cause = _last_line(proc.stderr) or f"exit status {FATAL_EXIT}, no message"
        raise JudgeFatal(f"{who} cannot judge: {cause}")
    if proc.returncode != 0:
        raise JudgeError(f"{who} exited with status {proc.returncode}" + _tail(proc.stderr))
    return proc.stdout


def parse_judge_response(raw: bytes, ids: list[str], who: str = "judge"
                         ) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        # Redact the whole text, then cut: a cut first could hide a secret's recognisable head.
        preview = redact(raw.decode("utf-8", "replace").strip())[:120] or "(nothing)"
        raise JudgeError(f"{who} did not answer with JSON ({exc}); stdout started: {preview!r}") from None
    except RecursionError:
        raise JudgeError(f"{who} answered with JSON nested too deeply to read") from None
    if hostile_parts(data):
        # Evidence is stored as UTF-8: a lone surrogate or runaway nesting is outside the protocol.
        path, what = hostile_parts(data)[0]
        raise JudgeError(f"{who} answered outside the judge protocol: {path_text(path)}: {what}")
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
    text = redact(stderr.decode("utf-8", "replace").strip())
    if not text:
        return ""
    return " | stderr: " + (text if len(text) <= _STDERR_TAIL else "..." + text[-_STDERR_TAIL:]).replace(
        "\n", " \\n ")


def _last_line(stderr: bytes) -> str:
    lines = [ln.strip() for ln in redact(stderr.decode("utf-8", "replace")).splitlines() if ln.strip()]
    return lines[-1][-_STDERR_TAIL * 2:] if lines else ""
