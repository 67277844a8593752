"""Runs that cannot be scored (truncated at max_output_bytes, stopped at the turn limit, served
by another model) are named ``unscorable: <reason>``, kept out of pass rates like errors, and
counted in every table; ``include_unscorable: true`` counts them as failures instead."""

from __future__ import annotations

import json

import pytest
from suitekit import JSON_SHIM, Kit

from skill_eval.model.results import AdapterResponse, Event, RunError, RunResult, unscorable_reason
from skill_eval.run import unscorable

# Answers "with_skill ..." (passes the kit's check); how it misbehaves is chosen by the case id.
ADAPTER = "#!/usr/bin/env python3\n" + JSON_SHIM + r'''import sys
req = json.load(sys.stdin)
prompt = req["prompt"]
events = [{"type": "skill_loaded", "name": req["skill"]["name"]}] if req["skill"] else []
if "Task loud" in prompt and req["mode"] == "with_skill":
    sys.stdout.write("x" * 100000)   # past max_output_bytes: cut off
    sys.exit(0)
if "Task turns" in prompt and req["mode"] == "with_skill":
    events.append({"type": "stop", "name": "max_turns"})
if "Task local" in prompt:  # the CLI answered itself: the model was never asked
    events.append({"type": "unscorable", "name": "no_model_request: the agent made no model request; "
                   "the CLI answered itself: 'Not logged in'"})
other = "Task other" in prompt and req["mode"] == "with_skill"
asked = req.get("model") or "default"
events.append({"type": "model", "name": "some-other-model" if other else asked + "-served"})
json.dump({"output": req["mode"] + " answered", "events": events}, sys.stdout)
'''


def _kit(tmp_path, cases: list[str], extra: str = "") -> Kit:
    kit = Kit.create(tmp_path, iterations=1, skills={"alpha": cases},
                     extra="max_output_bytes: 4096\n" + extra)
    (kit.root / "adapter.py").write_text(ADAPTER)
    return kit


def _bench(kit: Kit) -> dict:
    return json.loads(kit.bench("alpha").read_text())


@pytest.mark.slow
def test_truncated_run_is_unscorable_and_not_in_the_pass_rate(tmp_path):
    kit = _kit(tmp_path, ["loud", "fine"])
    code, out, err = kit.run()
    bench = _bench(kit)
    w = bench["variants"]["with_skill"]
    assert w["unscorable"] == 1 and w["errors"] == 0
    assert (w["graded"], w["passed"], w["pass_rate"]) == (1, 1, 1.0)  # only "fine" is in the rate
    loud = next(c for c in bench["cases"] if c["id"] == "loud")
    assert loud["with_skill"]["pass_rate"] is None and "unscorable" in loud["flags"]
    assert loud["with_skill"]["unscorable_reasons"] == ["iteration 1: truncated"]
    assert bench["verdict"] != "error"
    md = (kit.results / "alpha" / "benchmark.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| with skill"))
    assert "unscorable" in header and "runs unscorable" in md and "truncated" in md
    assert "unscorable" in (kit.results / "summary.md").read_text()
    assert "1 run unscorable" in out
    page = (kit.results / "index.html").read_text()
    assert '"st": "unscorable"' in page or '"st":"unscorable"' in page


def test_include_unscorable_counts_them_as_failures(tmp_path):
    kit = _kit(tmp_path, ["loud", "fine", "local"], "include_unscorable: true\n")
    kit.run()
    w = _bench(kit)["variants"]["with_skill"]
    assert w["unscorable"] == 2  # ... but a run that never reached the model counts in no rate
    assert (w["graded"], w["passed"], w["pass_rate"]) == (2, 1, 0.5)


@pytest.mark.slow
def test_turn_limit_and_another_model_are_unscorable(tmp_path):
    kit = _kit(tmp_path, ["turns", "other", "fine"], 'models: ["asked-model"]\n')
    kit.run()
    bench = json.loads(next(kit.results.glob("alpha/**/benchmark.json")).read_text())
    reasons = {c["id"]: c["with_skill"]["unscorable_reasons"] for c in bench["cases"]}
    assert reasons["turns"] == ["iteration 1: turn_limit"]
    assert reasons["other"] == ["iteration 1: model_mismatch"]
    assert reasons["fine"] == []
    assert bench["variants"]["with_skill"]["graded"] == 1
    # A rebuild that reads the other runs from the table's record cache keeps them unscorable.
    code, out, err = kit.run("--only", "alpha/fine/*/*/*", "--force")
    assert code == 0, out + err
    again = json.loads(next(kit.results.glob("alpha/**/benchmark.json")).read_text())
    assert {c["id"]: c["with_skill"]["unscorable_reasons"] for c in again["cases"]} == reasons


def test_reason_rules():
    def resp(*events: Event) -> AdapterResponse:
        return AdapterResponse("x", events)

    assert unscorable.reason(resp(), "default") is None
    assert unscorable.reason(resp(Event("model", "claude-sonnet-4-5-20250929")), "sonnet") is None
    assert unscorable.reason(resp(Event("model", "claude-sonnet-4-5")), "opus").startswith("model_mismatch")
    assert unscorable.reason(resp(Event("model", "gpt-5")), "default") is None  # nothing was asked
    assert unscorable.reason(resp(Event("stop", "end_turn")), "default") is None
    assert unscorable.reason(resp(Event("stop", "max_turns")), "default").startswith("turn_limit")
    marked = unscorable.mark(resp(Event("stop", "max_turns")), "default")
    assert unscorable_reason(RunResult("k", marked, 0.1)) == "turn_limit"
    assert unscorable_reason(RunError("k", "unscorable", "truncated: too long")) == "truncated"
    assert unscorable_reason(RunError("k", "timeout", "slow")) is None


@pytest.mark.slow
def test_arms_run_under_different_limits_or_models_are_warned_about(tmp_path):
    kit = _kit(tmp_path, ["fine"])
    code, out, err = kit.run()
    bench = _bench(kit)
    assert bench["comparability"] == []
    limits = bench["ran_under"]["with_skill"]["limits"]
    assert limits == [{"timeout_seconds": 30, "max_output_bytes": 4096, "sandbox": None}]
    metas = [json.loads(p.read_text()) for p in kit.store.glob("runs/*/*/meta.json")]
    assert {m["limits"]["jobs"] for m in metas} == {2}  # recorded per run, not compared
    # The without-skill arm again, under another timeout and -j (the with-skill runs are kept).
    kit.suite.write_text(kit.suite.read_text().replace("timeout_seconds: 30", "timeout_seconds: 60"))
    code, out, err = kit.run("--only", "alpha/*/without_skill/*/*", "--force", "-j", "1")
    assert code == 0, out + err
    bench = _bench(kit)
    assert len(bench["comparability"]) == 1
    warning = bench["comparability"][0]
    assert "different limits" in warning and "timeout 30" in warning and "timeout 60" in warning
    assert "different limits" in (kit.results / "summary.md").read_text()
    assert "different limits" in (kit.results / "alpha" / "benchmark.md").read_text()


def test_arms_served_by_different_models_are_warned_about(tmp_path):
    kit = _kit(tmp_path, ["other"])  # the with-skill arm reports another model
    kit.run()
    warnings = _bench(kit)["comparability"]
    assert len(warnings) == 1 and "different models" in warnings[0] and "some-other-model" in warnings[0]


@pytest.mark.slow
def test_a_run_that_never_reached_the_model_is_unscorable_not_graded_and_run_again(tmp_path):
    kit = _kit(tmp_path, ["local", "fine"])
    code, out, err = kit.run()
    bench = _bench(kit)
    w = bench["variants"]["with_skill"]
    assert (w["unscorable"], w["errors"], w["graded"], w["pass_rate"]) == (1, 0, 1, 1.0)
    local = next(c for c in bench["cases"] if c["id"] == "local")
    assert local["with_skill"]["unscorable_reasons"] == ["iteration 1: no_model_request"]
    assert local["without_skill"]["pass_rate"] is None and "unscorable" in local["flags"]
    assert not list(kit.results.glob("alpha/**/eval-local/*/grading.json"))  # never graded
    assert "no_model_request" in err and code == 2  # said, and the suite is not complete
    # Nothing of it is kept as a result: the next run tries again (the cause may be fixed).
    code, out, err = kit.run()
    assert "2 to run" in out and code == 2


@pytest.mark.slow
def test_every_run_never_reaching_the_model_for_one_cause_stops_the_suite(tmp_path):
    kit = _kit(tmp_path, ["local1", "local2", "local3", "local4"])
    kit.suite.write_text(kit.suite.read_text().replace("jobs: 2", "jobs: 1"))
    code, out, err = kit.run()
    assert code == 2 and "8 runs planned" in out
    assert "stopped early: every run so far never reached the model, for one cause: no_model_request" in err
    assert "(5 more runs not started" in err  # the 2nd case's first run decided it


def test_same_cause_needs_two_cases_and_one_cause():
    def local(why: str = "no_model_request: x") -> RunError:
        return RunError("k", "unscorable", why)

    rule = unscorable.SameCause()
    assert rule.see("a", local()) is None and rule.see("a", local()) is None  # one case: its own problem
    assert rule.see("b", local()).endswith("no_model_request: x")
    mixed = unscorable.SameCause()
    assert mixed.see("a", local()) is None and mixed.see("b", local("no_model_request: y")) is None
    assert mixed.see("c", local()) is None  # two causes: not the suite's
    reached = unscorable.SameCause()
    assert reached.see("a", RunResult("k", AdapterResponse("x", ()), 0.1)) is None
    assert reached.see("b", local()) is None and reached.see("c", local()) is None
