"""Names as doit task names; models with '/', ':' and '=' end to end (folders: safenames)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from suitekit import Kit

from skill_eval.fs.safenames import path_component
from skill_eval.model.names import doit_name


def test_ordinary_names_read_as_typed():
    assert path_component("eval-new-login-page") == "eval-new-login-page"
    assert doit_name("alpha/a1/with_skill/llama3.1:8b/1") == "alpha/a1/with_skill/llama3.1:8b/1"


@given(st.text(min_size=0, max_size=30))
def test_a_task_name_never_holds_an_equals_sign_and_never_collides(name):
    assert "=" not in doit_name(name)
    assert doit_name(name + "%") != doit_name(name)


@pytest.mark.slow
def test_models_with_slash_colon_and_equals_run_and_report(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]})
    models = ["meta-llama/Llama-3.1-8B-Instruct", "llama3.1:8b", "a=b"]
    kit.write_suite(iterations=1, extra=f"models: {json.dumps(models)}\n")
    code, out, err = kit.run()
    assert code == 0, out + err
    assert "Traceback" not in out + err
    folders = sorted(p.name for p in (kit.results / "alpha").iterdir() if p.is_dir())
    assert folders == sorted(path_component(m) for m in models)
    assert "a=b" in folders and all("/" not in f for f in folders)
    for m in models:
        assert f"alpha [{m}]" in out
    code, out, err = kit.status()
    assert code == 0 and ", 0 to run," in out
