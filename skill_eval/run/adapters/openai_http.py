"""The HTTP side of the OpenAI-compatible adapter: one chat-completions POST with retries (429 and
5xx answers and network errors, exponential backoff honouring Retry-After, all within one
deadline) and the server's own error message on failure. Stdlib only, like the adapter.
"""

from __future__ import annotations

import email.utils
import json
import time
import urllib.error
import urllib.request
from typing import Any

from skill_eval.run.adapters.shared.protocol_io import fail, one_line

USER_AGENT = "skill-eval-openai-compat/1"
_BACKOFF_BASE = 0.5
_BACKOFF_MAX = 20.0


class Client:
    def __init__(self, base_url: str, api_key: str | None, timeout: float):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key = api_key
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.requests = 0

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": USER_AGENT}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode("utf-8")
        attempt = 0
        while True:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                fail(f"no answer from {self.url} within {self.timeout:g} s")
            attempt += 1
            self.requests += 1
            req = urllib.request.Request(self.url, data=data, headers=self._headers(), method="POST")
            retry_after: float | None = None
            try:
                with urllib.request.urlopen(req, timeout=remaining) as resp:
                    raw = resp.read()
                try:
                    answer = json.loads(raw)
                except json.JSONDecodeError:
                    start = one_line(raw.decode("utf-8", "replace"), 200)
                    fail(f"{self.url} answered with non-JSON: {start!r}")
                if not isinstance(answer, dict):
                    fail(f"{self.url} answered with a JSON {type(answer).__name__}, not an object")
                return answer
            except urllib.error.HTTPError as exc:
                message = _server_message(exc)
                problem = f"HTTP {exc.code} from {self.url}: {message}"
                if exc.code != 429 and exc.code < 500:
                    fail(problem)
                retry_after = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
            except urllib.error.URLError as exc:
                problem = f"cannot reach {self.url}: {exc.reason}"
            except (TimeoutError, ConnectionError, OSError) as exc:
                problem = f"cannot reach {self.url}: {exc}"
            delay = (
                retry_after
                if retry_after is not None
                else min(_BACKOFF_MAX, _BACKOFF_BASE * 2 ** (attempt - 1))
            )
            if time.monotonic() + delay >= self.deadline:
                fail(f"gave up after {attempt} attempt(s) within {self.timeout:g} s; last: {problem}")
            time.sleep(delay)


def _server_message(exc: urllib.error.HTTPError) -> str:
    try:
        raw = exc.read()
    except Exception:
        raw = b""
    text = raw.decode("utf-8", "replace")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, dict):
        err = obj.get("error")
        if isinstance(err, dict) and err.get("message"):
            return one_line(str(err["message"]))
        if isinstance(err, str):
            return one_line(err)
        if obj.get("message"):
            return one_line(str(obj["message"]))
    return one_line(text) if text.strip() else (exc.reason or "no message")


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())
