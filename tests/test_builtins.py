"""The builtin adapters' registry (skill_eval/model/builtins/): every consumer reads it, and the
lists that cannot (the suite schema's description, the import contracts) are checked against it."""

from __future__ import annotations

import importlib

import pytest
from adapterlists import contract_gaps, schema_drift

from skill_eval.errors import InvalidInput
from skill_eval.model.builtins import (
    ADAPTERS,
    adapter_module,
    adapter_names,
    completion_judges,
    find,
    judge_builtin,
    judge_names,
)


def test_the_suite_schema_lists_the_registered_builtins():
    assert schema_drift() == []


def test_every_builtin_program_is_in_both_adapter_contracts():
    assert contract_gaps() == []


@pytest.mark.parametrize("name", ADAPTERS.names())
def test_every_builtin_names_a_program_that_imports(name):
    module = importlib.import_module(ADAPTERS.require(name, "test").module)
    assert callable(getattr(module, "main", None))


@pytest.mark.parametrize(("written", "canonical"), [
    ("claude-code", "claude-code"), ("claude_code", "claude-code"), ("openai", "openai"),
    ("openai_compat", "openai"), ("openai-compat", "openai"), ("demo", "demo")])
def test_names_match_with_hyphen_or_underscore(written, canonical):
    found = find(written)
    assert found is not None and found.name == canonical


def test_the_names_a_message_offers_include_every_spelling():
    assert adapter_names() == ["claude-code", "codex", "demo", "gemini", "openai", "openai-compat",
                               "opencode", "replay", "vibe"]
    assert adapter_module("openai-compat") == "skill_eval.run.adapters.openai_compat"
    assert adapter_module("gemni") is None


def test_judges_by_capability():
    assert judge_names() == ["claude-code", "codex", "openai"]
    assert completion_judges() == ["claude-code", "openai"]
    assert judge_builtin("claude_code") == "claude-code" and judge_builtin("openai-compat") == "openai"
    assert judge_builtin("demo") is None and judge_builtin("nope") is None


def test_an_unknown_name_is_refused_with_the_closest():
    with pytest.raises(InvalidInput) as exc:
        ADAPTERS.require("gemni", "suite.yaml", 3)
    assert "unknown builtin adapter 'gemni' (did you mean 'gemini'?)" in exc.value.problems[0].message


def test_the_agent_cli_builtins_describe_their_cli():
    driven = {d.name: (d.cli.binary, d.cli.bin_option) for d in ADAPTERS if d.cli is not None}
    assert driven == {"claude-code": ("claude", "claude_bin"), "codex": ("codex", "codex_bin"),
                      "gemini": ("gemini", "gemini_bin"), "opencode": ("opencode", "opencode_bin"),
                      "vibe": ("vibe", "vibe_bin")}
