import json

import pytest

from skill_eval.run.runner import execute
from skill_eval.store.redact import MARKER_PREFIX, is_secret_name, redact, redact_obj
from skill_eval.store.store import Store

PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "AAAAMwAAAAtzc2gtZWQyNTUxOQ\n-----END OPENSSH PRIVATE KEY-----")

SECRETS = [
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "eyJhbGciOiJIUzI1NiJ9"),
    ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='", "dXNlcjpwYXNzd29yZA"),
    ("bearer abcdef123456", "abcdef123456"),
    ("api_key=abcd1234", "abcd1234"),
    ("export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234", "sk-proj-abcdefghijklmnop1234"),
    ("password: hunter2", "hunter2"),
    ("DB_PASSWORD = 'correct horse battery staple'", "correct horse"),
    ('{"api_key": "xyzzy-plugh"}', "xyzzy-plugh"),
    ("token=t0k3n", "t0k3n"),
    ("client_secret: 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
    ("key sk-ant-api03-AbCdEfGhIjKlMnOp in text", "sk-ant-api03-AbCdEfGhIjKlMnOp"),
    ("ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "ghp_ABCDEFGHIJKLMNOPQRSTUV"),
    ("gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "gho_ABCDEFGHIJKLMNOPQRSTUV"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG"),
    ("aws AKIAIOSFODNN7EXAMPLE key", "AKIAIOSFODNN7EXAMPLE"),
    ("slack xoxb-123456789012-abcdefghij", "xoxb-123456789012"),
    (f"key:\n{PEM}\nend", "b3BlbnNzaC1rZXktdjEA"),
]

PROSE = [
    "The bearer of bad news arrived.",
    "Bearer instrument is a legal term.",
    "input_tokens: 1234, output_tokens: 56",
    "max_tokens=100",
    "token: always rotate them",
    "The password: Required field.",
    "We split the task-based sk-learn pipeline.",
    "feat(auth): add login page",
    "The secret to good commits is small diffs.",
    "Use the API key from your dashboard.",
    "",
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_secret_shapes_are_redacted(text, secret):
    out = redact(text)
    assert secret not in out
    assert MARKER_PREFIX + ":" in out


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_untouched(text):
    assert redact(text) == text


def test_redact_is_idempotent():
    for text, _ in SECRETS:
        once = redact(text)
        assert redact(once) == once


def test_redact_obj_blanks_secret_keys_and_keeps_usage():
    obj = {"api_key": "plain", "headers": {"Authorization": "whatever", "X-Api-Key": "k"},
           "usage": {"input_tokens": 10, "cost_usd": 0.1}, "list": ["password=abc123", 3],
           "token": None}
    out = redact_obj(obj)
    assert out["api_key"] == "[REDACTED:api-key]"
    assert out["headers"] == {"Authorization": "[REDACTED:auth]", "X-Api-Key": "[REDACTED:api-key]"}
    assert out["usage"] == {"input_tokens": 10, "cost_usd": 0.1}
    assert out["list"] == ["password=[REDACTED:password]", 3]
    assert out["token"] is None
    assert not is_secret_name("input_tokens") and is_secret_name("GITHUB_TOKEN")


def test_no_secret_reaches_disk_after_a_run(run_setup, write_adapter, tmp_path):
    corpus = "\n".join(text for text, _ in SECRETS)
    (tmp_path / "corpus.txt").write_text(corpus)
    script = write_adapter(
        "#!/usr/bin/env python3\n"
        "import json, sys, pathlib\n"
        "req = json.load(sys.stdin)\n"
        f"corpus = pathlib.Path({str(tmp_path / 'corpus.txt')!r}).read_text()\n"
        "pathlib.Path('outputs/notes.txt').write_text(corpus)\n"
        "sys.stderr.write(corpus)\n"
        "print(json.dumps({'output': corpus, 'events': [{'type': 'tool_call', 'name': 'token=abc123'}],"
        " 'usage': {'input_tokens': 3}}))\n", name="leaky.py")
    suite, spec = run_setup([script])
    store = Store(tmp_path / "store")
    result = execute(spec(), suite, store)
    assert result.output == redact(corpus)  # grading sees what the store keeps
    files = [p for p in store.root.rglob("*") if p.is_file()]
    assert any(p.name == "notes.txt" for p in files)
    for path in files:
        data = path.read_text("utf-8", "replace")
        for _, secret in SECRETS:
            assert secret not in data, f"{secret!r} leaked into {path}"
    assert store.get_run(result.key).output == redact(corpus)
    stored = json.loads((store.run_dir(result.key) / "response.json").read_text())
    assert stored["usage"] == {"input_tokens": 3}


TYPED = [
    ('{"api_key": "abc\\"def-ghi"}', "def-ghi", "api-key"),
    ('{"password": "it\'s-a-secret"}', "s-a-secret", "password"),
    ("Cookie: session=abc123; other=zz9", "abc123", "cookie"),
    ("Set-Cookie: id=f00ba4; Path=/", "f00ba4", "cookie"),
    ("git clone https://bob:hunter22@example.com/x.git", "hunter22", "password"),
    ("key ASIAIOSFODNN7EXAMPLE here", "ASIAIOSFODNN7EXAMPLE", "aws-key"),
    ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws-key"),
    ("maps AIzaSyA1234567890abcdefghijklmnopqrstu", "AIzaSyA1234567890", "api-key"),
    ("Authorization: Bearer abc.def.ghi123", "abc.def.ghi123", "bearer"),
    (PEM, "b3BlbnNzaC1rZXktdjEA", "private-key"),
    ("sk-ant-api03-AbCdEfGhIjKlMnOp", "AbCdEfGhIjKlMnOp", "api-key"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), TYPED)
def test_secrets_become_typed_markers(text, secret, kind):
    out = redact(text)
    assert secret not in out and f"[REDACTED:{kind}]" in out
    assert redact(out) == out


def test_prose_with_urls_and_cookies_survives():
    for text in ("see http://host:8080/path", "the cookie: always", "mailto:bob@example.com"):
        assert redact(text) == text


def test_env_values_are_redacted_everywhere_with_their_name():
    from skill_eval.store.redact import register_env

    register_env(["SKEV_TEST_PLAIN", "SKEV_TEST_SHORT"],
                 {"SKEV_TEST_PLAIN": "plainvalue-9876", "SKEV_TEST_SHORT": "abc"})
    assert redact("x plainvalue-9876y") == "x [REDACTED:env:SKEV_TEST_PLAIN]y"
    assert redact("abc stays") == "abc stays"  # under 8 characters: would redact words


def test_bytes_that_are_not_utf8_are_redacted_byte_for_byte():
    from skill_eval.store.redact import redact_bytes

    raw = b"\xff\x00 sk-ant-abcdefghijklmnop \xfe password=hunter22\n"
    out = redact_bytes(raw)
    assert b"abcdefghijklmnop" not in out and b"hunter22" not in out
    assert out.startswith(b"\xff\x00 [REDACTED:api-key] \xfe") and out.endswith(b"[REDACTED:password]\n")


def test_a_preview_is_redacted_before_it_is_cut():
    from skill_eval.errors import AdapterError
    from skill_eval.run.protocol import parse_response

    raw = ("x" * 70 + " sk-ant-abcdefghijklmnopqrstuvwxyz0123 not json").encode()
    with pytest.raises(AdapterError) as exc:
        parse_response(raw, "adapter a")
    assert "sk-ant" not in str(exc.value) and "abcdefgh" not in str(exc.value)


def test_secret_env_names_are_the_allow_list_and_builtin_keys():
    from skill_eval.store.redact import secret_env_names

    assert secret_env_names(["MY_URL"], ["OPENAI_API_KEY", "OPENAI_BASE_URL", "MY_URL"]) == [
        "MY_URL", "OPENAI_API_KEY"]


@pytest.mark.slow
def test_a_secret_never_survives_whatever_surrounds_it_and_redact_is_idempotent():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from skill_eval.store.redact import redact_bytes

    secrets = st.sampled_from([t for t, _, _ in TYPED])
    prose = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)

    @settings(max_examples=200, deadline=None)
    @given(prose, secrets, prose)
    def check(before: str, text: str, after: str) -> None:
        secret = next(s for t, s, _ in TYPED if t == text)
        whole = f"{before} {text}\n{after}"
        out = redact(whole)
        assert secret not in out
        assert redact(out) == out
        raw = b"\xff" + whole.encode("utf-8") + b"\xfe"
        assert secret.encode() not in redact_bytes(raw)

    check()


@pytest.mark.slow
def test_redacting_json_text_keeps_it_json_and_takes_out_every_secret():
    # A prompt saying "Cookie: a=b" used to eat the rest of its line: in case.json the closing
    # quote and comma, in the review page's one-line data everything after it.
    from hypothesis import given, settings
    from hypothesis import strategies as st

    secrets = st.sampled_from([t for t, _, _ in TYPED] + [f"Cookie: c=\"{'q' * 9}\"; d=e", PEM])
    prose = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
    strings = st.builds(lambda a, t, b: f"{a} {t} {b}", prose, secrets, prose)
    keys = st.sampled_from(["p", "q", "r"])
    docs = st.recursive(strings, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(keys, inner, max_size=3)),
                        max_leaves=6)

    @settings(max_examples=200, deadline=None)
    @given(docs, st.sampled_from([{"indent": 2, "sort_keys": True}, {"separators": (",", ":")}]))
    def check(doc: object, style: dict) -> None:
        text = json.dumps(doc, ensure_ascii=False, **style)
        out = redact(text)
        json.loads(out)  # still JSON, whatever the strings held
        for t, secret, _ in TYPED:
            if t in text:
                assert secret not in out

    check()


@pytest.mark.parametrize("text", [
    "refused '../../etc/passwd': '..' may not leave the run's workspace",
    "kept file secrets/token: missing",
    "C:\\keys\\api_key = see the docs",
])
def test_a_file_named_like_a_secret_is_not_a_secret(text):
    """A name after a path separator is a file's name: the evidence naming it stays readable."""
    assert redact(text) == text


def test_a_secret_assigned_after_a_path_is_still_redacted():
    assert redact("cat /etc/app.conf; password=hunter22") == "cat /etc/app.conf; password=[REDACTED:password]"
