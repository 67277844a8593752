"""Causes, not timeouts: reading why an agent CLI is failing from its own stream.

Both CLIs retry API errors on their own: Claude Code about ten times over ~3 minutes (each
retry is a ``system``/``api_retry`` event), Codex five times per request ("Reconnecting... n/5
(unexpected status 401 ...)") and forever while the endpoint is unreachable ("Reconnecting...
waiting for network"). A watcher sees each stream event while the CLI runs:

- an authentication or permission failure (HTTP 401/403, a missing key) is *fatal*: the run is
  stopped at once and reported with exit status 77 (EX_NOPERM), so the engine stops the suite's other runs of
  this adapter (they would all fail the same way);
- any other error is remembered as the *last cause*, and reported when the run ends by timeout,
  by a stop from outside (the suite's timeout) or by a non-zero exit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_AUTH_STATUS = (401, 403)


@dataclass(frozen=True)
class Cause:
    message: str
    fatal: bool = False


class Watch:
    """Base watcher: ``see(event)`` returns a fatal Cause to stop the run now, else None."""

    def __init__(self) -> None:
        self.last: Cause | None = None
        self.warnings: list[str] = []

    def see(self, ev: dict[str, Any]) -> Cause | None:
        return None


def _auth_hint(status: int | None) -> str:
    what = "permission denied" if status == 403 else "authentication failed"
    return f"{what} (HTTP {status})" if status else what


class ClaudeWatch(Watch):
    """Claude Code's ``api_retry`` events and its synthetic API-error messages."""

    def __init__(
        self,
        key_hint: str = "check ANTHROPIC_API_KEY (allow-list it in the suite's env) and ANTHROPIC_BASE_URL",
    ) -> None:
        super().__init__()
        self.key_hint = key_hint

    def see(self, ev: dict[str, Any]) -> Cause | None:
        kind = ev.get("type")
        if kind == "system" and ev.get("subtype") == "api_retry":
            status = ev.get("error_status") if isinstance(ev.get("error_status"), int) else None
            error = str(ev.get("error") or "unknown")
            attempt, most = ev.get("attempt"), ev.get("max_retries")
            tries = f"retry {attempt} of {most}" if attempt is not None and most is not None else "retrying"
            if status in _AUTH_STATUS or error == "authentication_failed":
                return self._fatal(f"{_auth_hint(status)} ({tries}): {self.key_hint}")
            if status is None:
                self.last = Cause(
                    f"could not reach the model API ({error}; {tries}): check "
                    "ANTHROPIC_BASE_URL and that the endpoint is up"
                )
            else:
                self.last = Cause(
                    f"the model API answered HTTP {status} ({error}; {tries}); "
                    "CLAUDE_CODE_MAX_RETRIES limits the retries"
                )
            return None
        if ev.get("is_api_error_message") or (kind == "result" and ev.get("api_error_status")):
            status = ev.get("api_error_status") if isinstance(ev.get("api_error_status"), int) else None
            text = _message_text(ev)
            if status in _AUTH_STATUS or ev.get("error") == "authentication_failed":
                return self._fatal(f"{_auth_hint(status)}: {text}: {self.key_hint}")
            self.last = Cause(f"model API error{f' (HTTP {status})' if status else ''}: {text}")
        return None

    def _fatal(self, message: str) -> Cause:
        self.last = Cause(message, fatal=True)
        return self.last


def _message_text(ev: dict[str, Any]) -> str:
    if isinstance(ev.get("result"), str):
        return ev["result"]
    message = ev.get("message") if isinstance(ev.get("message"), dict) else {}
    for block in message.get("content") or []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            return block["text"]
    return str(ev.get("error") or "error")


_STATUS = re.compile(r"unexpected status (\d{3})")
_MISSING_ENV = re.compile(r"Missing environment variable: `?([A-Za-z_][A-Za-z0-9_]*)`?")


class CodexWatch(Watch):
    """Codex's ``error`` events (its retry notices) and ``turn.failed``."""

    def __init__(self, key_name: str = "CODEX_API_KEY") -> None:
        super().__init__()
        self.key_name = key_name

    def see(self, ev: dict[str, Any]) -> Cause | None:
        kind = ev.get("type")
        if kind == "error":
            text = str(ev.get("message") or "error")
        elif kind == "turn.failed":
            error = ev.get("error")
            text = str((error.get("message") if isinstance(error, dict) else error) or "turn failed")
        else:
            return None
        missing = _MISSING_ENV.search(text)
        if missing:
            self.last = Cause(
                f"no API key: environment variable {missing.group(1)} is not set "
                "(set it and allow-list it in the suite's env)",
                fatal=True,
            )
            return self.last
        status = _STATUS.search(text)
        code = int(status.group(1)) if status else None
        if code in _AUTH_STATUS:
            self.last = Cause(
                f"{_auth_hint(code)}: {text.removeprefix('Reconnecting... ')}: check "
                f"{self.key_name} (allow-list it in the suite's env) and base_url",
                fatal=True,
            )
            return self.last
        if "waiting for network" in text or "Connection failed" in text or "error sending request" in text:
            self.last = Cause(
                f"could not reach the model API ({text}): check the adapter's base_url "
                "and that the endpoint is up"
            )
        else:
            self.last = Cause(text)
        return None


def explain(agent: str, done: Any, timeout: float | None) -> None:
    """Fail with the cause when the run was stopped (fatal cause, timeout, SIGTERM); else return.

    ``done`` is an agentcli.Finished.
    """
    from skill_eval.run.adapters._common import AdapterFatal, fail

    cause: Cause | None = done.cause
    if cause is not None and cause.fatal:
        raise AdapterFatal(f"{agent}: {cause.message}")
    why = f": {cause.message}" if cause is not None else ""
    if done.terminated:
        fail(f"{agent} was stopped from outside (the suite's timeout_seconds?) before it finished{why}")
    if done.timed_out:
        fail(f"{agent} did not finish within {timeout:g} s and was stopped{why}")
