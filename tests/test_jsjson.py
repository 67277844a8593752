"""JSON text as JavaScript's JSON.stringify writes it (intake/javascript/json_text.py), compared with node."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.intake.javascript.json_text import js_number, js_stringify

NODE = shutil.which("node")
_JS = ("const v = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
       "process.stdout.write(JSON.stringify(v.map((t) => JSON.stringify(JSON.parse(t)))));")


def _node(texts: list[str]) -> list[str]:
    done = subprocess.run([NODE or "node", "-e", _JS], input=json.dumps(texts), capture_output=True,
                          text=True, check=True, timeout=60)
    return json.loads(done.stdout)


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1"), (1e-7, "1e-7"), (1e16, "10000000000000000"), (1e21, "1e+21"), (-0.0, "0"),
    (0.000001, "0.000001"), (2**60, "1152921504606847000"), (float("nan"), "null")])
def test_numbers_as_javascript_writes_them(value, text):
    assert js_number(value) == text


def test_key_order_separators_and_escapes():
    parsed = json.loads('{"b": 1, "2": [1.50, true], "1": "a\\u0001\\ud800\\"", "01": null}')
    assert js_stringify(parsed) == '{"1":"a\\u0001\\ud800\\"","2":[1.5,true],"b":1,"01":null}'


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@settings(max_examples=40, deadline=None)
@given(st.lists(_json, min_size=1, max_size=25))
def test_any_parsed_json_is_written_as_node_writes_it(values):
    texts = [json.dumps(v) for v in values]
    assert [js_stringify(json.loads(t)) for t in texts] == _node(texts)
