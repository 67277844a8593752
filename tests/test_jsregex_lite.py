"""The JavaScript regex stand-in (intake/jsregex_lite.py) matches and counts as node does."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.intake.jsregex_lite import JsInvalid, JsRegexError, js_regex

NODE = shutil.which("node")
_JS = ("const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
       "process.stdout.write(JSON.stringify(cases.map(([p, f, t]) => { try { const r = new RegExp(p, f);"
       "return [r.test(t), (t.match(new RegExp(p, f.includes('g') ? f : f + 'g')) ?? []).length]; }"
       "catch (e) { return 'throw'; } })));")


def _node(cases: list[list[str]]) -> list:
    done = subprocess.run([NODE or "node", "-e", _JS], input=json.dumps(cases), capture_output=True,
                          text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def _ours(pattern: str, flags: str, text: str):
    try:
        rx = js_regex(pattern, flags)
    except JsInvalid:
        return "throw"
    return [rx.search(text), rx.count(text)]


def test_refused_constructs_say_which():
    for pattern, flags in (("a", "y"), ("[\\S]", ""), ("\\p{L}", "")):
        with pytest.raises(JsRegexError):
            js_regex(pattern, flags)


_ATOMS = st.sampled_from(["a", "b", ".", "\\d", "\\w", "\\s", "\\b", "^", "$", "[ab]", "[^a]", "[\\d\\s]",
                          "(a|b)", "a*", "b+", "a?", "x{1,2}", "\\.", "é", "\\n", "[^]", "(?:ab)", "(?=a)"])
_TEXT = st.text(alphabet="ab.x1 é\n\r\u2028AB_", max_size=12)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.lists(_ATOMS, min_size=1, max_size=4).map("".join),
                          st.sampled_from(["", "i", "m", "s", "g", "im", "ms", "gi"]), _TEXT),
                min_size=1, max_size=30))
def test_any_supported_pattern_matches_and_counts_as_javascript_does(cases):
    cases = [list(c) for c in cases]
    assert [_ours(*c) for c in cases] == _node(cases)
