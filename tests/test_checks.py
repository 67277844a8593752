from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from skill_eval.errors import InvalidInput
from skill_eval.grade.checks import CHECK_TYPES, CheckContext, check_problem, run_check
from skill_eval.grade.checks.shared.checktype import evals_schema, schema_text
from skill_eval.model.cases import Check
from skill_eval.model.results import Event


def chk(type_: str, required: bool = True, case_sensitive: bool = False, **params) -> Check:
    return Check(id=f"{type_}-1", type=type_, required=required, case_sensitive=case_sensitive, params=params)


def ctx(output: str = "", **kw) -> CheckContext:
    return CheckContext(output=output, **kw)


def test_registry_covers_every_schema_type():
    schema = json.loads((Path(__file__).parents[1] / "schemas" / "evals.schema.json").read_text())
    assert set(CHECK_TYPES.names()) == set(schema["$defs"]["check"]["properties"]["type"]["enum"])


def test_every_check_module_is_in_the_independence_contract():
    # import-linter cannot read the registry: a check module left out of the contract could
    # import another without anything failing, so this holds the two lists together.
    import tomllib

    config = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    listed = next(c["modules"] for c in config["tool"]["importlinter"]["contracts"]
                  if c["name"].startswith("Check types are independent"))
    for kind in CHECK_TYPES:
        module = kind.function.__module__
        assert module in listed, f"check type {kind.name!r} ({module}) is not in pyproject.toml's contract"


def test_the_checked_in_eval_set_schema_is_what_the_check_types_generate():
    # schemas/ stays the complete truth for the builtins: a descriptor's params and the file
    # cannot drift apart (python docs/gen_reference.py rewrites the file from the descriptors).
    path = Path(__file__).parents[1] / "schemas" / "evals.schema.json"
    text = path.read_text(encoding="utf-8")
    assert text == schema_text(evals_schema(json.loads(text), CHECK_TYPES)), \
        "schemas/evals.schema.json differs from the check types: run python docs/gen_reference.py"


@pytest.mark.parametrize(("type_", "params", "output", "passed"), [
    ("contains", {"value": "hello"}, "Say HELLO world", True),
    ("contains", {"value": "bye"}, "Say hello", False),
    ("not_contains", {"value": "bye"}, "Say hello", True),
    ("not_contains", {"value": "HELLO"}, "Say hello", False),
    ("contains_all", {"values": ["a1", "B2"]}, "a1 b2", True),
    ("contains_all", {"values": ["a1", "c3"]}, "a1 b2", False),
    ("contains_any", {"values": ["zz", "B2"]}, "a1 b2", True),
    ("contains_any", {"values": ["zz", "yy"]}, "a1 b2", False),
    ("regex", {"pattern": r"total:\s*\d+"}, "TOTAL: 42", True),
    ("regex", {"pattern": r"^\d+$"}, "abc", False),
    ("not_regex", {"pattern": r"error\b"}, "all good", True),
    ("not_regex", {"pattern": r"error\b"}, "an ERROR here", False),
])
def test_text_checks(type_, params, output, passed):
    result = run_check(chk(type_, **params), ctx(output))
    assert result.passed is passed
    assert result.type == type_ and result.evidence


def test_casefold_sharp_s_matches_double_s():
    assert run_check(chk("contains", value="STRASSE"), ctx("Die Straße")).passed
    assert run_check(chk("contains", value="straße"), ctx("DIE STRASSE")).passed
    assert not run_check(chk("contains", case_sensitive=True, value="STRASSE"), ctx("Die Straße")).passed


def test_case_sensitive():
    assert not run_check(chk("contains", case_sensitive=True, value="Hello"), ctx("hello")).passed
    assert run_check(chk("contains", case_sensitive=True, value="Hello"), ctx("Hello")).passed
    assert not run_check(chk("regex", case_sensitive=True, pattern="Hello"), ctx("hello")).passed
    assert run_check(chk("regex", pattern="Hello"), ctx("hello")).passed


def test_regex_does_not_cross_lines_without_dotall():
    text = "begin\nend"
    assert not run_check(chk("regex", pattern="begin.end"), ctx(text)).passed
    assert run_check(chk("regex", pattern="(?s)begin.end"), ctx(text)).passed


def test_evidence_names_what_is_missing_and_is_short():
    r = run_check(chk("contains_all", values=["alpha", "beta", "gamma"]), ctx("alpha only" * 500))
    assert "beta" in r.evidence and "gamma" in r.evidence and "alpha'" not in r.evidence.split(":")[1]
    r = run_check(chk("contains", value="only"), ctx("x" * 5000 + "only" + "y" * 5000))
    assert r.passed and len(r.evidence) <= 200


def test_required_false_is_carried():
    r = run_check(chk("contains", required=False, value="x"), ctx("y"))
    assert r.required is False and r.passed is False


def test_bad_regex_and_unknown_type_are_invalid_input():
    with pytest.raises(InvalidInput, match="invalid regex"):
        run_check(chk("regex", pattern="("), ctx("x"), source="evals/evals.json")
    with pytest.raises(InvalidInput, match="unknown type"):
        run_check(chk("contain", value="x"), ctx("x"))
    assert check_problem(chk("regex", pattern="(")) is not None
    assert check_problem(chk("regex", pattern="ok")) is None


def test_file_exists_paths_are_workspace_relative(tmp_path: Path):
    ws = tmp_path / "files"
    (ws / "outputs" / "sub").mkdir(parents=True)
    (ws / "outputs" / "sub" / "report.md").write_text("hi")
    (ws / "report.md").write_text("top")
    c = ctx(files_dir=ws, outputs_dir=ws / "outputs")
    assert run_check(chk("file_exists", path="outputs/sub/report.md"), c).passed
    assert run_check(chk("file_exists", path="report.md"), c).passed  # a file outside outputs/
    r = run_check(chk("file_exists", path="sub/report.md"), c)  # not outputs/-relative any more
    assert not r.passed and "does not exist" in r.evidence


def test_file_exists_on_a_run_stored_with_outputs_only(tmp_path: Path):
    out = tmp_path / "outputs"
    (out / "sub").mkdir(parents=True)
    (out / "sub" / "report.md").write_text("hi")
    c = ctx(outputs_dir=out)  # an entry of an older version: no files_dir
    assert run_check(chk("file_exists", path="outputs/sub/report.md"), c).passed
    r = run_check(chk("file_exists", path="report.md"), c)
    assert not r.passed and "kept only outputs/" in r.evidence and "--force" in r.evidence


def test_file_exists_refuses_escapes(tmp_path: Path):
    ws = tmp_path / "files"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text("s")
    (ws / "link").symlink_to(tmp_path / "secret.txt")
    c = ctx(files_dir=ws)
    for path, word in ((str(tmp_path / "secret.txt"), "absolute"), ("../secret.txt", ".."),
                       ("link", "outside"), ("outputs/../../secret.txt", "..")):
        r = run_check(chk("file_exists", path=path), c)
        assert not r.passed and "refused" in r.evidence and word in r.evidence


def test_file_exists_without_kept_files():
    r = run_check(chk("file_exists", path="a.txt"), ctx())
    assert not r.passed and "kept no files" in r.evidence


def test_loaded_skill():
    events = (Event("tool_call", "Read"), Event("skill_loaded", "pdf"))
    assert run_check(chk("loaded_skill"), ctx(events=events, skill_name="pdf")).passed
    r = run_check(chk("loaded_skill"), ctx(events=events, skill_name="docx"))
    assert not r.passed and "docx" in r.evidence
    assert run_check(chk("loaded_skill", skill="docx", expected=False), ctx(events=events)).passed
    assert not run_check(chk("loaded_skill", expected=False), ctx(events=events, skill_name="pdf")).passed


def test_loaded_skill_without_events_says_so():
    r = run_check(chk("loaded_skill"), ctx(skill_name="pdf"))
    assert not r.passed and "no skill_loaded events reported" in r.evidence


def test_json_path_equals(tmp_path: Path):
    doc = {"a": {"b": [{"c": 3}, {"c": True}]}, "s": "Yes"}
    c = ctx(json.dumps(doc))
    assert run_check(chk("json_path_equals", path="a.b.0.c", value=3), c).passed
    assert run_check(chk("json_path_equals", path="a.b.0.c", value=3.0), c).passed
    assert not run_check(chk("json_path_equals", path="a.b.1.c", value=1), c).passed  # true is not 1
    r = run_check(chk("json_path_equals", path="a.x", value=1), c)
    assert not r.passed and "no key 'x'" in r.evidence
    r = run_check(chk("json_path_equals", path="a.b.5", value=1), c)
    assert not r.passed and "no index" in r.evidence
    fenced = ctx("Here you go:\n```json\n" + json.dumps(doc) + "\n```\n")
    assert run_check(chk("json_path_equals", path="s", value="Yes"), fenced).passed
    r = run_check(chk("json_path_equals", path="s", value="Yes"), ctx("not json"))
    assert not r.passed and "not JSON" in r.evidence
    ws = tmp_path / "files"
    (ws / "outputs").mkdir(parents=True)
    (ws / "outputs" / "r.json").write_text(json.dumps(doc))
    in_file = chk("json_path_equals", path="s", value="Yes", file="outputs/r.json")
    assert run_check(in_file, ctx(files_dir=ws)).passed
    r = run_check(chk("json_path_equals", path="s", value="Yes", file="../r.json"), ctx(files_dir=ws))
    assert not r.passed and "refused" in r.evidence


def test_json_schema():
    schema = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    assert run_check(chk("json_schema", schema=schema), ctx('{"name": "x"}')).passed
    r = run_check(chk("json_schema", schema=schema), ctx('{"name": 3}'))
    assert not r.passed and "name" in r.evidence
    with pytest.raises(InvalidInput, match="invalid JSON Schema"):
        run_check(chk("json_schema", schema={"type": 3}), ctx("{}"))


@pytest.mark.parametrize(("usage", "params", "passed", "word"), [
    ({"input_tokens": 60, "output_tokens": 40}, {"limit": 100}, True, "100"),
    ({"input_tokens": 60, "output_tokens": 41}, {"limit": 100}, False, "101"),
    ({"total_tokens": 50}, {"limit": 100}, True, "total_tokens"),
    ({"cache_tokens": 500, "input_tokens": 1}, {"limit": 100, "usage_key": "cache_tokens"}, False, "500"),
    ({}, {"limit": 100}, False, "no token usage reported"),
    ({"input_tokens": 1}, {"limit": 100, "usage_key": "nope"}, False, "no token usage reported"),
])
def test_max_tokens(usage, params, passed, word):
    r = run_check(chk("max_tokens", **params), ctx(usage=usage))
    assert r.passed is passed and word in r.evidence


def test_max_seconds():
    assert run_check(chk("max_seconds", limit=2), ctx(duration_s=1.5)).passed
    assert not run_check(chk("max_seconds", limit=1), ctx(duration_s=1.5)).passed
    r = run_check(chk("max_seconds", limit=1), ctx())
    assert not r.passed and "no duration" in r.evidence


def test_script_disabled_by_default(tmp_path: Path):
    r = run_check(chk("script", command=[sys.executable, "-c", "pass"]), ctx(outputs_dir=tmp_path))
    assert not r.passed
    assert r.evidence == "script checks are disabled; set allow_scripts: true in the suite"


def test_script_runs_in_outputs_dir(tmp_path: Path):
    (tmp_path / "made.txt").write_text("x")
    code = "import os,sys; sys.exit(0 if os.path.exists('made.txt') and 'ok' in sys.stdin.read() else 3)"
    c = ctx("ok", outputs_dir=tmp_path, allow_scripts=True)
    assert run_check(chk("script", command=[sys.executable, "-c", code]), c).passed
    r = run_check(chk("script", command=[sys.executable, "-c", "print('bad'); raise SystemExit(3)"]), c)
    assert not r.passed and "exit 3" in r.evidence and "bad" in r.evidence
    r = run_check(chk("script", command=["/nonexistent/prog"]), c)
    assert not r.passed and "could not start" in r.evidence


@pytest.mark.skipif(os.name != "posix", reason="process groups")
def test_script_timeout(tmp_path: Path):
    c = ctx(outputs_dir=tmp_path, allow_scripts=True)
    r = run_check(chk("script", command=[sys.executable, "-c", "import time; time.sleep(30)"],
                      timeout_seconds=0.3), c)
    assert not r.passed and "timed out" in r.evidence


# --- regexes under a time limit (issue 14) -----------------------------------------------------

# The children below search under a limit of 150 ms (TEST_LIMIT_MS), not the shipped 1000 ms:
# the limit's mechanism is what they test, and each timed-out search costs the suite its limit in
# CPU. Not less: the limit is wall-clock time, and a loaded machine can stall a trivial search
# for a tenth of a second (every search under it here is catastrophic, or may time out).
# test_a_timed_out_search_fails_with_evidence keeps the shipped limit.
TEST_LIMIT_MS = 150
_SHORT_LIMIT = f"import skill_eval.intake.timedmatch as tm; tm.REGEX_TIMEOUT_MS = {TEST_LIMIT_MS}\n"

_BACKTRACK = _SHORT_LIMIT + r'''
import sys, time
from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.model.cases import Check
t = time.process_time()  # the regex engine's limit is CPU time: a loaded machine stretches wall time
for kind in ("regex", "not_regex"):
    r = run_check(Check(id="c", type=kind, params={"pattern": sys.argv[1]}), CheckContext(output=sys.argv[2]))
    print(kind, r.passed, r.evidence)
print("seconds", time.process_time() - t)
'''


@pytest.mark.slow
@pytest.mark.parametrize(("pattern", "text"), [(r"^(a+)+$", "a" * 40 + "!"), (r"(x+x+)+y", "x" * 5000),
                                               (r"^(\w+\s?)*$", "word " * 12 + "!")],
                         ids=["a-plus-plus", "xx-plus-y", "words"])
def test_catastrophic_backtracking_does_not_hang_grading(pattern, text):
    # In a child process: on an engine without a time limit this never returns, and the test
    # must fail rather than hang with it.
    import subprocess
    try:
        done = subprocess.run([sys.executable, "-c", _BACKTRACK, pattern, text], capture_output=True,
                              text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"grading /{pattern}/ did not finish in 30 s")
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert float(lines["seconds"]) < 10 * TEST_LIMIT_MS / 1000
    for kind in ("regex", "not_regex"):
        passed, evidence = lines[kind].split(" ", 1)
        # Either the engine answers quickly, or the check fails saying why; never a hang.
        if "timed out" in evidence:
            assert passed == "False"
            assert f"pattern timed out after {TEST_LIMIT_MS} ms" in evidence


@pytest.mark.slow
def test_a_timed_out_search_fails_with_evidence(monkeypatch):
    import skill_eval.intake.timedmatch as tm
    from skill_eval.intake import limits

    assert limits.REGEX_TIMEOUT_MS == tm.REGEX_TIMEOUT_MS == 1000  # the limit docs/reliability.md names
    # Searched under the short limit: each timed-out search spends its whole limit of CPU.
    monkeypatch.setattr(tm, "REGEX_TIMEOUT_MS", TEST_LIMIT_MS)
    for kind in ("regex", "not_regex"):
        got = run_check(chk(kind, pattern="^(a|a)+$"), ctx("a" * 40 + "!"))
        assert not got.passed
        assert got.evidence.startswith(f"/^(a|a)+$/: pattern timed out after {TEST_LIMIT_MS} ms")


# --- every pattern an eval set supplies is time-limited (issue 20) ----------------------------

_EVIL = "^(a|a)+$"  # overlapping alternatives: exponential on re and on regex alike
_ALMOST = "a" * 40 + "b"  # shlex.join leaves it unquoted in a command
_EVERY_PATTERN = _SHORT_LIMIT + r'''
import json, sys, time
from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.model.cases import Check
from skill_eval.model.results import Event
evil, almost = sys.argv[1], sys.argv[2]
events = (Event(type="command", argv=(almost,)), Event(type="tool_call", name=almost))
checks = {
    "schema-pattern": ("json_schema", {"schema": {"type": "string", "pattern": evil}}, json.dumps(almost)),
    "schema-pattern-properties": ("json_schema",
                                  {"schema": {"patternProperties": {evil: {"type": "string"}}}},
                                  json.dumps({almost: 1})),
    "schema-additional": ("json_schema", {"schema": {"patternProperties": {evil: {}},
                                                     "additionalProperties": False}},
                          json.dumps({almost: 1})),
    "schema-property-names": ("json_schema", {"schema": {"propertyNames": {"pattern": evil}}},
                              json.dumps({almost: 1})),
    "command_ran": ("command_ran", {"pattern": evil}, ""),
    "command_not_ran": ("command_not_ran", {"pattern": evil}, ""),
    "command_order": ("command_order", {"patterns": [evil]}, ""),
    "tool_call-pattern": ("tool_call", {"pattern": evil}, ""),
    "tool_call-order": ("tool_call", {"order": [evil]}, ""),
    "tool_call-no-call": ("tool_call", {"expected_no_call": True, "pattern": evil}, ""),
}
for name, (kind, params, output) in checks.items():
    if name.startswith("schema-") != (sys.argv[3] == "schema"):
        continue
    t = time.process_time()  # CPU seconds: what the engine's limit counts
    r = run_check(Check(id="c", type=kind, params=params), CheckContext(output=output, events=events))
    print(name, r.passed, round(time.process_time() - t, 2), r.evidence)
'''


@pytest.mark.slow
@pytest.mark.parametrize("half", ["schema", "trace"])
def test_every_pattern_an_eval_set_supplies_is_time_limited(half):
    import subprocess
    # The json_schema checks in one test, the trace checks in another, so xdist can spread them.
    try:
        # A check of TEST_LIMIT_MS of CPU each; the wall-clock guard leaves room for a loaded machine.
        done = subprocess.run([sys.executable, "-c", _EVERY_PATTERN, _EVIL, _ALMOST, half],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail("a json_schema or trace check's pattern ran without a time limit")
    assert done.returncode == 0, done.stderr
    rows = [line.split(" ", 3) for line in done.stdout.splitlines()]
    assert len(rows) == {"schema": 4, "trace": 6}[half]
    for name, passed, seconds, evidence in rows:
        assert passed == "False", name  # not shown either way: failed, for command_not_ran too
        assert f"pattern timed out after {TEST_LIMIT_MS} ms" in evidence, (name, evidence)
        assert float(seconds) < 3 * TEST_LIMIT_MS / 1000, name  # one limit of CPU


@pytest.mark.slow
def test_a_check_shares_one_time_limit_across_all_its_searches(monkeypatch):
    import time

    import skill_eval.intake.timedmatch as tm
    monkeypatch.setattr(tm, "REGEX_TIMEOUT_MS", TEST_LIMIT_MS)
    events = tuple(Event(type="command", argv=(_ALMOST,)) for _ in range(20))
    t = time.process_time()
    got = run_check(chk("command_ran", pattern=_EVIL), ctx(events=events))
    assert not got.passed and "timed out" in got.evidence
    assert time.process_time() - t < 3 * TEST_LIMIT_MS / 1000  # one shared limit, not 20


def test_a_slow_check_set_up_does_not_time_out_a_benign_schema_pattern(monkeypatch):
    # On a loaded machine the first json_schema check of a process spends long importing and
    # checking the schema; only searching may count against the pattern's limit, and the schema
    # must not be cached as unusable because its trial validation ran out of time.
    import time

    from jsonschema import Draft202012Validator

    import skill_eval.intake.timedmatch as tm
    monkeypatch.setattr(tm, "REGEX_TIMEOUT_MS", 50)
    check_schema = Draft202012Validator.check_schema
    monkeypatch.setattr(Draft202012Validator, "check_schema",
                        classmethod(lambda cls, s, **kw: (time.sleep(0.2), check_schema(s, **kw))[1]))
    schema = {"type": "string", "pattern": "^slow-set-up-[0-9]+$"}  # a schema no other test caches
    got = run_check(chk("json_schema", schema=schema), ctx(json.dumps("slow-set-up-42")))
    assert got.passed, got.evidence


_SIGTERM_SCHEMA = r'''
import json, signal, sys
from skill_eval.grade.checks import CheckContext, run_check
from skill_eval.intake import limits
from skill_eval.model.cases import Check
limits.REGEX_TIMEOUT_MS = 10 ** 7
import skill_eval.intake.timedmatch as tm
tm.REGEX_TIMEOUT_MS = 10 ** 7
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
print("ready", flush=True)
run_check(Check(id="c", type="json_schema", params={"schema": {"pattern": sys.argv[1]}}),
          CheckContext(output=json.dumps(sys.argv[2])))
'''


@pytest.mark.slow
def test_sigterm_stops_a_long_schema_pattern_search():
    # Even with the time limit lifted, the search listens for signals (re would not).
    import signal
    import subprocess
    child = subprocess.Popen([sys.executable, "-c", _SIGTERM_SCHEMA, _EVIL, "a" * 60 + "!"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    import time
    time.sleep(0.5)
    child.send_signal(signal.SIGTERM)
    try:
        child.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail("a schema pattern search ignored SIGTERM")
    assert child.returncode == 143


def test_schema_patterns_that_do_not_compile_or_cannot_be_limited_are_invalid_input():
    for schema, why in (({"pattern": "(("}, "(("),
                        ({"patternProperties": {"[": {}}}, "["),
                        ({"patternProperties": {"a": {}}, "unevaluatedProperties": False},
                         "cannot be checked under a time limit")):
        assert why in (check_problem(chk("json_schema", schema=schema)) or "")
    assert check_problem(chk("json_schema", schema={"const": {"pattern": "(("}})) is None


# --- json_schema never retrieves, never loops (issue 14) ---------------------------------------

def _schema_check(schema, output="{}"):
    return run_check(chk("json_schema", schema=schema), ctx(output), source="evals/evals.json")


def test_json_schema_never_fetches_a_remote_ref():
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    outcome: list[BaseException | None] = []

    def grade():
        try:
            _schema_check({"$ref": f"http://127.0.0.1:{port}/s.json"})
            outcome.append(None)
        except BaseException as e:  # noqa: BLE001
            outcome.append(e)

    worker = threading.Thread(target=grade, daemon=True)
    worker.start()
    worker.join(20)
    try:
        assert not worker.is_alive(), "grading hung on a $ref to a server that never answers"
        with pytest.raises(TimeoutError):
            server.accept()  # nobody connected
    finally:
        server.close()
    assert isinstance(outcome[0], InvalidInput)
    assert "points outside the schema" in str(outcome[0])


@pytest.mark.parametrize("ref", ["file:///etc/passwd", "other.json", "/abs#x", "https://json-schema.org/x"])
def test_json_schema_refuses_every_non_local_ref(ref):
    with pytest.raises(InvalidInput, match="points outside the schema; only references within it"):
        _schema_check({"type": "object", "properties": {"a": {"$ref": ref}}})
    assert check_problem(chk("json_schema", schema={"$ref": ref})) is not None


def test_json_schema_local_refs_and_recursive_schemas_still_work():
    tree = {"$defs": {"n": {"type": "object", "properties": {"kids": {"type": "array",
                                                                      "items": {"$ref": "#/$defs/n"}}}}},
            "$ref": "#/$defs/n"}
    assert _schema_check(tree, '{"kids": [{"kids": []}]}').passed
    assert not _schema_check(tree, '{"kids": [{"kids": 3}]}').passed


@pytest.mark.parametrize("schema", [{"$ref": "#"}, {"allOf": [{"$ref": "#"}]},
                                    {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                                     "$ref": "#/$defs/a"}])
def test_json_schema_ref_loops_are_invalid_input_not_a_traceback(schema):
    with pytest.raises(InvalidInput, match="refers to itself in a loop"):
        _schema_check(schema)


def test_json_schema_deeply_nested_output_fails_the_check():
    deep = "[" * 5000 + "]" * 5000
    got = _schema_check({"type": "array"}, deep)
    assert not got.passed
    assert "nests JSON more than 100 levels deep" in got.evidence


def test_invalid_schema_is_invalid_input():
    with pytest.raises(InvalidInput, match="invalid JSON Schema at type"):
        _schema_check({"type": 5})



def test_a_shell_tool_call_and_its_command_are_one_step():
    from skill_eval.grade.checks.shared.context import CheckContext
    from skill_eval.grade.checks.trace import tool_call, tool_count_le
    from skill_eval.model.results import Event

    events = (Event("tool_call", "Bash", input='{"command": "ls inputs"}'),
              Event("command", argv=("ls", "inputs")), Event("tool_call", "Read"))
    ctx = CheckContext(output="", events=events)
    assert tool_count_le({"max": 2}, False, ctx)[0]  # two steps, not three
    assert tool_call({"tool": "bash", "pattern": "ls inputs"}, False, ctx)[0]
    assert tool_call({"required_calls": ["Bash", "Read"]}, False, ctx)[0]
