"""Secret redaction: the one rule applied to every byte the tool writes.

Outputs, kept files (text and undecodable bytes alike), stderr, error messages, events, usage
keys, grades and their evidence, judge requests and verdicts, every results/ file: all pass
through here before they reach disk. A secret becomes a typed marker ``[REDACTED:<kind>]``
(``api-key``, ``bearer``, ``aws-key``, ``password``, ``private-key``, ``cookie``, ``token``,
``secret``, ``credential``, ``auth``, ``env:NAME``), so a reader sees what leaked without seeing it.

Structure survives redaction: a JSON document (a session line, a kept ``.json`` file, a JSON
text held in a string of meta.json) has its strings and keys redacted one by one and written
back in place (store/jsontext.py), so it parses again with the same shape; other text is
redacted by a rule that never takes a quote or an escape for part of a secret.

One precompiled alternation scans the text once. Patterns are anchored on shapes that real
secrets have (a known prefix, a ``key = value`` assignment, a PEM block, a URL's userinfo) so
ordinary prose such as "the bearer of bad news" or "input_tokens: 120" survives untouched.

The values of the environment variables a suite passes to its adapter or judge (its ``env:``
allow-lists and a builtin's own keys) are secrets whatever their shape: ``register_env`` adds
them once per process, and every later ``redact`` replaces them wherever they appear. This is
process state on purpose: a value in the environment is a secret for every sink alike, and a
sink that forgot to be handed a list is exactly the leak this module exists to prevent.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Any

from skill_eval.store.jsontext import (
    first_line_parses,
    looks_like_json,
    redact_document,
    redact_lines,
    unique_keys,
)

MARKER_PREFIX = "[REDACTED"
ENV_MIN_LENGTH = 8  # shorter values ("1", "true", "en_US") would redact ordinary words


# A marker in redacted text: what `no_secrets` counts.
MARKER = re.compile(r"\[REDACTED:([A-Za-z0-9_:.-]+)\]")


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# Names whose value is a secret. Matched as the whole tail of an identifier, so GITHUB_TOKEN
# and db_password count while input_tokens and token_count do not.
_NAME = (r"(?:[A-Za-z0-9_.-]*?[_.-])?"
         r"(?:api[_-]?key|apikey|token|passw(?:or)?d|secret(?:[_-]?key)?|credentials?"
         r"|access[_-]?key(?:[_-]?id)?|private[_-]?key|authorization|auth|cookie)")

# What a secret that runs "to the end of the line" may span. Results files are JSON, and the
# review page's data is one JSON line: there a string ends at a '"' followed by JSON's
# punctuation, and a line break or a quote inside it is an escape. Spanning either would eat
# the file's structure with the secret (a prompt saying "Cookie: a=b" broke case.json); a
# quoted cookie value in plain text (c="v"; d=e) is still spanned.
_JSON_END = r'[ \t]*(?:[,}\]:\r\n]|\Z)'  # what follows a quote that closes a JSON string
_IN_LINE = (r'(?:[^\r\n"\\]|"(?!' + _JSON_END + r')|\\["\\/tbf]|\\u[0-9A-Fa-f]{4}'
            r'|\\(?![nrtbfu"\\/]))')

_SOURCE = (
    # PEM private keys: the whole block, whatever the key type (in JSON its line breaks are \n).
    r"(?P<pem>-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[^\"\\]|\\[nr])*?-----END [A-Z0-9 ]*PRIVATE KEY-----)"
    # Cookie headers: every name=value pair to the end of the line.
    r"|(?P<cookie>\b(?:set-)?cookie\s*:[ \t]*)(?=" + _IN_LINE + r"*=)" + _IN_LINE + r"+"
    # A password in a URL's userinfo: scheme://user:password@host.
    r"|(?P<url>\b[a-z][a-z0-9+.-]*://[^\s:/@\"'<>]+:)(?P<urlpass>[^\s/@\"'<>]+)(?=@)"
    # Bearer tokens; the lookahead wants a digit or symbol so "Bearer instrument" is prose.
    r"|(?P<bearer>\b[Bb]earer\s+)(?=[A-Za-z0-9._~+/=-]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}"
    # Well-known token prefixes.
    r"|(?P<aws>\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)"
    r"|(?P<prefixed>\b(?:sk-ant-[A-Za-z0-9_-]{8,}|sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abpors]-[A-Za-z0-9-]{8,}))"
    # key = value / key: value / "key": "value". With '=' or quotes any value is a secret;
    # a bare 'key: word' must look like a credential (8+ chars, or has a digit/symbol).
    # Quoted values may hold escaped quotes (JSON's \") and the other quote character.
    # A name right after a path separator is a file's name (../../etc/passwd: ...), not a key.
    r"|(?P<assign>(?<![/\\])\b(?P<name>" + _NAME + r")[\"']?\s*(?P<op>[:=])\s*)"
    r"(?:\\\"(?P<edq>(?:[^\"\\\r\n]|\\[^\"\r\n])+)\\\""
    r"|\"(?!" + _JSON_END + r")(?P<dq>(?:[^\"\\\r\n]|\\.)+)\""
    r"|'(?P<sq>(?:[^'\"\\\r\n]|\"(?!" + _JSON_END + r")|\\.)+)'"
    r"|(?P<scheme>(?:bearer|basic|token)\s+)?(?P<val>[^\s\"',;)}\]\\{\[][^\s\"',;)}\]\\]*))"
)
_FLAGS = re.IGNORECASE | re.DOTALL

# A megabyte page costs the alternation above a second: it tries every branch at every
# position. Every match holds, per branch (the first group it opens), one of these words
# (case-insensitive), with only _LEAD characters between the match's start and the word; so
# texts are scanned for the words with str.find and the pattern is tried only from the few
# positions they allow (_scan). That is cheaper for short texts too: an 800-byte grade takes
# the pattern 370 us and the scan 50. A new branch needs its words here: a test counts them.
TRIGGERS = {
    "pem": ("-----begin",), "cookie": ("cookie",), "url": ("://",), "bearer": ("bearer",),
    "aws": ("akia", "asia"),
    "prefixed": ("sk-", "aiza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox"),
    "assign": ("key", "token", "passw", "secret", "credential", "auth", "cookie"),
}
_WORDS = tuple(sorted({w for words in TRIGGERS.values() for w in words}))
# What may stand between a match's start and its word (a name's prefix, a URL's scheme, "set-"),
# with the non-ASCII letters IGNORECASE folds onto ASCII ones (dotted/dotless i, long s, Kelvin).
_LEAD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-"
                  "\u0130\u0131\u017f\u212a")


@cache
def _pattern(ascii_only: bool = False) -> re.Pattern[str]:
    """The alternation, compiled on first use (6 ms: a no-op ``run`` or ``status`` never needs
    it). ``ascii_only``: for bytes that are not UTF-8, decoded as latin-1 (one char per byte, so
    offsets and every other byte survive), matched with ASCII classes as the secret shapes are
    ASCII."""
    return re.compile(_SOURCE, _FLAGS | (re.ASCII if ascii_only else 0))


def _scan(pattern: re.Pattern[str], text: str) -> str:
    """``pattern.sub(_replace, text)``, trying the pattern only where a match can start."""
    low = text.lower()
    if len(low) != len(text) or "\u0131" in low or "\u017f" in low:
        # A letter whose lower case is not where IGNORECASE would see the word.
        return pattern.sub(_replace, text)
    starts: set[int] = set()
    for word in _WORDS:
        at = low.find(word)
        while at >= 0:
            starts.add(at)
            at = low.find(word, at + 1)
    out: list[str] = []
    done = pos = 0  # text[:done] is written out; no match starts in [done, pos)
    for word_at in sorted(starts):
        if word_at < pos:
            continue  # inside the last match
        first = word_at
        while first > pos and text[first - 1] in _LEAD:
            first -= 1
        m = None
        for start in range(first, word_at + 1):
            m = pattern.match(text, start)
            if m is not None:
                break
        if m is None:
            pos = word_at + 1
            continue
        out.append(text[done:m.start()])
        out.append(_replace(m))
        done = pos = m.end()
    out.append(text[done:])
    return "".join(out)


def _name_kind(name: str) -> str:
    n = name.lower()
    if "passw" in n:
        return "password"
    if "cookie" in n:
        return "cookie"
    if "private" in n:
        return "private-key"
    if "access" in n:
        return "aws-key"
    if "api" in n:
        return "api-key"
    if "secret" in n:
        return "secret"
    if "credential" in n:
        return "credential"
    if "token" in n:
        return "token"
    return "auth"


def _replace(m: re.Match[str]) -> str:
    if m.group("pem"):
        return marker("private-key")
    if m.group("cookie"):
        return m.group("cookie") + marker("cookie")
    if m.group("url"):
        return m.group("url") + marker("password")
    if m.group("bearer"):
        return m.group("bearer") + marker("bearer")
    if m.group("aws"):
        return marker("aws-key")
    if m.group("prefixed"):
        return marker("api-key")
    head = m.group("assign")
    kind = _name_kind(m.group("name"))
    for quote, group in (('\\"', "edq"), ('"', "dq"), ("'", "sq")):
        value = m.group(group)
        if value is not None:
            if _is_marker(value):
                return m.group(0)
            return f"{head}{quote}{marker(kind)}{quote}"
    value = m.group("val")
    if m.string.startswith(MARKER_PREFIX, m.start("val")):
        return m.group(0)  # already redacted: keep redact() idempotent
    scheme = m.group("scheme") or ""
    if not scheme and m.group("op") == ":" and _looks_like_prose(value):
        return m.group(0)
    if scheme.strip().lower() == "bearer":
        kind = "bearer"
    # After a quoted name ("pin": 1234, a JSON or YAML number) the marker is quoted the same way,
    # so what held a number still parses.
    quote = head[m.end("name") - m.start()] if head[m.end("name") - m.start()] in "\"'" else ""
    return head + scheme + (quote + marker(kind) + quote if quote and not scheme else marker(kind))


def _is_marker(value: str) -> bool:
    return value.startswith(MARKER_PREFIX) and value.endswith("]")


def _looks_like_prose(value: str) -> bool:
    # "token: always", "password: required" read as prose; "password: hunter2" does not.
    return value.isalpha() and len(value) < 8 or value.istitle() and value.isalpha()


# -- environment values ---------------------------------------------------------------------

_env_lock = threading.Lock()
_env_values: dict[str, str] = {}  # value -> variable name
_env_pattern: re.Pattern[str] | None = None
_env_latin1: tuple[re.Pattern[str], dict[str, str]] | None = None  # the same, for latin-1 text


def secret_env_names(allow_listed: Iterable[str], builtin: Iterable[str]) -> list[str]:
    """Which variables hold secrets: everything the user allow-listed, and those of a builtin's
    own names that name a secret (OPENAI_API_KEY, not OPENAI_BASE_URL)."""
    allowed = list(allow_listed)
    return allowed + [n for n in builtin if n not in allowed and is_secret_name(n)]


def register_env(names: Iterable[str], environ: dict[str, str] | None = None) -> None:
    """Treat the current values of ``names`` (8+ characters) as secrets from now on."""
    global _env_pattern, _env_latin1
    environ = dict(os.environ) if environ is None else environ
    with _env_lock:
        added = False
        for name in names:
            value = environ.get(name)
            if value and len(value) >= ENV_MIN_LENGTH and value not in _env_values:
                _env_values[value] = name
                added = True
        if added:
            # Longest first, so a value containing another is replaced whole.
            values = sorted(_env_values, key=len, reverse=True)
            _env_pattern = re.compile("|".join(re.escape(v) for v in values))
            # The same values as they read in bytes decoded as latin-1 (files that are not UTF-8).
            latin = {v.encode("utf-8").decode("latin-1"): n for v, n in _env_values.items()}
            _env_latin1 = (re.compile("|".join(re.escape(v) for v in sorted(latin, key=len, reverse=True))),
                           latin)


def _env_sub(text: str, latin1: bool = False) -> str:
    pattern = _env_pattern
    if pattern is None:
        return text
    if latin1 and _env_latin1 is not None:
        pat, back = _env_latin1
        return pat.sub(lambda m: marker("env:" + back[m.group(0)]), text)
    return pattern.sub(lambda m: marker("env:" + _env_values[m.group(0)]), text)


# -- the API ----------------------------------------------------------------------------------

def redact(text: str) -> str:
    """``text`` with every secret replaced by its typed marker ``[REDACTED:<kind>]``. A JSON
    document, or JSON lines, keeps its structure: its strings are redacted one by one and
    written back (store/jsontext.py), a value under a secret-named key becomes its marker; other
    text takes the rule as text, which never spans a quote or an escape it cannot keep whole."""
    if not text:
        return text
    if looks_like_json(text):
        done = redact_document(text, redact, _key_secret, _marks)
        if done is not None:
            return done
        if "\n" in text and first_line_parses(text):
            return redact_json_lines(text)
    return _redact_plain(text)


def redact_json_lines(text: str) -> str:
    """JSON lines (a kept session): each line that is JSON keeps its structure (as ``redact``
    keeps a document's); the lines that are not are redacted as text."""
    return redact_lines(text, redact, _key_secret, _marks, _redact_plain)


def _redact_plain(text: str) -> str:
    return _scan(_pattern(), _env_sub(text))


def _marks(text: str) -> list[int] | None:
    """Where a secret could be in ``text``: every word of the rule (as ``_scan`` finds them), every
    backslash (an escape hides what its string holds), every registered env value; None when a
    letter's lower case moves offsets (then anywhere)."""
    low = text.lower()
    if len(low) != len(text) or "\u0131" in low or "\u017f" in low:
        return None
    at: list[int] = []
    for word in (*_WORDS, "\\"):
        n = low.find(word)
        while n >= 0:
            at.append(n)
            n = low.find(word, n + 1)
    if _env_pattern is not None:
        at += [m.start() for m in _env_pattern.finditer(text)]
    return sorted(at)


# A JSON key that names a secret, as the text rule reads one before its ':' ("db_password",
# "Authorization"; not "input_tokens", not a file's name such as "a/token").
_SECRET_KEY = re.compile(r"(?<![/\\])\b(?:" + _NAME + r")\s*\Z", re.IGNORECASE)


def _key_secret(key: str) -> str | None:
    """The marker a value under ``key`` becomes, or None when ``key`` names no secret."""
    m = _SECRET_KEY.search(key)
    return marker(_name_kind(m.group(0))) if m else None


def redact_bytes(data: bytes) -> bytes:
    """The same rule for a file's bytes: UTF-8 text is redacted as text; anything else has the
    patterns applied to its bytes, every other byte left exactly as it was."""
    if not data:
        return data
    try:
        return redact(data.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        return _scan(_pattern(True), _env_sub(text, latin1=True)).encode("latin-1")


def count_markers(text: str) -> Counter[str]:
    """How many secrets of each kind a redacted text held (``env:NAME`` counts as ``env:NAME``)."""
    return Counter(m.group(1) for m in MARKER.finditer(text))


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
        return _redact_dict(obj, _blank_or_redact)
    if isinstance(obj, list | tuple):
        return [redact_obj(v) for v in obj]
    return obj


def _blank_or_redact(key: Any, value: Any) -> Any:
    if isinstance(key, str) and is_secret_name(key) and value not in (None, ""):
        return marker(_name_kind(key))
    return redact_obj(value)


def redact_json(obj: Any) -> Any:
    """A copy of a JSON-like value with every string, keys included, redacted (no key blanked:
    for the tool's own records, whose keys are its own names)."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return _redact_dict(obj, lambda _k, v: redact_json(v))
    if isinstance(obj, list | tuple):
        return [redact_json(v) for v in obj]
    return obj


def _redact_dict(obj: dict[Any, Any], value: Any) -> dict[Any, Any]:
    """``obj`` with its keys redacted, kept apart (jsontext.unique_keys), and ``value(k, v)``."""
    pairs = [(k, redact(k)) if isinstance(k, str) else (k, k) for k in obj]
    keys = unique_keys(pairs)
    return {new: value(old, v) for new, (old, _), v in zip(keys, pairs, obj.values(), strict=True)}
