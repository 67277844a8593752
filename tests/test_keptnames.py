"""store/keptnames: the names kept workspace files are stored under, for any names an agent picks."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from budgets import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from skill_eval.store.keptnames import KeptNames
from skill_eval.store.redact import redact

SECRETS = ["sk-ant-abcdefgh12345678", "sk-ant-zyxwvuts87654321", "AKIAABCDEFGHIJKLMNOP"]
# Pieces that collide after redaction or escaping: two secrets, a raw byte and its escape, a
# backslash, controls, a dot (where suffixes go).
PIECES = st.sampled_from([*SECRETS, "\udcff", "\\xff", "\\", "\x1b", "\n", ".", ".txt", "a", "b", "~2", " "])
COMPONENT = st.lists(PIECES, min_size=1, max_size=4).map("".join).filter(lambda p: p not in (".", ".."))
PATHS = st.lists(st.lists(COMPONENT, min_size=1, max_size=3).map("/".join), min_size=1, max_size=12,
                 unique=True)

CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _as_a_tree(paths: list[str]) -> list[str]:
    """What a file system can hold: no path is both a file and a folder of another file."""
    files: list[str] = []
    for p in paths:
        if not any(f == p or f.startswith(p + "/") or p.startswith(f + "/") for f in files):
            files.append(p)
    return files


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(PATHS)
def test_any_names_get_distinct_printable_redacted_storable_names(tmp_path_factory, paths):
    files = _as_a_tree(paths)
    names = KeptNames()
    stored = [names.stored(rel) for rel in files]
    kept = [name for name, why in stored if name is not None]
    assert all(why for name, why in stored if name is None)
    assert len(set(kept)) == len(kept), "two files were given one name: one would overwrite the other"
    for name in kept:
        assert not any(k.startswith(name + "/") for k in kept), f"{name} is a file and a folder"
        assert redact(name) == name  # nothing redaction would take out is left in
        assert not CONTROLS.search(name)  # valid UTF-8 text, safe on a terminal and in JSON
        name.encode("utf-8")
        assert all(part not in ("", ".", "..") for part in name.split("/"))
    root = tmp_path_factory.mktemp("kept")
    for i, name in enumerate(kept):  # every name can be written, each file keeps its own bytes
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(str(i).encode())
    assert sorted(int(Path(d, f).read_bytes()) for d, _, fs in os.walk(root) for f in fs) == list(
        range(len(kept)))


def test_a_file_and_a_folder_that_redact_alike_are_both_kept():
    names = KeptNames()
    first, _ = names.stored(f"{SECRETS[0]}")
    second, _ = names.stored(f"{SECRETS[1]}/inside.txt")
    assert first == "[REDACTED:api-key]" and second == "[REDACTED:api-key]~2/inside.txt"
