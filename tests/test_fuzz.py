"""A fuzzer over everything a user or an adapter hands skill-eval (issue 14).

Hypothesis mutates the demo's suite YAML (configs/demo.yaml copied with its examples), its eval
sets, its trigger set, and adapter responses, as bytes and as structure, then runs the CLI and
asserts what docs/reliability.md promises:

- the exit code is 0, 1 or 2 (2 for bad input), and nothing raises out of ``main``;
- no traceback on stderr or stdout;
- no file is written outside the suite's store and results folders;
- each example finishes in bounded time.

The README's test command runs about two hundred examples in total (tests/budgets.py; each
example's change is tried by every command it reaches, so each promise is checked on generated
input in every test), derandomized so every run tries the same inputs;
``SKILL_EVAL_FUZZ_EXAMPLES=5000`` runs that many per test instead. Every input it ever found
to break a promise stays below as an ``@example``, so it is tried first on every run.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from budgets import examples
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from scratch import kept, temp_root
from suitekit import main_in

ROOT = Path(__file__).resolve().parent.parent
SECONDS_PER_EXAMPLE = 30.0


def budget(default: int) -> settings:
    return settings(max_examples=examples(default), derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


# ------------------------------------------------------------------------------------ the project

@contextlib.contextmanager
def demo_copy(warm: bool = False) -> Iterator[Path]:
    """configs/demo.yaml and examples/ in a fresh folder: store and results land inside it. The
    project sits three folders below a private temporary folder, so that a write climbing out
    of it with '..' lands where ``cli`` looks. ``warm``: with the store and results of a run of
    the unchanged demo, so that an example pays only for the runs its change touches (as a user
    editing an eval set does) and the fuzzer tries more inputs in the same time."""
    with tempfile.TemporaryDirectory(prefix="fuzz-", dir=temp_root()) as tmp:
        root = _demo_project(Path(tmp) / "l1" / "l2" / "l3" / "proj")
        if warm:
            for name in (".skill-eval", "results"):
                shutil.copytree(_warm_demo() / name, root / name, symlinks=True)
        yield root


def _demo_project(root: Path) -> Path:
    """configs/demo.yaml and examples/ copied to ``root``."""
    (root / "configs").mkdir(parents=True)
    shutil.copy(ROOT / "configs" / "demo.yaml", root / "configs" / "demo.yaml")
    shutil.copytree(ROOT / "examples", root / "examples")
    return root


def _warm_demo() -> Path:
    """A demo project run once at one iteration, kept for this test process."""
    return kept("fuzz-warm", _run_demo)


def _run_demo(folder: Path) -> Path:
    root = _demo_project(folder / "proj")
    code, _, err = main_in(root, "run", "configs/demo.yaml", "--iterations", "1")
    assert code == 0, err
    return root


def snapshot(root: Path, allowed: tuple[Path, ...]) -> dict[str, tuple[int, int] | None]:
    """Every file outside the allowed folders with its size and mtime (folders: that they exist).
    The allowed folders are not walked (a warm store holds thousands of files) and the folders on
    the way to one are left out."""
    keep = {str(a) for a in allowed}
    on_the_way = {str(parent) for a in allowed for parent in a.parents}
    out: dict[str, tuple[int, int] | None] = {}
    for top, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = os.path.join(top, name)
            if path in keep or path in on_the_way:
                continue
            try:
                st_ = os.lstat(path)
            except OSError:
                continue
            out[os.path.relpath(path, root)] = None if stat.S_ISDIR(st_.st_mode) \
                else (st_.st_size, st_.st_mtime_ns)
        dirs[:] = [d for d in dirs if os.path.join(top, d) not in keep]
    return out


def _suite_folders(root: Path, suite: str) -> tuple[Path, ...]:
    """The store and results folders the suite names (defaults when it does not load)."""
    from skill_eval.errors import SkillEvalError
    from skill_eval.model.config import load_suite

    try:
        loaded = load_suite(root / suite)
        return (loaded.store, loaded.results)
    except (SkillEvalError, OSError):
        return (root / ".skill-eval", root / "results")


def cli(root: Path, *args: str, suite: str = "configs/demo.yaml", allowed: tuple[str, ...] = ()
        ) -> tuple[int, str, str]:
    """``skill-eval ARGS`` in-process from ``root``, checking every promise but the exit code's meaning."""
    keep = (*_suite_folders(root, suite), *(root / a for a in allowed))
    private = _private_top(root)
    before = snapshot(private, keep)
    start = time.monotonic()
    code, stdout, stderr = main_in(root, *args)
    elapsed = time.monotonic() - start
    after = snapshot(private, keep)
    assert code in (0, 1, 2), (code, stderr[-2000:])
    assert "Traceback" not in stderr and "Traceback" not in stdout, stderr[-4000:]
    assert before == after, sorted(set(after.items()) ^ set(before.items()))[:5]
    assert elapsed < SECONDS_PER_EXAMPLE, f"{args} took {elapsed:.1f} s"
    event(f"{args[0]} exit {code}")  # --hypothesis-show-statistics: which paths the examples reached
    return code, stdout, stderr


def _private_top(root: Path) -> Path:
    """The temporary folder that holds only this example's project."""
    for parent in root.parents:
        if parent.name.startswith(("fuzz-", "responses")):
            return parent
    return root


# ------------------------------------------------------------------------------------- strategies

HOSTILE_TEXT = ["", " ", ".", "..", "../../x", "x/../../tmp/p", "/etc/passwd", "C:\\x", "a" * 300,
                "\x00", "\x07", "\x1b[31m", "\ud83d", "\udc00x", "é", "\u202e", "*", "&a",
                "!!python/object:os.system", "^(a+)+$", "(x+x+)+y", "(", "file:///etc/passwd",
                "http://127.0.0.1:9/s.json", "#", "{}", "[]", ".nan", "1e999", "-1", "0", "true", "null", "~"]
_text = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=12))
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 70), 2 ** 70),
                    st.floats(allow_nan=True, allow_infinity=True), _text)
def _nest(n: int) -> list[Any]:
    deep: list[Any] = []
    for _ in range(n):
        deep = [deep]
    return deep


_deep = st.integers(20, 500).map(_nest)  # past the nesting limit, within what json.dumps can write
VALUES = st.one_of(_deep, st.recursive(_scalar, lambda inner: st.lists(inner, max_size=4)
                                       | st.dictionaries(_text, inner, max_size=4), max_leaves=16))

SNIPPETS = [b"&a ", b"*a", b"<<: *a\n", b"\x00", b"\xff\xfe", b'"\\ud83d"', b"!!python/name:os.system",
            b"[" * 300, b"\t", b": ", b"- ", b"---\n", b".nan", b"-.inf", b"1e999", b"{", b"}", b"\n  ",
            b"\r", b"\xe2\x80", b"'", b'"', b"#", b"|", b">", b"%YAML 1.1\n", b"\\"]
_ops = st.lists(st.tuples(st.floats(0, 1), st.sampled_from(["insert", "delete", "replace"]),
                          st.one_of(st.sampled_from(SNIPPETS), st.binary(min_size=1, max_size=8))),
                min_size=1, max_size=4)


def mutate_bytes(data: bytes, ops: list[tuple[float, str, bytes]]) -> bytes:
    for where, kind, payload in ops:
        at = int(where * len(data))
        if kind == "insert":
            data = data[:at] + payload + data[at:]
        elif kind == "delete":
            data = data[:at] + data[at + len(payload):]
        else:
            data = data[:at] + payload + data[at + len(payload):]
    return data


def set_at(doc: Any, choices: list[int], value: Any) -> Any:
    """``doc`` with one node (picked by ``choices``, walking down) replaced by ``value``."""
    if not choices or not isinstance(doc, dict | list) or not doc:
        return value
    keys = list(doc) if isinstance(doc, dict) else list(range(len(doc)))
    key = keys[choices[0] % len(keys)]
    if len(choices) == 1:
        doc[key] = value
    else:
        doc[key] = set_at(doc[key], choices[1:], value)
    return doc


_paths = st.lists(st.integers(0, 50), min_size=0, max_size=5)
_new_keys = st.one_of(st.sampled_from(["id", "prompt", "files", "checks", "expected_output", "assertions",
                                       "should_trigger", "split", "query", "evals", "queries", "skill_name",
                                       "type", "pattern", "schema", "value", "path", "file"]), _text)


def json_text(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=True, allow_nan=True)


# ------------------------------------------------------------------------------------ suite YAML

@budget(25)
@given(_ops)
@example([(0.5, "insert", b"a: &a [1, *a]\n")])
@example([(0.0, "insert", b"x: &a [" + b",".join([b"lol"] * 9) + b"]\n" + b"".join(
    b"%c: &%c [" % (c + 1, c + 1) + b",".join([b"*%c" % c] * 9) + b"]\n" for c in range(97, 105)))])
@example([(0.9, "insert", b"\ntimeout_seconds: .nan\n")])
@example([(0.1, "insert", b"\x00")])
@example([(0.375, "insert", b"[" * 300)])  # found: skills_dir too long a name for stat()
def test_suite_yaml_bytes(ops):
    with demo_copy() as root:
        suite = root / "configs" / "demo.yaml"
        suite.write_bytes(mutate_bytes(suite.read_bytes(), ops))
        code, _, _ = cli(root, "validate", "configs/demo.yaml")
        if code == 0:
            cli(root, "status", "configs/demo.yaml", "--json")


@budget(20)
@given(_paths, _new_keys, VALUES)
@example([7], "timeout_seconds", float("nan"))
@example([0], "models", ["../../up", "a/b"])
@example([2], "skills", ["../../etc"])
@example([], "store", "s" * 300)
def test_suite_yaml_structure(path, key, value):
    import yaml

    with demo_copy() as root:
        suite = root / "configs" / "demo.yaml"
        doc = yaml.safe_load(suite.read_text())
        if path:
            doc = set_at(doc, path, value)
        else:
            doc[key] = value
        if isinstance(doc, dict):
            for name in ("store", "results"):
                # An absolute store is the user's choice, honoured; here it would write outside the
                # test's temporary folder, so keep the fuzzed value but make it relative.
                value_ = doc.get(name)
                if isinstance(value_, str) and (value_.startswith(("/", "\\", "~")) or ":" in value_):
                    doc[name] = "x" + value_.replace(":", "_")
        suite.write_text(json_text(doc))  # JSON is YAML, and it can carry any string escaped
        code, _, _ = cli(root, "validate", "configs/demo.yaml")
        if code == 0:
            cli(root, "status", "configs/demo.yaml", "--json")


# -------------------------------------------------------------------------------------- eval sets

EVALS = Path("examples/skills/commit-message/evals/evals.json")
TRIGGERS = Path("examples/skills/commit-message/evals/trigger-queries.json")


def _hostile_check() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(lambda p: {"type": "regex", "pattern": p}, _text),
        st.builds(lambda p: {"type": "not_regex", "pattern": p}, _text),
        st.builds(lambda t, p: {"type": t, "pattern": p},
                  st.sampled_from(["command_ran", "command_not_ran", "tool_call"]), _text),
        st.builds(lambda p: {"type": "command_order", "patterns": [p]}, _text),
        st.builds(lambda p: {"type": "json_schema", "schema": {"pattern": p}}, _text),
        st.builds(lambda s: {"type": "json_schema", "schema": s}, st.one_of(
            st.sampled_from([{"$ref": "#"}, {"$ref": "file:///etc/passwd"}, {"$ref": "http://127.0.0.1:9/x"},
                             {"type": 5}, {"allOf": [{"$ref": "#"}]}, {"$defs": {"a": {"$ref": "#/$defs/a"}},
                                                                          "$ref": "#/$defs/a"}]),
            st.dictionaries(_text, VALUES, max_size=3))),
        st.builds(lambda p: {"type": "file_exists", "path": p}, _text),
        st.builds(lambda p: {"type": "json_path_equals", "path": p, "value": 1}, _text),
        st.builds(lambda t, v: {"type": t, "value": v}, _text, VALUES),
    )


@budget(15)
@given(st.one_of(
    st.tuples(st.just("set"), _paths, VALUES),
    st.tuples(st.just("check"), st.integers(0, 10), _hostile_check()),
    st.tuples(st.just("field"), st.integers(0, 10), st.tuples(_new_keys, VALUES))))
@example(("set", [1, 0, 0], "x/../../../escaped"))
@example(("set", [1, 0, 0], "c" * 300))
@example(("set", [1, 0, 1], "hi \ud83d"))
@example(("check", 0, {"type": "regex", "pattern": "^(a+)+$"}))
@example(("check", 0, {"type": "json_schema", "schema": {"$ref": "#"}}))
@example(("check", 0, {"type": "json_schema", "schema": {"pattern": "^(a|a)+$"}}))
@example(("check", 0, {"type": "command_not_ran", "pattern": "^(a|a)+$"}))
@example(("field", 0, ("files", ["../../../../etc/passwd"])))
def test_eval_set_structure(change):
    with demo_copy(warm=True) as root:
        path = root / EVALS
        doc = json.loads(path.read_text())
        kind, where, what = change
        if kind == "set":
            doc = set_at(doc, where, what)
        elif kind == "check":
            case = doc["evals"][where % len(doc["evals"])]
            case.setdefault("checks", []).append(what)
        else:
            doc["evals"][where % len(doc["evals"])][what[0]] = what[1]
        path.write_text(json_text(doc))
        code, _, _ = cli(root, "validate", "configs/demo.yaml")
        cli(root, "inspect", str(EVALS))
        if code == 0:
            # A set validate accepts goes all the way: runs, grades, tables, a report.
            cli(root, "run", "configs/demo.yaml", "--iterations", "1")
            cli(root, "report", "configs/demo.yaml", "--format", "html")


@budget(20)
@given(st.sampled_from([EVALS, TRIGGERS]), _ops)
@example(EVALS, [(0.5, "insert", b"[" * 5000)])
@example(TRIGGERS, [(0.3, "replace", b"\\ud83d")])
def test_eval_and_trigger_set_bytes(which, ops):
    with demo_copy() as root:
        path = root / which
        path.write_bytes(mutate_bytes(path.read_bytes(), ops))
        cli(root, "validate", "configs/demo.yaml")
        cli(root, "inspect", str(which))


@budget(15)
@given(_paths, VALUES)
@example([1, 0, 1], "\ud83d")
@example([1, 0, 0], "../x")
@example([1, 0, 2], float("nan"))
def test_trigger_set_structure(path, value):
    with demo_copy() as root:
        file = root / TRIGGERS
        file.write_text(json_text(set_at(json.loads(file.read_text()), path, value)))
        code, _, _ = cli(root, "validate", "configs/demo.yaml")
        cli(root, "inspect", str(TRIGGERS))
        if code == 0:
            cli(root, "status", "configs/demo.yaml", "--json")


# -------------------------------------------------------------------------------- adapter responses

_RESPONSE_ADAPTER = """import sys
sys.stdin.read()
sys.stdout.buffer.write(open(sys.argv[1], "rb").read())
"""

_GOOD = {"output": "feat(web): add login page", "events": [{"type": "skill_loaded", "name": "x"}],
         "usage": {"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.001}}
_response_docs = st.one_of(
    st.builds(lambda p, v: set_at(json.loads(json.dumps(_GOOD)), p, v), _paths, VALUES),
    st.dictionaries(st.sampled_from(["output", "events", "usage", "x"]), VALUES, max_size=3),
    VALUES)
_responses = st.one_of(
    _response_docs.map(lambda d: json_text(d).encode()),
    _ops.map(lambda ops: mutate_bytes(json.dumps(_GOOD).encode(), ops)),
    st.binary(max_size=64))


@pytest.fixture(scope="module")
def response_suite(tmp_path_factory) -> Path:
    """One skill with one case, answered by an adapter that prints response.bin verbatim."""
    root = tmp_path_factory.mktemp("responses") / "l1" / "l2" / "l3" / "proj"
    skill = root / "skills" / "commit-message"
    shutil.copytree(ROOT / "examples" / "skills" / "commit-message", skill)
    evals = json.loads((skill / "evals" / "evals.json").read_text())
    (skill / "evals" / "evals.json").write_text(json.dumps({**evals, "evals": evals["evals"][:1]}))
    (skill / "evals" / "trigger-queries.json").unlink()
    (root / "adapter.py").write_text(_RESPONSE_ADAPTER)
    (root / "suite.yaml").write_text(
        "suite: responses\nskills_dir: skills\nadapter:\n  command: [" + json.dumps(sys.executable)
        + ", -S, adapter.py, response.bin]\niterations: 1\nvariants: [with_skill]\njobs: 1\n"
        "timeout_seconds: 20\nstore: .skill-eval/store\nresults: results\n")
    return root


@budget(10)
@given(_responses)
@example(b'{"output": "with \\ud83d", "events": [{"type": "t\\udc00"}], "usage": {"k\\ud800": 1}}')
@example(b'{"output": "x", "usage": ' + b"[" * 100000 + b"]" * 100000 + b"}")
@example(b'{"output": "x", "usage": {"cost_usd": NaN}}')
@example(b'{"output": "x", "usage": {"input_tokens": 1' + b"0" * 400 + b'}}')  # issue 20: overflowed
@example(b'{"output": "x\\u001b]52;c;aGk=\\u0007\\r"}')  # issue 20: terminal control sequences
@example(b'{"output": "\\u0000\\u0007"}')
@example(b"\xff\xfe\x00")
@example(b'{"\\ud800":null}')  # found: the error message quoting the field could not be stored
def test_adapter_responses_end_to_end(response_suite, raw):
    (response_suite / "response.bin").write_bytes(raw)
    code, out, err = cli(response_suite, "run", "suite.yaml", "--force", suite="suite.yaml",
                         allowed=("response.bin",))
    assert (response_suite / "results" / "summary.md").is_file()


@budget(100)
@given(_responses)
@example(b'{"output": "' + b"a" * 40 + b'!"}')
@example(b'{"\\n":null}')  # a key holding a newline: the unknown-field error stays one line
def test_adapter_responses_parse_and_grade(raw):
    """The cheap half: protocol parsing, grading with the demo's checks, and what the store writes."""
    from skill_eval.errors import AdapterError
    from skill_eval.grade.grading import grade_run
    from skill_eval.model.evalsets import read_evalset
    from skill_eval.model.results import RunResult
    from skill_eval.run.protocol import parse_response

    cases = _demo_cases()
    try:
        response = parse_response(raw, "adapter")
    except AdapterError as e:
        assert "\n" not in str(e)
        return
    result = RunResult(key="k", duration_s=1.0, response=response)
    for case in cases:
        grade = grade_run(case, result, "commit-message", False)
        json.dumps(grade, ensure_ascii=False).encode("utf-8")
    json.dumps({"output": response.output, "usage": response.usage}, ensure_ascii=False).encode("utf-8")
    assert read_evalset  # imported for _demo_cases


_CASES: list[Any] = []


def _demo_cases() -> list[Any]:
    from skill_eval.model.evalsets import read_evalset

    if not _CASES:
        skill = ROOT / "examples" / "skills" / "commit-message"
        _CASES.extend(read_evalset(skill / "evals" / "evals.json", skill).cases)
    return _CASES
