"""review/folder/staleness: what a table's inputs key is read back as, however the file looks."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.review.folder.files import dump_json
from skill_eval.review.folder.staleness import INPUTS_FIELD, _stored_inputs_key

KEYS = st.text(alphabet="0123456789abcdef", min_size=1, max_size=64)
# Other content that tries to look like the key's line: names and texts holding it, newlines.
TEXT = st.one_of(st.text(max_size=20), st.just(f'\n  "{INPUTS_FIELD}": "ffff",'), st.just("}\n"))
OTHER = st.dictionaries(st.one_of(TEXT, st.sampled_from(["cases", "a", "zz", INPUTS_FIELD + "x"])),
                        st.recursive(st.one_of(TEXT, st.integers(), st.none()),
                                     lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                             st.dictionaries(TEXT, inner, max_size=3)),
                                     max_leaves=8), max_size=5)


@settings(max_examples=100, deadline=None)
@given(KEYS, OTHER, st.sampled_from(["dump_json", "compact", "indent4"]))
def test_the_key_read_back_is_the_one_json_holds(tmp_path_factory, key, other, style):
    # The quick read of dump_json's layout must agree with a full parse, for any table, and a
    # file in any other layout (edited by hand) is parsed.
    doc = {**{k: v for k, v in other.items() if k != INPUTS_FIELD}, INPUTS_FIELD: key}
    text = {"dump_json": dump_json(doc), "compact": json.dumps(doc),
            "indent4": json.dumps(doc, indent=4) + "\n"}[style]
    path = tmp_path_factory.getbasetemp() / "staleness-benchmark.json"  # one file, overwritten
    path.write_text(text, "utf-8")
    assert _stored_inputs_key(path) == json.loads(text)[INPUTS_FIELD] == key


def test_a_missing_damaged_or_keyless_table_has_no_key(tmp_path: Path):
    path = tmp_path / "benchmark.json"
    assert _stored_inputs_key(path) is None
    path.write_text(dump_json({"cases": []})[:-3], "utf-8")
    assert _stored_inputs_key(path) is None
    path.write_text(dump_json({"cases": [], "skill": "x"}), "utf-8")
    assert _stored_inputs_key(path) is None
    path.write_bytes(b"\xff{")
    assert _stored_inputs_key(path) is None
