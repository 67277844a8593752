"""The JSON Schemas in schemas/: valid Draft 2020-12, and every shipped file passes its schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from skill_eval.intake.schemas_io import load_schema, schema_path, schema_problems, validator
from skill_eval.intake.yamlpos import load_yaml

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = sorted((ROOT / "schemas").glob("*.schema.json"))
CONFIGS = sorted((ROOT / "configs").glob("*.yaml")) + sorted((ROOT / "configs").glob("*.yml"))
EVALS = sorted((ROOT / "examples").rglob("evals.json"))
SKILL_MDS = sorted((ROOT / "examples").rglob("SKILL.md"))


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_there_is_something_to_check():
    names = {p.name for p in SCHEMAS}
    assert {"suite.schema.json", "evals.schema.json", "skill-frontmatter.schema.json"} <= names
    assert CONFIGS and EVALS and SKILL_MDS


@pytest.mark.slow
@pytest.mark.parametrize("path", SCHEMAS, ids=_id)
def test_schema_is_valid_draft_2020_12(path):
    schema = json.loads(path.read_text("utf-8"))
    assert schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)  # raises SchemaError with the offending place
    name = path.name.removesuffix(".schema.json")
    assert schema.get("$id", "").endswith(f"/{path.name}")
    assert schema_path(name) == path
    assert load_schema(name) == schema
    validator(name)  # compiles, $refs resolve


@pytest.mark.parametrize("path", CONFIGS, ids=_id)
def test_every_config_passes_the_suite_schema(path):
    data = load_yaml(path).data
    assert validator("suite").is_valid(data), schema_problems("suite", data, _id(path))


@pytest.mark.parametrize("path", EVALS, ids=_id)
def test_every_example_eval_set_passes_the_evals_schema(path):
    data = json.loads(path.read_text("utf-8"))
    assert validator("evals").is_valid(data), schema_problems("evals", data, _id(path))


@pytest.mark.parametrize("path", SKILL_MDS, ids=_id)
def test_every_example_skill_frontmatter_passes_its_schema(path):
    from skill_eval.model.skills import parse_frontmatter

    data, problems = parse_frontmatter(path.read_text("utf-8"), _id(path))
    assert data is not None and problems == []
    assert validator("skill-frontmatter").is_valid(data)
    assert data["name"] == path.parent.name


# ---- messages made from schema errors ---------------------------------------------------------

def test_each_unknown_key_is_its_own_problem_at_its_own_line():
    data = {"suite": "s", "colour": 1, "iteratons": 2}
    lines = {("colour",): (3, 1), ("iteratons",): (4, 1)}
    found = schema_problems("suite", data, "s.yaml", lambda p: lines.get(tuple(p), (None, None)))
    assert [(p.line, p.message.split(";")[0]) for p in found] == [
        (3, "unknown key 'colour'"), (4, "unknown key 'iteratons' (did you mean 'iterations'?)")]


def test_a_value_of_no_allowed_type_gets_one_combined_message():
    (p,) = schema_problems("suite", {"suite": "s", "skills": [True]}, "s.yaml")
    assert p.message == ("skills[0]: must be a string or a mapping (key: value), got true (a boolean); "
                         "change the value")


def test_a_value_of_an_allowed_type_gets_the_deeper_message_only():
    problems = schema_problems("suite", {"suite": "s", "skills": [{"pattern": "x"}]}, "s.yaml")
    assert [p.message.split(";")[0] for p in problems] == [
        "skills[0]: unknown key 'pattern'", "skills[0]: 'name' is required but missing"]
    problems = schema_problems("suite", {"suite": "s", "skills": [{"format": "x"}]}, "s.yaml")
    assert [p.message for p in problems] == ["skills[0]: 'name' is required but missing; add it"]


def test_prefix_and_positions_are_applied():
    (p,) = schema_problems("skill-frontmatter", {"name": "x", "description": ""}, "SKILL.md",
                           where=lambda path: (7, 2), prefix=("front",))
    assert p.format() == "SKILL.md:7:2: front.description: must not be empty; fill it in or remove the key"


def test_valid_instance_has_no_problems():
    assert schema_problems("suite", {"suite": "ok"}, "s.yaml") == []


def test_a_source_checkout_reads_the_schemas_beside_the_package(monkeypatch):
    # Run from a checkout that is not installed, `skill_eval.schemas` does not exist: schemas/
    # beside the package must be found without it.
    from importlib import resources

    def no_package(name: str):  # noqa: ANN202
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(resources, "files", no_package)
    root = Path(__file__).resolve().parents[1]
    assert schema_path("suite") == root / "schemas" / "suite.schema.json"
