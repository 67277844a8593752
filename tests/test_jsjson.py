"""JSON text as JavaScript's JSON.stringify writes it (intake/javascript/json_text.py), compared with node."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_eval.intake.javascript.json_text import js_number, js_stringify

NODE = shutil.which("node")
# One node for the whole module, answering a line of JSON texts with a line of node's rewrites of
# them: starting node for each example cost more than the comparison itself.
_JS = ("const rl = require('readline').createInterface({input: process.stdin});"
       "rl.on('line', (line) => process.stdout.write(JSON.stringify("
       "JSON.parse(line).map((t) => JSON.stringify(JSON.parse(t)))) + '\\n'));")


@pytest.fixture(scope="module")
def node() -> Iterator[Callable[[list[str]], list[str]]]:
    if NODE is None:
        pytest.skip("node is not installed")
    child = subprocess.Popen([NODE, "-e", _JS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, encoding="utf-8")
    assert child.stdin is not None and child.stdout is not None

    def ask(texts: list[str]) -> list[str]:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(texts) + "\n")
        child.stdin.flush()
        return json.loads(child.stdout.readline())

    yield ask
    child.stdin.close()
    child.wait(timeout=60)


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


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_json, min_size=1, max_size=25))
def test_any_parsed_json_is_written_as_node_writes_it(node, values):
    texts = [json.dumps(v) for v in values]
    assert [js_stringify(json.loads(t)) for t in texts] == node(texts)
