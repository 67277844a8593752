"""Texts are redacted by a word-guided scan (store/redact.py ``_scan``: the pattern is tried only
where one of its words stands): it must give exactly what one pass of the pattern gives, for any
text, long (a page) or short (a results file)."""

from __future__ import annotations

import re._parser

import pytest
from budgets import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.store import redact as r
from tests.test_redact import SECRETS

_PIECES = [s for s, _ in SECRETS] + [
    "input_tokens: 120", "the bearer of bad news", "Cookie: a=b; c=d", "set-cookie: x=1",
    "https://user:hunter22@example.org/x", '"password": "[REDACTED:password]"', "AUTH = 'x'",
    "MY_TOKEN=abc123", "ssh://u:p@h", "Bearer  tok.en-1234", "ſecret: x1y2z3w4", "İ", "ı", "K",
    "\u212aEY=abcdef12", "passwd=\\\"quoted\\\"", "api-key\n  :\n value9", "ASIA1234567890ABCDEF",
    "AIza" + "x" * 35, "sk-" + "a" * 20, "-----BEGIN RSA PRIVATE KEY-----\nabc",
    "-----END RSA PRIVATE KEY-----",
    "\n", " ", "=", ":", '"', "'", "_", "-", ".", "é", "\x00", "<b>", "{", "}",
]
_text = st.lists(st.sampled_from(_PIECES) | st.text(max_size=6), max_size=40).map("".join)


def _plain(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(r._replace, text)


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(_text, st.integers(0, 3000))
def test_the_scan_is_exactly_one_pass_of_the_pattern(text: str, pad: int) -> None:
    long = "x" * pad + text + " filler" * 300
    assert r._scan(r._pattern(), long) == _plain(r._pattern(), long)
    latin = long.encode("utf-8", "replace").decode("latin-1")
    assert r._scan(r._pattern(True), latin) == _plain(r._pattern(True), latin)


@settings(max_examples=examples(200), deadline=None)
@given(_text)
def test_a_short_text_is_redacted_as_one_pass_of_the_pattern(text: str) -> None:
    assert r._scan(r._pattern(), text) == _plain(r._pattern(), text)
    latin = text.encode("utf-8", "replace").decode("latin-1")
    assert r._scan(r._pattern(True), latin) == _plain(r._pattern(True), latin)


def test_every_secret_is_found_in_a_long_text() -> None:
    for secret, fragment in SECRETS:
        page = "<p>ordinary words</p>\n" * 200 + secret + "\n<p>more</p>" * 200
        assert fragment not in r.redact(page), secret


def test_every_branch_of_the_pattern_has_its_words() -> None:
    # A branch added to the pattern without words would be skipped by the scan on long texts.
    tree = re._parser.parse(r._SOURCE, r._FLAGS)
    [(op, (_, branches))] = tree.data
    assert op is re._parser.BRANCH
    names = {v: k for k, v in tree.state.groupdict.items()}
    firsts = [names[b.data[0][1][0]] for b in branches]
    assert sorted(firsts) == sorted(r.TRIGGERS)
