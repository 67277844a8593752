"""Names as path segments and doit task names; models with '/', ':' and '=' end to end."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from suitekit import Kit

from skill_eval.model.names import doit_name, path_segment


def test_ordinary_names_read_as_typed():
    assert path_segment("llama3.1:8b") == "llama3.1:8b"
    assert path_segment("eval-new-login-page") == "eval-new-login-page"
    assert doit_name("alpha/a1/with_skill/llama3.1:8b/1") == "alpha/a1/with_skill/llama3.1:8b/1"


@given(st.text(min_size=0, max_size=30))
def test_a_segment_never_leaves_its_folder_and_never_collides(name):
    seg = path_segment(name)
    assert "/" not in seg and "\\" not in seg and "\0" not in seg and seg not in ("", ".", "..")
    assert set(seg) != {"."}
    other = name + "%"
    assert path_segment(other) != seg
    assert "=" not in doit_name(name)


def test_models_with_slash_colon_and_equals_run_and_report(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    models = ["meta-llama/Llama-3.1-8B-Instruct", "llama3.1:8b", "a=b"]
    kit.write_suite(iterations=1, extra=f"models: {json.dumps(models)}\n")
    code, out, err = kit.run()
    assert code == 0, out + err
    assert "Traceback" not in out + err
    folders = sorted(p.name for p in (kit.results / "alpha").iterdir() if p.is_dir())
    assert folders == ["a=b", "llama3.1:8b", "meta-llama%2FLlama-3.1-8B-Instruct"]
    for m in models:
        assert f"alpha [{m}]" in out
    code, out, err = kit.status()
    assert code == 0 and "would run 0" in out
