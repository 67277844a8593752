"""A plugin under test loaded whole, as ``claude plugin eval`` loads it: the conformance plugin in
tests/data/test_real_plugin_eval_plugin/conf has a command, an agent, a ``UserPromptSubmit`` hook,
a declared MCP server (mocked) and a skill. Run by the real ``claude plugin eval``, by skill-eval
with a suite file and by ``skill-eval run <plugin>`` with none, against the same scripted model:
every part reaches the model in the with-arm and none in the without-arm, under each tool (read
from the model server's request log); an edit to the command re-runs the with-arm only."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakemodel import FakeModel, Script
from plugineval_oracle import Capture, plugin_eval, skill_eval, stored_runs
from realcli import PLUGIN_EVAL_SETS, cli

from skill_eval.cli.main import main

# Only whether the MCP SDK is there: importing it costs each test worker ~1.5 CPU-s at
# collection, and the servers run in their own processes anyway.
if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install -e '.[mcp]')", allow_module_level=True)
pytestmark = pytest.mark.slow

PLUGIN = Path(__file__).parent / "data" / "test_real_plugin_eval_plugin" / "conf"
# What of each part reaches the model: the command's description (its listing) and body (the
# expanded /conf:coach), the agent's description (the Agent tool's listing), the hook's output,
# the mocked server's tool under the plugin's name, the skill's description.
ALWAYS = ("COMMAND-DESC-MARKER", "AGENT-DESC-MARKER", "HOOK-OUTPUT-MARKER",
          "mcp__plugin_conf_notes__lookup", "Summarise CSV files")
BODY = "COMMAND-BODY-MARKER"
SCRIPT = Script(skill_name="conf:csv-summary", answer_with_skill="done", answer_without_skill="done")


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_folder(claude: Path, plugin: Path, *args: str) -> tuple[Capture, str]:
    """``skill-eval <args> <plugin>`` with no suite file: the CLI found on PATH, the model server
    named by ANTHROPIC_BASE_URL (passed as plugin eval passes it); (capture, what it printed)."""
    out = io.StringIO()
    with FakeModel(SCRIPT) as fm, _environment(
            ANTHROPIC_BASE_URL=fm.url, ANTHROPIC_API_KEY="sk-fake",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            PATH=f"{claude.parent}{os.pathsep}{os.environ['PATH']}"), contextlib.redirect_stdout(out):
        main([*args, str(plugin)])
        requests = list(fm.requests)
    return Capture(requests, stored_runs(plugin / ".skill-eval" / "store",
                                         plugin / "evals" / "results" / "skill-eval")), out.getvalue()


def _markers(request: dict) -> set[str]:  # noqa: ANN001
    text = json.dumps(request["body"])
    return {m for m in (*ALWAYS, BODY) if m in text}


def arms(capture: Capture) -> tuple[list[set[str]], list[set[str]]]:
    """The plugin's parts in each agent request, split into requests that carried any (the
    with-arm's) and those that carried none (the without-arm's)."""
    found = [_markers(r) for r in capture.model_requests()]
    return [f for f in found if f], [f for f in found if not f]


@pytest.fixture(scope="module", params=PLUGIN_EVAL_SETS)
def three(request, tmp_path_factory):  # noqa: ANN001, ANN201
    claude = cli("claude", request.param)
    root = tmp_path_factory.mktemp(f"pe-plugin-{request.param}")
    copies = [shutil.copytree(PLUGIN, root / name / "conf") for name in ("pe", "se", "folder")]
    theirs = plugin_eval(claude, copies[0], SCRIPT)
    ours = skill_eval(claude, copies[1], SCRIPT, root / "se-work", arms=("with_skill", "without_skill"))
    folder, _ = run_folder(claude, copies[2], "run")
    return claude, theirs, ours, folder, copies[2]


@pytest.mark.parametrize("tool", ["plugin eval", "skill-eval suite", "skill-eval run <plugin>"])
def test_every_part_reaches_the_model_in_the_with_arm_and_none_in_the_without_arm(three, tool):
    capture = dict(zip(("plugin eval", "skill-eval suite", "skill-eval run <plugin>"), three[1:4],
                       strict=True))[tool]
    assert len(capture.runs) == 4 and all(r.error is None for r in capture.runs if r.arm == "with")
    # Claude Code 2.1.269 answers /conf:coach itself where the plugin is not loaded: skill-eval
    # records that run as one that never reached the model (plugin eval grades it).
    assert all(r.error is None or "no_model_request" in r.error for r in capture.runs), capture.runs
    loaded, bare = arms(capture)
    # Each with-arm run's requests carry the whole plugin; none carries only a part of it.
    assert len(loaded) >= 2 and all(set(ALWAYS) <= found for found in loaded), loaded
    # The command's body reaches the model where its case types /conf:coach, in the with-arm only.
    assert any(BODY in found for found in loaded)
    # The without-arm's requests (a CLI that answers an unknown command locally makes none for
    # that case) carry nothing of the plugin.
    assert len(bare) >= 1


def test_the_namespaced_skill_counts_as_loaded(three):
    *_, plugin = three
    store = plugin / ".skill-eval" / "store"
    runs = {(m["case"], m["variant"]): json.loads((p.parent / "response.json").read_text())
            for p in sorted(store.glob("runs/*/*/meta.json")) for m in [json.loads(p.read_text())]}
    plain = runs[("plain", "with_skill")]["events"]
    # The model asked for conf:csv-summary, the plugin's skill as Claude Code names it.
    assert any(e["type"] == "tool_call" and "conf:csv-summary" in e.get("input", "") for e in plain)
    assert [e["name"] for e in plain if e["type"] == "skill_loaded"] == ["csv-summary"]
    results = plugin / "evals" / "results" / "skill-eval"
    bench = json.loads((results / "csv-summary" / "benchmark.json").read_text())
    assert not any("not-loaded" in c["flags"] for c in bench["cases"])


def test_an_edited_command_re_runs_the_with_arm_only(three):
    claude, *_, plugin = three
    command = plugin / "commands" / "coach.md"
    command.write_text(command.read_text() + "Be brief.\n")
    _, said = run_folder(claude, plugin, "status")
    planned = [line for line in said.splitlines() if line.startswith("run ")]
    edited = [line for line in planned if "/with_skill/" in line]
    assert len(edited) == 2 and all("plugin conf: commands/coach.md changed" in line for line in edited), said
    # A without-arm run planned again is only the retry of one that never reached the model.
    assert all("previous attempt failed: no_model_request" in line for line in planned if line not in edited)
    again, _ = run_folder(claude, plugin, "run")
    loaded, bare = arms(again)
    assert loaded and not bare  # only with-arm runs called the model
    assert any("Be brief." in json.dumps(r["body"]) for r in again.model_requests())
