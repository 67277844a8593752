import json

import pytest

from skill_eval.errors import AdapterError
from skill_eval.intake.schemas_io import schema_problems
from skill_eval.model.results import Event
from skill_eval.run.protocol import build_request, parse_response, replay_key


def test_valid_response():
    raw = json.dumps({"output": "hi", "events": [{"type": "skill_loaded", "name": "s"}, {"type": "x"}],
                      "usage": {"input_tokens": 3, "cost_usd": 0.5}}).encode()
    r = parse_response(raw, "adapter a")
    assert r.output == "hi" and r.events == (Event("skill_loaded", "s"), Event("x"))
    assert r.loaded_skills() == {"s"} and r.usage == {"input_tokens": 3, "cost_usd": 0.5}
    assert schema_problems("adapter-response", r.to_json(), "x") == []
    assert parse_response(b'{"output": ""}', "a").events == ()


@pytest.mark.parametrize(("raw", "message"), [
    (b"", "printed nothing"),
    (b"Traceback (most recent call last):", "not JSON"),
    (b"[1, 2]", "must be a JSON object, got list"),
    (b'{"events": []}', "no 'output' field"),
    (b'{"output": "x", "extra": 1}', r"unknown field\(s\) extra"),
    (b'{"output": 3}', "'output' must be a string, got int"),
    (b'{"output": "x", "events": {}}', "'events' must be a list"),
    (b'{"output": "x", "events": ["s"]}', r"events\[0\] must be an object"),
    (b'{"output": "x", "events": [{"name": "s"}]}', r"events\[0\].type must be a non-empty string"),
    (b'{"output": "x", "events": [{"type": "a", "why": 1}]}', r"events\[0\] has unknown field\(s\) why"),
    (b'{"output": "x", "events": [{"type": "a", "name": 1}]}', r"events\[0\].name must be a string"),
    (b'{"output": "x", "usage": []}', "'usage' must be an object"),
    (b'{"output": "x", "usage": {"tokens": "12"}}', r'usage.tokens must be a number, got "12"'),
    (b'{"output": "x", "usage": {"ok": true}}', "usage.ok must be a number"),
    (b'{"output": "x", "usage": {"n": NaN}}', "usage.n must be a number"),
    (b'{"output": "x", "usage": {"n": 1' + b"0" * 400 + b'}}', "usage.n is 1000"),  # issue 20: no overflow
    (b'{"output": "x", "usage": {"n": -1e300}}', r"usage.n is -1e\+300, outside"),
])
def test_bad_responses(raw, message):
    with pytest.raises(AdapterError, match=message) as info:
        parse_response(raw, "adapter fake")
    text = str(info.value)
    assert "\n" not in text and text.startswith("adapter fake: ")


def test_request_matches_schema_and_omits_grading_material(run_setup, tmp_path):
    suite, spec = run_setup(["true"])
    s = spec()
    req = build_request(s, tmp_path, [{"path": "inputs/a.txt", "sha256": "0" * 64}], "skills/demo-skill")
    assert schema_problems("adapter-request", req, "req") == []
    assert req["skill"] == {"name": "demo-skill", "path": "skills/demo-skill"}
    assert req["case"] == {"id": "c1", "iteration": 1} and "trigger" not in req
    assert "expected_output" not in json.dumps(req) and "checks" not in req
    base = build_request(spec("without_skill"), tmp_path, [], None)
    assert base["skill"] is None and schema_problems("adapter-request", base, "req") == []
    trig = build_request(spec(kind="trigger"), tmp_path, [], "skills/demo-skill")
    assert trig["trigger"] is True and schema_problems("adapter-request", trig, "req") == []


def test_replay_key_ignores_workspace_and_skill_path(run_setup, tmp_path):
    _, spec = run_setup(["true"])
    a = build_request(spec(), tmp_path / "a", [], "skills/demo-skill")
    b = build_request(spec(), tmp_path / "b", [], "elsewhere/demo-skill")
    assert replay_key(a) == replay_key(b)
    assert replay_key(a) != replay_key(build_request(spec(iteration=2), tmp_path, [], "skills/demo-skill"))
