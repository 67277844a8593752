"""JSON key positions: the same lines and columns the YAML loader reported, in linear time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.intake.jsonpos import json_positions
from skill_eval.intake.yamlpos import loads_yaml

ROOT = Path(__file__).resolve().parent.parent

_keys = st.text(st.characters(codec="utf-8", exclude_characters='"\\'), min_size=1, max_size=5)
_json = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
                     max_leaves=15)


@pytest.mark.parametrize("path", sorted((ROOT / "examples").rglob("*.json")), ids=lambda p: p.name)
def test_same_positions_as_yaml_for_the_examples(path: Path) -> None:
    text = path.read_text("utf-8")
    assert json_positions(text) == loads_yaml(text, str(path)).positions


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(_json, st.sampled_from([None, 1, 2]))
def test_same_positions_as_yaml(doc: object, indent: int | None) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=True)
    try:
        expected = loads_yaml(text, "x.json").positions
    except Exception:  # noqa: BLE001 - YAML reads some JSON differently; only compare where it agrees
        return
    got = json_positions(text)
    for key, where in got.items():
        if key in expected:
            assert expected[key] == where, (key, text)


def test_deep_nesting_does_not_recurse() -> None:
    text = "[" * 100_000 + "]" * 100_000
    assert json_positions(text)[()] == (1, 1)


def test_key_lines() -> None:
    text = '{\n  "evals": [\n    {"id": "a"},\n    {"id": "b\\"q"}\n  ]\n}'
    pos = json_positions(text)
    assert pos[("evals", 1, "id")] == (4, 6)
    assert pos[("evals", 1)] == (4, 5)
