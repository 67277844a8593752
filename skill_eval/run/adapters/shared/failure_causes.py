"""Causes, not timeouts: reading why an agent CLI is failing from its own stream.

Both CLIs retry API errors on their own: Claude Code about ten times over ~3 minutes (each
retry is a ``system``/``api_retry`` event), Codex five times per request ("Reconnecting... n/5
(unexpected status 401 ...)") and forever while the endpoint is unreachable ("Reconnecting...
waiting for network"). A watcher sees each stream event while the CLI runs:

- an authentication or permission failure (HTTP 401/403, a missing key) is *fatal*: the run is
  stopped at once and reported with exit status 77 (EX_NOPERM), so the engine stops the suite's other runs of
  this adapter (they would all fail the same way);
- an endpoint that cannot be reached is fatal too, once the CLI has tried a few times
  (Claude Code: 3 connection failures, or its own ``CLAUDE_CODE_MAX_RETRIES`` when set; Codex:
  its first "waiting for network" notice, which follows its own five tries, when a probe finds the
  connection refused or the host unknown, else the second notice): Claude Code alone would retry
  for ~3 minutes and Codex forever. The message names the endpoint and why a connection to it
  fails now (refused, host not found, timed out), probed when giving up;
- any other error is remembered as the *last cause*, and reported when the run ends by timeout,
  by a stop from outside (the suite's timeout) or by a non-zero exit.
"""

from __future__ import annotations

import re
import socket
import urllib.parse
from dataclasses import dataclass
from typing import Any

# An adapter's ``unscorable`` event for a run whose agent never asked the model: run/unscorable.py
# makes it a run error, never graded, and stops a suite whose every run so far ended so.
from skill_eval.model.results import NO_MODEL_REQUEST  # noqa: F401 (the adapters' name for it)

_AUTH_STATUS = (401, 403)
# Connection failures Claude Code may retry before we give up (unless CLAUDE_CODE_MAX_RETRIES
# is set: then the CLI's own limit holds), and Codex "waiting for network" notices.
CLAUDE_CONNECT_RETRIES = 3
CODEX_NETWORK_WAITS = 2
CLAUDE_DEFAULT_URL = "https://api.anthropic.com"

CODEX_DEFAULT_URL = "https://api.openai.com/v1"


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


def probe(url: str, timeout: float = 3.0) -> str:
    """Why a TCP connection to ``url``'s host fails right now, in a few words."""
    return _probe(url, timeout)[1]


def refused(url: str) -> str | None:
    """The probe's words when ``url`` plainly cannot be reached (connection refused, no such
    host), so waiting longer is pointless; None when it answers, is slow or fails otherwise."""
    plain, why = _probe(url, 3.0)
    return why if plain else None


def _probe(url: str, timeout: float) -> tuple[bool, str]:
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return True, "the URL has no valid port"
    if not host:
        return True, "the URL names no host"
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return False, "it accepts connections now: a proxy, TLS or an intermittent failure?"
    except ConnectionRefusedError:
        return True, "connection refused"
    except socket.gaierror:
        return True, f"host {host} not found"
    except TimeoutError:
        return False, f"no answer within {timeout:g} s"
    except OSError as exc:
        return False, exc.strerror or str(exc)


def unreachable(url: str | None, detail: str | None, tries: str, hint: str) -> Cause:
    """The fatal cause for an endpoint the CLI gave up on (or we gave up on for it)."""
    where = f" at {url}" if url else ""
    why = detail if detail is not None else (probe(url) if url else "connection failed")
    return Cause(f"could not reach the model API{where} ({why}) after {tries}: {hint}", fatal=True)


def _auth_hint(status: int | None) -> str:
    what = "permission denied" if status == 403 else "authentication failed"
    return f"{what} (HTTP {status})" if status else what


class ClaudeWatch(Watch):
    """Claude Code's ``api_retry`` events and its synthetic API-error messages.

    ``base_url`` is the endpoint the CLI talks to (named in the message when it cannot be
    reached); ``connect_limit`` the connection failures to accept before giving up (None: the
    CLI's own retry limit, i.e. CLAUDE_CODE_MAX_RETRIES is set).
    """

    def __init__(
        self,
        base_url: str | None = None,
        connect_limit: int | None = CLAUDE_CONNECT_RETRIES,
        part: str = "adapter",
    ) -> None:
        super().__init__()
        # part: the suite block the CLI was set up by ("adapter" or "judge"), named in the hints.
        self.key_hint = f"check ANTHROPIC_API_KEY (allow-list it in {part}: env) and ANTHROPIC_BASE_URL"
        self.net_hint = (f"check ANTHROPIC_BASE_URL ({part}: options: base_url) and that the endpoint "
                         "is up")
        self.base_url = base_url
        self.connect_limit = connect_limit
        self.connect_failures = 0

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
                # No HTTP answer at all: the endpoint is down, unreachable or refusing.
                self.connect_failures += 1
                if self.connect_limit is not None and self.connect_failures >= self.connect_limit:
                    self.last = unreachable(self.base_url, None, self._retries(), self.net_hint)
                    return self.last
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
        if ev.get("is_api_error_message") or (kind == "result" and (ev.get("api_error_status")
                                                                    or ev.get("api_error"))):
            status = ev.get("api_error_status") if isinstance(ev.get("api_error_status"), int) else None
            text = _message_text(ev)
            if status in _AUTH_STATUS or ev.get("error") == "authentication_failed":
                return self._fatal(f"{_auth_hint(status)}: {text}: {self.key_hint}")
            if ev.get("api_error") == "connection_failed" or (
                    status is None and self.connect_failures and _CONNECT_TEXT.match(text)):
                # (2.1.245 says so only in its text: "API Error: Connection refused ...")
                # The CLI gave up itself (CLAUDE_CODE_MAX_RETRIES): its text names the reason.
                self.last = unreachable(self.base_url, text.removeprefix("API Error: "), self._retries(),
                                        self.net_hint)
                return self.last
            self.last = Cause(f"model API error{f' (HTTP {status})' if status else ''}: {text}")
        return None

    def _retries(self) -> str:
        n = self.connect_failures
        return f"{n} {'retry' if n == 1 else 'retries'}"

    def _fatal(self, message: str) -> Cause:
        self.last = Cause(message, fatal=True)
        return self.last


_CONNECT_TEXT = re.compile(r"API Error: (?:Connection|Unable to connect)")


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

    def __init__(self, key_name: str = "CODEX_API_KEY", base_url: str | None = None,
                 wait_limit: int = CODEX_NETWORK_WAITS, part: str = "adapter") -> None:
        super().__init__()
        self.part = part
        self.key_name = key_name
        self.base_url = base_url
        self.wait_limit = wait_limit
        self.network_waits = 0

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
                f"(set it and allow-list it in {self.part}: env)",
                fatal=True,
            )
            return self.last
        status = _STATUS.search(text)
        code = int(status.group(1)) if status else None
        if code in _AUTH_STATUS:
            self.last = Cause(
                f"{_auth_hint(code)}: {text.removeprefix('Reconnecting... ')}: check "
                f"{self.key_name} (allow-list it in {self.part}: env) and {self.part}: options: base_url",
                fatal=True,
            )
            return self.last
        if "waiting for network" in text:
            # Codex waits for the network forever; its notice comes after its own five tries
            # (~3 s), so a refused connection or an unknown host then is not a passing blip.
            self.network_waits += 1
            plain = refused(self.base_url) if self.base_url and self.network_waits < self.wait_limit else None
            if plain is not None or self.network_waits >= self.wait_limit:
                n = self.network_waits
                self.last = unreachable(
                    self.base_url, plain, f"{n} reconnect {'wait' if n == 1 else 'waits'} (\"{text}\")",
                    f"check {self.part}: options: base_url and that the endpoint is up")
                return self.last
        if "waiting for network" in text or "Connection failed" in text or "error sending request" in text:
            self.last = Cause(
                f"could not reach the model API ({text}): check {self.part}: options: base_url "
                "and that the endpoint is up"
            )
        else:
            self.last = Cause(text)
        return None


def explain(agent: str, done: Any, timeout: float | None) -> None:
    """Fail with the cause when the run was stopped (fatal cause, timeout, SIGTERM); else return.

    ``done`` is an agentcli.Finished.
    """
    from skill_eval.run.adapters.shared.protocol_io import AdapterFatal, fail

    cause: Cause | None = done.cause
    if cause is not None and cause.fatal:
        raise AdapterFatal(f"{agent}: {cause.message}")
    why = f": {cause.message}" if cause is not None else ""
    if done.terminated:
        fail(f"{agent} was stopped from outside (the suite's timeout_seconds?) before it finished{why}")
    if done.timed_out:
        fail(f"{agent} did not finish within {timeout:g} s and was stopped{why}")
