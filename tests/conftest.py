"""Shared fixtures; the inner loop's slow marks; a bytecode cache the suite keeps even where
PYTHONDONTWRITEBYTECODE is set."""

import os as _os
import signal as _signal
import sys as _sys
import tempfile as _tempfile

import pytest

# The suite starts hundreds of Python processes (the CLI, builtin adapters, Ray workers), and each
# pytest worker rewrites every test module's asserts: where PYTHONDONTWRITEBYTECODE is set (some
# sandboxes set it), each of them compiles the same sources again, a tenth of the suite's CPU.
# There, keep the bytecode in a cache of the suite's own, outside the sources and the test
# projects (whose files some tests hash or list).
if _os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    _sys.dont_write_bytecode = False
    _sys.pycache_prefix = _os.environ["PYTHONPYCACHEPREFIX"] = _os.path.join(
        _tempfile.gettempdir(), f"skill-eval-tests-pycache-{_os.getuid()}")

# The suite's throw-away projects and its runs' workspaces on a RAM-backed folder where there is
# one (tests/scratch.py); set before the xdist workers start, so that they inherit it.
import scratch as _scratch  # noqa: E402

_os.environ.setdefault("SKILL_EVAL_TEST_SYSTEM_TMP", _scratch.SYSTEM_TMP)
_os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", _scratch.temp_root())
_os.environ["TMPDIR"] = _scratch.workspace_root()
_tempfile.tempdir = None  # read TMPDIR again

# A shell starts a background job (`pytest ... &`) with SIGINT ignored, and every process the suite
# starts would inherit that: the Ctrl-C tests would then see skill-eval keep the user's choice and
# go on running. The suite is the one that ignores it, not the user, so give its children the
# default back (a handler, unlike SIG_IGN, is reset by exec).
if _signal.getsignal(_signal.SIGINT) is _signal.SIG_IGN:
    _signal.signal(_signal.SIGINT, _signal.default_int_handler)


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: two workers per core (up to four more than the cores). About a quarter of the
    suite's test time is waiting, not CPU (a Ray cluster starting, a CLI's retries against a
    closed port, timeouts and sleeps), and a second worker on a core fills it."""
    if _os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own reading of it
    cores = len(_os.sched_getaffinity(0)) if hasattr(_os, "sched_getaffinity") else _os.cpu_count() or 1
    return cores + min(cores, 4)


@pytest.fixture
def system_tmp(monkeypatch):
    """Workspaces in the system's temp folder, not on /dev/shm (see tests/scratch.py: codex's own
    sandbox)."""
    monkeypatch.setenv("TMPDIR", _scratch.SYSTEM_TMP)
    monkeypatch.setattr(_tempfile, "tempdir", None)


# --- runs layer (runner/store/workspace tests): factories for Suite / RunSpec -------------------
import hashlib as _hashlib  # noqa: E402
import json as _json  # noqa: E402
import stat as _stat  # noqa: E402
from pathlib import Path as _Path  # noqa: E402


@pytest.fixture
def write_adapter(tmp_path):
    """write_adapter(body, name="adapter.sh") -> Path of an executable script in tmp_path."""
    def make(body: str, name: str = "adapter.sh") -> _Path:
        path = tmp_path / name
        path.write_text(body)
        path.chmod(path.stat().st_mode | _stat.S_IXUSR)
        return path
    return make


@pytest.fixture
def run_setup(tmp_path):
    """run_setup(argv, **suite_overrides) -> (suite, spec_factory); a skill 'demo-skill' with one
    fixture; spec_factory(arm="with_skill", iteration=1, prompt=..., key=...) -> RunSpec."""
    from skill_eval.model.cases import Case, Fixture
    from skill_eval.model.config import AdapterConfig, Suite
    from skill_eval.plan.adapter import ResolvedAdapter
    from skill_eval.plan.types import RunSpec

    skill = tmp_path / "skills" / "demo-skill"
    (skill / "evals" / "files").mkdir(parents=True)
    (skill / "references").mkdir()
    (skill / "SKILL.md").write_text("---\nname: demo-skill\ndescription: A demo.\n---\nDo it well.\n")
    (skill / "references" / "guide.md").write_text("guide\n")
    (skill / "evals" / "evals.json").write_text(_json.dumps({"evals": []}))
    (skill / "evals" / "files" / "data.txt").write_bytes(b"fixture \x00 bytes\r\n")
    config = tmp_path / "suite.yaml"
    config.write_text("suite: t\n")

    def make(argv, **overrides):
        suite = Suite(path=config, name="t", skills_dir=tmp_path / "skills", skills=(),
                      adapter=AdapterConfig(command=tuple(str(a) for a in argv)),
                      store=tmp_path / "store", results=tmp_path / "results",
                      **{"timeout_seconds": 10.0, **overrides})
        adapter = ResolvedAdapter(name="fake", argv=tuple(str(a) for a in argv),
                                  identity={"command": [str(a) for a in argv]})

        def spec(arm="with_skill", iteration=1, prompt="Do the task.", key=None, kind="task"):
            case = Case(id="c1", prompt=prompt, kind=kind,
                        fixtures=(Fixture("data.txt", skill / "evals" / "files" / "data.txt"),))
            key = key or _hashlib.sha256(f"{arm}/{iteration}/{prompt}".encode()).hexdigest()
            return RunSpec(key=key, skill_name="demo-skill", skill_path=skill, case=case,
                           arm=arm, model="m", iteration=iteration, adapter=adapter)
        return suite, spec
    return make


# --- the tiers: `-m "not e2e"` (the README's command), `-m e2e` (CI too), `-m "not slow"` ---------
# e2e: a test that drives a real outside program or service: the agent CLIs, Chromium through
# Playwright, bubblewrap, Ray, moto's S3 server, the MCP SDK's servers. Whole modules here; a
# test elsewhere that uses the Chromium or Ray fixtures (E2E_FIXTURES) is one too, and a single
# test in a mixed module carries @pytest.mark.e2e. Every e2e test is also slow.
E2E_MODULES = frozenset({
    "test_real_agents", "test_real_agents_axis", "test_real_jsregex", "test_real_judges",
    "test_real_more_agents", "test_real_plugin_eval_agentmocks", "test_real_plugin_eval_graders",
    "test_real_plugin_eval_judges", "test_real_plugin_eval_mocks", "test_real_plugin_eval_plugin",
    "test_real_plugin_eval_scores", "test_real_plugin_eval_settings",
    "test_mockrun", "test_mockrun_agent",  # the MCP SDK's servers
    "test_remote_tier",  # moto's S3 server
    "test_sandbox",  # bubblewrap
})
E2E_FIXTURES = frozenset({"browser", "ray_env"})  # test_review_page's Chromium, test_executors' Ray
# slow: seconds each, left out of the inner loop `-m "not slow"`; whole modules that run long
# property runs or many real processes (signals, kill -9); single slow tests carry
# @pytest.mark.slow. CI runs everything.
SLOW_MODULES = frozenset({
    "test_agents_e2e", "test_e2e_benchmark", "test_e2e_realworld", "test_equivalence",
    "test_fuzz", "test_reliability", "test_review_page", "test_signals",
})
# Single long property runs in files that must stay untouched (the golden key tests): by name here.
SLOW_TESTS = frozenset({"test_keys.py::test_any_case_is_graded_as_in_a_suite_holding_it_alone"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module is not None else ""
        if module in E2E_MODULES or E2E_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
        if (item.get_closest_marker("e2e") is not None or module in SLOW_MODULES
                or item.nodeid.rpartition("/")[2].split("[")[0] in SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
