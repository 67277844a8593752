"""One request to an Anthropic Messages API endpoint (``POST <base>/v1/messages``), as the
claude-code judge makes each vote: a system text, the messages, no tools, one reply.

Failures are worded for the judge: a rejected key, an unknown model and an endpoint that cannot
be reached are ``JudgeFatal`` (every call would fail the same way); a request the endpoint
refused, a timeout or an answer that is not a message are ``JudgeError``. Overload and server
errors (429, 5xx) are retried a few times with a growing pause, as an SDK would.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from skill_eval.errors import JudgeError, JudgeFatal
from skill_eval.run.adapters.shared.failure_causes import unreachable

API_VERSION = "2023-06-01"
MAX_TOKENS = 16000  # a vote is one word, a batch of verdicts a short JSON object
_RETRIED = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
_ATTEMPTS = 4
_USAGE = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


@dataclass(frozen=True)
class Endpoint:
    """Where and as whom: the base URL, and the key (``x-api-key``) or bearer token."""

    base_url: str
    api_key: str | None
    auth_token: str | None = None
    who: str = "judge"

    def headers(self) -> dict[str, str]:
        out = {"content-type": "application/json", "anthropic-version": API_VERSION,
               "user-agent": "skill-eval-judge"}
        if self.api_key:
            out["x-api-key"] = self.api_key
        elif self.auth_token:
            out["authorization"] = f"Bearer {self.auth_token}"
        return out


def ask(endpoint: Endpoint, model: str, system: str, messages: list[dict[str, str]],
        timeout: float) -> tuple[str, dict[str, float]]:
    """The reply's text and its usage as billed (tokens; ``model/<served>/…`` per model)."""
    if not endpoint.api_key and not endpoint.auth_token:
        raise JudgeFatal(f"{endpoint.who} cannot judge: no ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) "
                         "in its environment; list it in judge.env and set it")
    body = json.dumps({"model": model, "max_tokens": MAX_TOKENS, "system": system,
                       "messages": messages}).encode("utf-8")
    url = endpoint.base_url.rstrip("/") + "/v1/messages"
    deadline = time.monotonic() + timeout
    for attempt in range(_ATTEMPTS):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        request = urllib.request.Request(url, data=body, headers=endpoint.headers(), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=left) as response:
                return _reply(endpoint.who, response.read())
        except urllib.error.HTTPError as exc:
            detail = _error_text(exc)
            if exc.code in (401, 403):
                what = "permission denied" if exc.code == 403 else "authentication failed"
                raise JudgeFatal(f"{endpoint.who} cannot judge: {what} (HTTP {exc.code}): {detail}; "
                                 "check ANTHROPIC_API_KEY (allow-list it in judge: env)") from None
            if exc.code == 404:
                raise JudgeFatal(f"{endpoint.who} cannot judge: {url} answered HTTP 404 for model "
                                 f"{model!r}: {detail}") from None
            if exc.code not in _RETRIED or attempt == _ATTEMPTS - 1:
                raise JudgeError(f"{endpoint.who}: {url} answered HTTP {exc.code}: {detail}") from None
            _pause(attempt, exc.headers.get("retry-after"), deadline)
        except TimeoutError:
            break
        except (urllib.error.URLError, ConnectionError, OSError) as exc:
            if isinstance(getattr(exc, "reason", exc), TimeoutError):
                break
            if attempt == _ATTEMPTS - 1:
                cause = unreachable(endpoint.base_url, None, f"{attempt} retries",
                                    "check ANTHROPIC_BASE_URL (judge: options: base_url)")
                raise JudgeFatal(f"{endpoint.who} cannot judge: {cause.message}") from None
            _pause(attempt, None, deadline)
    raise JudgeError(f"{endpoint.who} timed out after {timeout:g}s (raise judge.timeout_seconds)")


def _pause(attempt: int, retry_after: str | None, deadline: float) -> None:
    try:
        wait = float(retry_after) if retry_after else 0.5 * 2 ** attempt
    except ValueError:
        wait = 0.5 * 2 ** attempt
    time.sleep(max(0.0, min(wait, 8.0, deadline - time.monotonic())))


def _error_text(exc: urllib.error.HTTPError) -> str:
    try:
        data = json.loads(exc.read().decode("utf-8", "replace"))
        message = data.get("error", {}).get("message") if isinstance(data, dict) else None
    except (ValueError, OSError, AttributeError):
        message = None
    return " ".join(str(message or exc.reason).split())[:300]


def _reply(who: str, raw: bytes) -> tuple[str, dict[str, float]]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise JudgeError(f"{who}: the model endpoint answered something that is not JSON") from None
    content = data.get("content") if isinstance(data, dict) else None
    if not isinstance(content, list):
        raise JudgeError(f"{who}: the model endpoint's answer has no message content")
    text = "".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                   and isinstance(b.get("text"), str))
    raw_usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    usage: dict[str, float] = {}
    served = data.get("model") if isinstance(data.get("model"), str) else None
    for key in _USAGE:
        value = raw_usage.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            usage[key] = value
            if served:
                usage[f"model/{served}/{key}"] = value
    return text, usage
