"""skill_eval.intake.yamlpos: safe YAML with the line and column of every key path."""

from __future__ import annotations

import pytest

from skill_eval.errors import InvalidInput
from skill_eval.intake.yamlpos import Located, load_yaml, loads_yaml


def error(text: str, line_offset: int = 0) -> str:
    with pytest.raises(InvalidInput) as exc:
        loads_yaml(text, "f.yaml", line_offset)
    (problem,) = exc.value.problems
    return problem.format()


def test_positions_of_keys_and_items():
    doc = loads_yaml("a: 1\nb:\n  c: [x, y]\n  d:\n    - e: 2\n", "f.yaml")
    assert doc.data == {"a": 1, "b": {"c": ["x", "y"], "d": [{"e": 2}]}}
    assert doc.positions[("a",)] == (1, 1)
    assert doc.positions[("b", "c")] == (3, 3)
    assert doc.positions[("b", "c", 1)] == (3, 10)
    assert doc.positions[("b", "d", 0, "e")] == (5, 7)


def test_where_falls_back_to_the_nearest_known_parent():
    doc = loads_yaml("a:\n  b: 1\n", "f.yaml")
    assert doc.where(("a", "b", "missing", 3)) == (2, 3)
    assert doc.where(("nothing",)) == (1, 1)
    assert Located(None).where(("x",)) == (None, None)


def test_line_offset_shifts_positions_and_errors():
    doc = loads_yaml("name: x\n", "SKILL.md", line_offset=1)
    assert doc.positions[("name",)] == (2, 1)
    assert error("a: b: c\n", line_offset=1) == (
        "f.yaml:2:5: YAML syntax error: mapping values are not allowed here; a value contains ': '; "
        "put the whole value in quotes")


def test_empty_document_is_none():
    assert loads_yaml("", "f.yaml").data is None
    assert loads_yaml("# just a comment\n", "f.yaml").data is None


def test_non_string_keys_become_strings():
    assert loads_yaml("1: a\ntrue: b\n", "f.yaml").data == {"1": "a", "True": "b"}


@pytest.mark.parametrize("text, message", [
    ("a: b: c\n",
     "f.yaml:1:5: YAML syntax error: mapping values are not allowed here; a value contains ': '; put the "
     "whole value in quotes"),
    ("hint: [file] [--flag]\n",
     "f.yaml:1:14: YAML syntax error: expected <block end>, but found '['; text follows a [list], {mapping} "
     "or quoted value on the same line; put the whole value in quotes"),
    ('a: "open\n',
     "f.yaml:2:1: YAML syntax error: found unexpected end of stream (while scanning a quoted scalar started "
     "at line 1); close the quote"),
    ("a: [1, 2\n",
     "f.yaml:2:1: YAML syntax error: expected ',' or ']', but got '<stream end>' (while parsing a flow "
     "sequence started at line 1); close the bracket or brace"),
    ("a: 1\n\tb: 2\n",
     "f.yaml:2:1: YAML syntax error: found character '\\t' that cannot start any token; indent with spaces, "
     "not tabs"),
    ("a: @x\n",
     "f.yaml:1:4: YAML syntax error: found character '@' that cannot start any token; a value starts with a "
     "reserved character; put the whole value in quotes"),
    ("a: *nope\n",
     "f.yaml:1:4: YAML syntax error: found undefined alias 'nope'; define the anchor (&name) before using "
     "it, or quote the value starting with '*'"),
    ("a: 1\n---\nb: 2\n",
     "f.yaml:2:1: YAML syntax error: a second YAML document starts here; keep one document per file (remove "
     "this '---' line and what follows it, or merge the two)"),
    ("a:\n  - b\n c: d\n",
     "f.yaml:3:2: YAML syntax error: expected <block end>, but found '<block mapping start>' (while parsing "
     "a block mapping started at line 1); check the indentation of this line and the one before it"),
])
def test_syntax_errors_have_file_line_column_and_a_fix(text, message):
    assert error(text) == message


@pytest.mark.parametrize("tag", [
    "!!python/object/apply:os.system",
    "!!python/object/new:os.system",
    "!!python/name:os.system",
    "!!python/module:os",
    "!!python/tuple",
])
def test_python_tags_are_refused_with_the_tag_named(tag, tmp_path):
    marker = tmp_path / "EXECUTED"
    text = f"a: {tag} [\"touch {marker}\"]\n"
    message = error(text)
    assert message.startswith("f.yaml:1:4: YAML error: tag ")
    assert message.endswith(" is not allowed (only plain YAML is loaded; remove the tag)")
    assert tag.split(":")[0] in message
    assert not marker.exists()


def test_python_tag_on_a_mapping_is_refused():
    assert error("a: !!python/object:os.Foo {x: 1}\n") == (
        "f.yaml:1:4: YAML error: tag !!python/object:os.Foo is not allowed (only plain YAML is loaded; "
        "remove the tag)")


def test_custom_tags_are_refused():
    assert error("a: !secret x\n") == (
        "f.yaml:1:4: YAML error: tag !secret is not allowed (only plain YAML is loaded; remove the tag)")


def test_duplicate_keys_are_errors():
    assert error("a: 1\nb:\n  c: 1\n  c: 2\n") == (
        "f.yaml:4:3: YAML error: duplicate key 'c' (first at line 3); remove one of them")


def test_merge_keys_may_be_overridden():
    doc = loads_yaml("base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  x: 3\n", "f.yaml")
    assert doc.data["c"] == {"x": 3, "y": 2}


def test_a_merged_mapping_used_again_through_an_alias_is_not_a_duplicate():
    doc = loads_yaml("base: &b {x: 1}\nmid: &m\n  <<: *b\n  x: 2\nc: *m\nd: *m\n", "f.yaml")
    assert doc.data["c"] == doc.data["d"] == {"x": 2}


def test_recursive_alias_is_an_error_not_a_crash():
    assert error("a: &x [1, *x]\n") == (
        "f.yaml:1:4: YAML error: an alias refers to a collection that contains it (a loop); write the values "
        "out instead of the alias")


def test_shared_alias_is_fine():
    doc = loads_yaml("a: &x [1, 2]\nb: *x\nc: *x\n", "f.yaml")
    assert doc.data == {"a": [1, 2], "b": [1, 2], "c": [1, 2]}


def test_load_yaml_file_errors(tmp_path):
    with pytest.raises(InvalidInput, match="missing.yaml: file not found; check the path"):
        load_yaml(tmp_path / "missing.yaml", "missing.yaml")
    with pytest.raises(InvalidInput, match="folder: is a folder; give a YAML file"):
        load_yaml(tmp_path, "folder")
    (tmp_path / "bin.yaml").write_bytes(b"a: \xff\n")
    with pytest.raises(InvalidInput, match=r"bin.yaml: cannot read: .*; save it as UTF-8 text"):
        load_yaml(tmp_path / "bin.yaml", "bin.yaml")


def test_load_yaml_reads_the_file(tmp_path):
    (tmp_path / "s.yaml").write_text("suite: x\n")
    doc = load_yaml(tmp_path / "s.yaml")
    assert doc.data == {"suite": "x"} and doc.where(("suite",)) == (1, 1)


# --- hostile documents (issue 14) --------------------------------------------------------------

_LAUGHS = "a: &a [" + ", ".join(["lol"] * 9) + "]\n" + "".join(
    f"{b}: &{b} [" + ", ".join([f"*{a}"] * 9) + "]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))


def test_an_alias_bomb_is_refused_in_milliseconds_with_its_line():
    import time
    assert len(_LAUGHS) < 400
    t = time.monotonic()
    message = error(_LAUGHS)
    assert time.monotonic() - t < 1.0
    assert message.startswith("f.yaml:7:")  # 'g' is where the expansion passes the budget
    assert "aliases expand this document past 1,000,000 values" in message
    assert "write the values out" in message


def test_aliases_within_the_budget_still_load():
    doc = loads_yaml("a: &a [1, 2]\nb: [*a, *a]\n", "f.yaml")
    assert doc.data == {"a": [1, 2], "b": [[1, 2], [1, 2]]}


@pytest.mark.slow
@pytest.mark.parametrize("text", ["a: " + "[" * 5000 + "]" * 5000, "a:\n" + "".join(
    "  " * i + f"k{i}:\n" for i in range(1, 400)) + "  " * 400 + "x: 1\n", "- " * 3000 + "x\n"])
def test_deep_nesting_is_one_line_not_a_recursion_error(text):
    message = error(text)
    assert "nested more than 100 levels deep; flatten the document" in message
    assert message.startswith("f.yaml:")


@pytest.mark.parametrize(("text", "where", "code"), [
    ("suite: x\x00\n", "f.yaml:1:9", "U+0000"), ("a: 1\nb: '\x07'\n", "f.yaml:2:5", "U+0007"),
    ("a: \ud83d\n", "f.yaml:1:4", "U+D83D"), ("a: \x1b[31m\n", "f.yaml:1:4", "U+001B")])
def test_control_characters_and_lone_surrogates_are_one_line(text, where, code):
    message = error(text)
    assert message.startswith(where + ": YAML error: character " + code + " is not allowed in YAML")


def test_an_escaped_lone_surrogate_loads_as_text():
    # The escape is valid YAML; what reads the value decides (names refuse it, prompts keep it).
    assert loads_yaml('a: "\\ud83d"\n', "f.yaml").data == {"a": "\ud83d"}
