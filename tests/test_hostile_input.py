"""Hostile input end to end (issue 14): names that try to leave results/, names too long for a
file system, text no encoder accepts. Each must end in a one-line message or be stored safely;
never a traceback, never a file outside the suite's store and results."""

from __future__ import annotations

import json
from pathlib import Path

from suitekit import Kit, case

from skill_eval.model.safenames import MAX_COMPONENT_BYTES, path_component


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_a_case_id_with_dotdot_stays_inside_results(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    kit.write_evals("alpha", [case("x/../../../escaped"), case("a1")])
    before = files_under(tmp_path)
    code, out, err = kit.run()
    assert code in (0, 1), err
    assert "Traceback" not in err
    new = files_under(tmp_path) - before
    outside = [p for p in new if not p.startswith(("proj/results/", "proj/.skill-eval/", "proj/calls.log"))
               and p not in ("proj/results", "proj/.skill-eval", "proj/calls.log")]
    assert not outside, outside
    folder = kit.results / "alpha" / "iteration-1" / f"eval-{path_component('x/../../../escaped')}"
    assert json.loads((folder / "case.json").read_text())["id"] == "x/../../../escaped"


def test_a_300_character_case_id_still_gets_its_tables(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    long_id = "case-" + "x" * 295
    kit.write_evals("alpha", [case(long_id), case("a1")])
    code, out, err = kit.run()
    assert code in (0, 1), err
    assert "Traceback" not in err and "too long" not in err
    assert kit.bench("alpha").is_file()
    assert (kit.results / "summary.md").is_file()
    folders = [p.name for p in (kit.results / "alpha" / "iteration-1").iterdir()]
    assert all(len(f.encode()) <= MAX_COMPONENT_BYTES + len("eval-") for f in folders)
    assert len(folders) == 2


def test_ids_that_collide_after_mapping_are_refused_by_validate(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    taken = path_component("a/b")
    kit.write_evals("alpha", [case("a/b"), case(taken)])
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2
    assert f"is written to the same folder '{taken}' as 'a/b'; rename one of them" in err
    assert "Traceback" not in err


def test_model_names_with_separators_stay_inside_results(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": ["a1"]}, extra="models: [m1, ../../up]\n")
    before = files_under(tmp_path)
    code, out, err = kit.run()
    assert code in (0, 1), err
    new = files_under(tmp_path) - before
    assert all(p.startswith(("proj/results", "proj/.skill-eval", "proj/calls.log")) for p in new), new
    assert (kit.results / "alpha" / path_component("../../up") / "benchmark.json").is_file()


def test_validate_refuses_bad_json_schemas_and_warns_on_nested_quantifiers(tmp_path):
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": []})
    checks = [{"type": "json_schema", "schema": {"type": 5}},
              {"type": "json_schema", "schema": {"$ref": "file:///etc/passwd"}},
              {"type": "json_schema", "schema": {"$ref": "#"}},
              {"type": "regex", "pattern": "^(a+)+$"}]
    kit.write_evals("alpha", [dict(case(f"c{i}"), checks=[c]) for i, c in enumerate(checks)])
    code, out, err = kit.cli("validate", "suite.yaml")
    assert code == 2
    assert "Traceback" not in err
    assert "json_schema check: invalid JSON Schema at type" in err
    assert "json_schema check: schema $ref 'file:///etc/passwd' points outside the schema" in err
    assert "json_schema check: the schema refers to itself in a loop" in err
    assert ("warning: evals[3].checks[0]: regex pattern '^(a+)+$' repeats a group that holds "
            "a repetition") in out
