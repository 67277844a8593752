"""Redaction keeps JSON JSON (store/jsontext.py, store/redact.py): for any JSON value with
secrets of every known shape in any string or key, what the store writes of it (a session line,
a kept ``.json`` file, a JSON text held in a string of meta.json) parses again, with the same
shape, and holds none of the secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_eval.model.results import AdapterResponse
from skill_eval.store import redact as r
from skill_eval.store.jsontext import unique_keys
from skill_eval.store.store import Store
from tests.test_redact import PEM, SECRETS, TYPED

ENV_VALUE = "envsecret-4242-value"
# (text holding a secret, the secret), one of every kind the rules know.
SHAPES = sorted({*((t, s) for t, s, _ in TYPED), *SECRETS,
                 ('API_TOKEN="$(cat token.txt)"', "$(cat token.txt)"),
                 ('DB_PASSWORD="s3cret!"', "s3cret!"),
                 ("my_secret='x9y8z7'", "x9y8z7"),
                 ("client_credentials: c0ffee-cafe", "c0ffee-cafe"),
                 ("auth=Zm9vOmJhcg", "Zm9vOmJhcg"),
                 (f"Cookie: c=\"{'q' * 9}\"; d=e", "q" * 9),
                 ("https://u:pa55word@example.org", "pa55word"),
                 ("xoxb-123456789012-abcdefghij", "xoxb-123456789012"),
                 (f"env {ENV_VALUE} here", ENV_VALUE),
                 (PEM, "b3BlbnNzaC1rZXktdjEA")})

_prose = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_secret = st.sampled_from(SHAPES)
_holder = st.builds(lambda a, s, b: (f"{a} {s[0]} {b}", s[1]), _prose, _secret, _prose)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                    _prose)


def _doc(draw: Any, depth: int = 0) -> tuple[Any, list[str]]:
    """A JSON value and the secrets placed in it (in strings and in keys)."""
    kind = draw(st.sampled_from(["secret", "scalar", "list", "dict"] if depth < 3 else ["secret", "scalar"]))
    if kind == "secret":
        text, secret = draw(_holder)
        return text, [secret]
    if kind == "scalar":
        return draw(_scalar), []
    found: list[str] = []
    items = []
    for _ in range(draw(st.integers(0, 3))):
        value, secrets = _doc(draw, depth + 1)
        items.append(value)
        found += secrets
    if kind == "list":
        return items, found
    out = {}
    for value in items:
        if draw(st.booleans()):
            key, secret = draw(_holder)
            found.append(secret)
        else:
            key = draw(_prose)
        out[key] = value
    return out, found


docs = st.composite(lambda draw: _doc(draw))()


def _same_shape(before: Any, after: Any) -> bool:
    if isinstance(before, dict):
        return isinstance(after, dict) and len(after) == len(before) and all(
            _same_shape(b, a) for b, a in zip(before.values(), after.values(), strict=True))
    if isinstance(before, list):
        return isinstance(after, list) and len(after) == len(before) and all(
            _same_shape(b, a) for b, a in zip(before, after, strict=True))
    if isinstance(before, str):
        return isinstance(after, str)
    # A number under a secret-named key becomes its marker; nothing else changes type.
    return after == before or isinstance(after, str) and after.startswith("[REDACTED:")


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def _check(original: Any, secrets: list[str], text: str) -> None:
    parsed = json.loads(text)
    assert _same_shape(original, parsed), text
    seen = text + "\n" + "\n".join(_strings(parsed))
    for secret in secrets:
        assert secret not in seen, (secret, text)


@pytest.fixture(autouse=True)
def _env() -> None:
    r.register_env(["SKEV_JSONTEXT_SECRET"], {"SKEV_JSONTEXT_SECRET": ENV_VALUE})


@settings(max_examples=300, deadline=None)
@given(docs, st.sampled_from([{}, {"indent": 2}, {"separators": (",", ":")}, {"ensure_ascii": False}]))
def test_a_json_document_keeps_its_shape_and_loses_every_secret(doc, style):
    value, secrets = doc
    text = json.dumps(value, **style)
    out = r.redact(text)
    _check(value, secrets, out)
    assert r.redact(out) == out
    # Held as a string of the tool's own record (a recording in meta.json), it is the same.
    [held] = r.redact_json({"text": text}).values()
    _check(value, secrets, held)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(docs, min_size=1, max_size=3), docs, docs)
def test_what_the_store_writes_parses_as_it_did(tmp_path, lines, kept, recorded):
    session = "\n".join(json.dumps(v, separators=(",", ":")) for v, _ in lines)
    meta = {"mock_recordings": [{"server": "s", "text": json.dumps(recorded[0], indent=2) + "\n"}]}
    store = Store(tmp_path / "store")
    store.discard_run("k" * 64)
    result = store.put_run("k" * 64, AdapterResponse("ok"), 1.0, meta,
                           files=[("out.json", json.dumps(kept[0]).encode())], session=session)
    stored = result.session_path.read_text("utf-8").split("\n")
    assert len(stored) == len(lines)
    for (value, secrets), line in zip(lines, stored, strict=True):
        _check(value, secrets, line)
    _check(kept[0], kept[1], (result.files_dir / "out.json").read_text("utf-8"))
    [rec] = store.get_meta("k" * 64)["mock_recordings"]
    _check(recorded[0], recorded[1], rec["text"])


def test_a_quote_or_escape_is_never_taken_for_a_secret():
    command = 'API_TOKEN="$(cat token.txt)" ./deploy.sh'
    line = json.dumps({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "name": "Bash", "input": {"command": command}}]}})
    out = r.redact(line)
    assert json.loads(out)["message"]["content"][0]["input"]["command"] == \
        'API_TOKEN="[REDACTED:api-key]" ./deploy.sh'
    # As text (a JSON fragment inside a log line), the escaped quotes stay whole too.
    assert r.redact('log: {"command":"API_TOKEN=\\"$(cat t)\\" x"}') == \
        'log: {"command":"API_TOKEN=\\"[REDACTED:api-key]\\" x"}'


def test_a_secret_named_key_takes_its_value_and_keys_stay_apart():
    out = json.loads(r.redact('{"db_password": "plain", "pin_token": 1234, "token=a": 1, "token=b": 2,'
                              ' "input_tokens": 5, "auth": true, "a/token": "file"}'))
    assert out == {"db_password": "[REDACTED:password]", "pin_token": "[REDACTED:token]",
                   "token=[REDACTED:token]": 1, "token=[REDACTED:token] (2)": 2, "input_tokens": 5,
                   "auth": True, "a/token": "file"}
    assert unique_keys([("a", "x"), ("b", "x"), ("x", "x"), ("a", "x")]) == ["x (2)", "x (3)", "x", "x (2)"]
    # The tool's own records (meta.json, grades) keep every member alike.
    assert r.redact_json({"token=a": 1, "token=b": [2]}) == {"token=[REDACTED:token]": 1,
                                                             "token=[REDACTED:token] (2)": [2]}


def test_json_lines_with_a_line_that_is_not_json_keep_the_others():
    text = '{"a": "password=hunter22"}\n' + PEM + '\n{"b": 1}'
    out = r.redact(text).split("\n")
    assert json.loads(out[0]) == {"a": "password=[REDACTED:password]"}
    assert out[1] == "[REDACTED:private-key]" and json.loads(out[2]) == {"b": 1}


def test_a_kept_json_file_keeps_its_layout(tmp_path: Path):
    text = '{\n  "token": "abc123",\n  "list": [1,2]\n}\n'
    assert r.redact_bytes(text.encode()) == b'{\n  "token": "[REDACTED:token]",\n  "list": [1,2]\n}\n'


@settings(max_examples=300, deadline=None)
@given(docs, st.sampled_from([{}, {"indent": 2}, {"separators": (",", ":")}]))
def test_json_redacted_as_text_stays_json(doc, style):
    """Where JSON is not known to be JSON (a fragment in a log line, a text cut short), the rule
    for text never takes a quote or an escape for part of a secret: the JSON still parses."""
    value, secrets = doc
    out = r._redact_plain(json.dumps(value, **style))
    parsed = json.loads(out)
    assert _same_shape(value, parsed), out
    assert r._redact_plain(out) == out
