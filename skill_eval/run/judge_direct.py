"""The claude-code judge's requests, made from skill-eval's own process: each vote, batch of
verdicts or agent-mock question is one Messages API request (run/messages_api.py) with the
judge's short system text, the user message and no tools, as ``claude plugin eval``'s judge asks
it. No CLI process per vote: that is what made a suite with ``llm`` graders slow.

What the CLI would resolve is resolved the same way, from the judge's own environment (the
minimal environment plus its allow-list, as the judge process gets it): the base URL is
``options.base_url``, else ``ANTHROPIC_BASE_URL``, else Anthropic's; the key is
``ANTHROPIC_API_KEY`` (else ``ANTHROPIC_AUTH_TOKEN``); the model is ``judge.model``, else
``options.model``, else ``ANTHROPIC_MODEL``, else the CLI's own default, read once from the
``model`` of its init event in a run aimed at a closed port (so no model request is made).
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from typing import Any

from skill_eval.errors import AdapterError, JudgeError, JudgeFatal
from skill_eval.model.config import Suite
from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.run.adapters.shared.judge_prompt import JUDGE_SYSTEM, answer, flatten
from skill_eval.run.adapters.shared.protocol_io import AdapterFailure
from skill_eval.run.containment import owner
from skill_eval.run.messages_api import Endpoint, ask
from skill_eval.run.process import run_process
from skill_eval.run.workspace import PREFIX, Workspace

DEFAULT_URL = "https://api.anthropic.com"
# Part of the claude-code judge's identity: how it asks (a change here re-judges, never re-runs).
WAY = {"request": "messages-api", "system": JUDGE_SYSTEM}
_PROBE_SECONDS = 120.0


def direct(suite: Suite) -> bool:
    """Does this suite's judge make its requests from here (the claude-code builtin)?"""
    return suite.judge is not None and suite.judge.builtin == "claude-code"


class DirectJudge:
    """One suite's claude-code judge, asked through the Messages API."""

    def __init__(self, suite: Suite, process: ResolvedAdapter, timeout: float) -> None:
        self.suite = suite
        self.process = process
        self.timeout = timeout
        folder = Path(tempfile.gettempdir())
        self.env = Workspace(folder, (), None).env(process)
        cfg = suite.judge
        options = dict(cfg.options) if cfg else {}
        self.endpoint = Endpoint(
            base_url=str(options.get("base_url") or self.env.get("ANTHROPIC_BASE_URL") or DEFAULT_URL),
            api_key=self.env.get("ANTHROPIC_API_KEY"), auth_token=self.env.get("ANTHROPIC_AUTH_TOKEN"),
            who=process.name)
        self._model = (cfg.model if cfg else None) or options.get("model") or self.env.get("ANTHROPIC_MODEL")
        self._lock = threading.Lock()

    def model(self, asked: str | None) -> str:
        if asked:
            return asked
        with self._lock:  # one probe, however many votes wait for it
            if not self._model:
                self._model = cli_default_model(self.suite, self.process, self.env)
            return str(self._model)

    def _complete(self, prompt: str, model: str | None) -> tuple[str, dict[str, float]]:
        return ask(self.endpoint, self.model(model), JUDGE_SYSTEM, [{"role": "user", "content": prompt}],
                   self.timeout)

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """The judge's answer to a verdict or vote request (``{verdicts: [...], usage}``)."""
        try:
            return answer(request, self._complete)
        except AdapterFailure as exc:
            raise JudgeError(f"{self.process.name}: {exc}") from None

    def chat(self, system: str, messages: list[dict[str, str]], model: str | None
             ) -> tuple[str, dict[str, float]]:
        """An agent mock's question: its own system text and one user turn (a history flattened)."""
        turn = [{"role": "user", "content": flatten(messages)}]
        return ask(self.endpoint, self.model(model), system, turn, self.timeout)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cli_default_model(suite: Suite, process: ResolvedAdapter, env: dict[str, str]) -> str:
    """The model the claude CLI would use, from its init event; no model request is made."""
    options = dict(suite.judge.options) if suite.judge else {}
    exe = str(options.get("claude_bin") or "claude")
    found = shutil.which(exe, path=env.get("PATH"))
    if not found:
        # A failed grade, as when the judge process could not find it.
        raise JudgeError(f"{process.name}: claude CLI not found ({exe}), and it names the judge's "
                         "model when judge.model does not; install it, set options.claude_bin or "
                         "judge.model")
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{owner.claim()}-judge-")).resolve()
    try:
        (folder / "home").mkdir()
        run_env = {**env, "HOME": str(folder / "home"), "CLAUDE_CONFIG_DIR": str(folder / "home" / ".claude"),
                   "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{_closed_port()}", "CLAUDE_CODE_MAX_RETRIES": "0"}
        argv = [found, "-p", "--output-format", "stream-json", "--verbose", "--tools=", "--max-turns=1",
                "--", "."]
        try:
            done = run_process(argv, b"", folder, run_env, _PROBE_SECONDS, 1 << 22)
        except AdapterError as exc:
            raise JudgeError(f"{process.name}: the claude CLI could not start: {exc}") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "system" and isinstance(event.get("model"), str):
            # "claude-opus-5[1m]": the bracket is the CLI's context-window hint, not the model's name.
            return re.sub(r"\[[^\]]*\]$", "", event["model"])
    raise JudgeFatal(f"{process.name} cannot judge: could not read the claude CLI's default model "
                     "(no init event); set judge.model")
