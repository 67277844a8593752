"""Secret redaction applied to everything a run persists (outputs, stderr, error messages).

One precompiled alternation scans the text once. Patterns are anchored on shapes that real
secrets have (a known prefix, a ``key = value`` assignment, a PEM block) so ordinary prose such
as "the bearer of bad news" or "input_tokens: 120" survives untouched.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[REDACTED]"

# Names whose value is a secret. Matched as the whole tail of an identifier, so GITHUB_TOKEN
# and db_password count while input_tokens and token_count do not.
_NAME = (r"(?:[A-Za-z0-9_.-]*?[_.-])?"
         r"(?:api[_-]?key|apikey|token|passw(?:or)?d|secret(?:[_-]?key)?|credentials?"
         r"|access[_-]?key(?:[_-]?id)?|private[_-]?key|authorization|auth)")

_PATTERN = re.compile(
    # PEM private keys: the whole block, whatever the key type.
    r"(?P<pem>-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----)"
    # Bearer tokens; the lookahead wants a digit or symbol so "Bearer instrument" is prose.
    r"|(?P<bearer>\b[Bb]earer\s+)(?=[A-Za-z0-9._~+/=-]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}"
    # Well-known token prefixes.
    r"|(?P<prefixed>\b(?:sk-ant-[A-Za-z0-9_-]{8,}|sk-[A-Za-z0-9_-]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|AKIA[0-9A-Z]{16}|xox[abpors]-[A-Za-z0-9-]{8,}))"
    # key = value / key: value / "key": "value". With '=' or quotes any value is a secret;
    # a bare 'key: word' must look like a credential (8+ chars, or has a digit/symbol).
    r"|(?P<assign>\b" + _NAME + r"[\"']?\s*(?P<op>[:=])\s*)"
    r"(?:(?P<q>[\"'])(?P<qval>[^\"'\r\n]+)(?P=q)"
    r"|(?P<scheme>(?:bearer|basic|token)\s+)?(?P<val>[^\s\"',;)}\]]+))",
    re.IGNORECASE | re.DOTALL,
)

def _replace(m: re.Match[str]) -> str:
    if m.group("pem"):
        return REDACTED
    if m.group("bearer"):
        return m.group("bearer") + REDACTED
    if m.group("prefixed"):
        return REDACTED
    head = m.group("assign")
    if m.group("q"):
        return f"{head}{m.group('q')}{REDACTED}{m.group('q')}"
    value = m.group("val")
    if m.string.startswith(REDACTED, m.start("val")):
        return m.group(0)  # already redacted: keep redact() idempotent
    scheme = m.group("scheme") or ""
    if not scheme and m.group("op") == ":" and _looks_like_prose(value):
        return m.group(0)
    return head + scheme + REDACTED


def _looks_like_prose(value: str) -> bool:
    # "token: always", "password: required" read as prose; "password: hunter2" does not.
    return value.isalpha() and len(value) < 8 or value.istitle() and value.isalpha()


def redact(text: str) -> str:
    """``text`` with every secret-shaped substring replaced by ``[REDACTED]``."""
    if not text:
        return text
    return _PATTERN.sub(_replace, text)


_SECRET_KEYS = ("api_key", "apikey", "token", "secret", "password", "passwd", "private_key",
                "access_key", "secret_key", "authorization", "credentials", "credential", "cookie",
                "auth")


def is_secret_name(name: str) -> bool:
    """Whether a JSON key names a secret (``x-api-key``, ``GITHUB_TOKEN``; not ``input_tokens``)."""
    n = name.lower().replace("-", "_")
    return any(n == s or n.endswith("_" + s) for s in _SECRET_KEYS)


def redact_obj(obj: Any) -> Any:
    """A copy of a JSON-like value with secret-named keys blanked and every string redacted."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {k: (REDACTED if isinstance(k, str) and is_secret_name(k) and v not in (None, "")
                    else redact_obj(v)) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [redact_obj(v) for v in obj]
    return obj
