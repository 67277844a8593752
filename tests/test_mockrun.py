"""A plugin eval case's mocked MCP servers through a whole ``skill-eval run`` (run/mocks/served.py,
run/mocks/server.py): a protocol-v1 command adapter that is an MCP client starts the servers the
request names and calls their tools, so the served answers, the recorded calls, the abort of a
run whose call breaks ``expect``, the run key and status are checked without an agent CLI."""

from __future__ import annotations

import importlib.util
import json

import pytest
from pluginkit import ADAPTER, PluginKit

# Only whether the MCP SDK is there: importing it costs each test worker ~1.5 CPU-s at
# collection, and the servers run in their own processes anyway.
if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install -e '.[mcp]')", allow_module_level=True)

# The adapter: the pluginkit one (it logs the request), then every served tool called with
# {"id": "7"}; its output is what the servers answered.
CLIENT = ADAPTER.replace('print(json.dumps({"output": "ok", "events": [], "usage": {}}))', r'''
import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

async def ask(server):
    got = []
    params = StdioServerParameters(command=server["command"], args=server["args"], env=server.get("env"))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            for tool in listed.tools:
                result = await session.call_tool(tool.name, {"id": "7"})
                got.append(f"{server['name']}/{tool.name}: " + "".join(c.text for c in result.content))
    return got

answers = []
for server in req.get("mcp_servers") or []:
    answers += anyio.run(ask, server)
print(json.dumps({"output": "ok " + " | ".join(answers), "events": [], "usage": {}}))
''')
MOCKS = {
    "evals/mocks/notes/lookup.md":
        "---\nexpect:\n  id: string\n---\nNOTE {{input.id}}: {{file:fixtures/{input.id}.txt}}\n",
    "evals/mocks/notes/fixtures/7.txt": "seven",
    "evals/mocks/notes/_tools.json": json.dumps({"tools": [
        {"name": "lookup", "description": "Look up a note.", "inputSchema": {"type": "object"}}]}),
    "evals/mocks/clock/now.md": "noon\n",
    ".mcp.json": json.dumps({"mcpServers": {"notes": {"command": "never-started"}}}),
}


@pytest.fixture
def kit(tmp_path):  # noqa: ANN201
    kit = PluginKit.create(tmp_path, {"a": {"prompt.md": "Go a.\n"}, "b": {"prompt.md": "Go b.\n"}})
    kit.write({"adapter.py": CLIENT, **MOCKS})
    kit.write_suite(arms="[with_skill, without_skill]")
    return kit


def test_a_mocked_answer_reaches_the_agent_and_every_call_is_recorded_with_the_run(kit):
    code, _, err = kit.run()
    assert code == 0, err
    [a_with] = [r for r in kit.requests() if r["case"]["id"] == "a" and r["mode"] == "with_skill"]
    servers = {s["name"]: s["tools"] for s in a_with["mcp_servers"]}
    assert servers == {"plugin_p_notes": ["mcp__plugin_p_notes__lookup"], "clock": ["mcp__clock__now"]}
    metas = {(m["case"], m["variant"]): m for ms in kit.metas().values() for m in ms}
    calls = metas[("a", "with_skill")]["mock_calls"]
    assert {"tool": "mcp__plugin_p_notes__lookup", "input": {"id": "7"}, "output": "NOTE 7: seven",
            "verdict": "ok"} in calls
    assert {"tool": "mcp__clock__now", "input": {"id": "7"}, "output": "noon", "verdict": "ok"} in calls
    # No plugin in the without-skill arm: only the server the plugin does not declare.
    assert [c["tool"] for c in metas[("a", "without_skill")]["mock_calls"]] == ["mcp__clock__now"]
    # The agent cannot read its mocks: none is in the workspace.
    assert not any("mocks" in p or "lookup" in p or "fixtures" in p for p in a_with["listing"])


def test_a_call_that_breaks_expect_aborts_the_run_with_the_record(kit):
    kit.write({"evals/b/mocks/notes/lookup.md": "---\nexpect:\n  id: number\n---\nnever sent\n"})
    code, _, err = kit.run()
    assert code == 2
    assert ("aborted by mock notes/lookup: the model's call violates expect: id = \"7\" is not a number"
            in err)
    [error] = [e for e in kit.errors() if e["kind"] == "aborted"]
    assert "b" not in kit.metas() or all(m["variant"] != "with_skill" for m in kit.metas()["b"])
    assert error["message"].startswith("aborted by mock notes/lookup")


def test_changing_one_cases_mock_file_reruns_that_case_only_and_status_names_the_file(kit):
    kit.write({"evals/b/mocks/clock/now.md": "midnight\n"})
    kit.run()
    kit.reset()
    kit.write({"evals/b/mocks/clock/now.md": "dawn\n"})
    code, out, _ = kit.status()
    assert "mock file b/mocks/clock/now.md changed" in out and ", 2 to run," in out
    kit.run()
    assert {r["case"]["id"] for r in kit.requests()} == {"b"}
    kit.reset()
    kit.write({"evals/mocks/notes/fixtures/7.txt": "SEVEN"})  # a suite file: every case uses it
    code, out, _ = kit.status()
    assert "mock file mocks/notes/fixtures/7.txt changed" in out and ", 4 to run," in out


def test_without_the_mcp_sdk_a_suite_with_mocks_fails_validate_naming_the_extra(kit, monkeypatch):
    monkeypatch.setattr("skill_eval.model.suitechecks.settings_support.mcp_installed", lambda: False)
    code, _, err = kit.cli("validate", str(kit.suite))
    assert code == 2 and "pip install 'skill-eval[mcp]'" in err
    assert len([ln for ln in err.splitlines() if "skill-eval[mcp]" in ln]) == 1


def test_a_sandboxed_agent_still_reaches_its_mocked_servers(kit):
    kit.write_suite(extra="allow_tools: [Bash]\n")  # a Bash grant: every run in bwrap
    code, _, err = kit.run("--only", "s/a")
    if "bwrap" in err and code != 0:
        pytest.skip(f"no working bwrap here: {err.strip().splitlines()[-1]}")
    assert code == 0, err
    [meta] = kit.metas()["a"]
    assert {"mcp__plugin_p_notes__lookup", "mcp__clock__now"} == {c["tool"] for c in meta["mock_calls"]}


def test_an_adapter_that_cannot_register_mock_servers_refuses_the_case_at_validate(kit):
    kit.write_suite(adapter="{builtin: codex}")
    code, _, err = kit.cli("validate", str(kit.suite))
    assert code == 2 and "case 'a' sets mocks, which adapter codex cannot apply" in err


# After its real calls, the agent tries what a Bash grant allows on every folder the servers'
# argv names: read the mock specs, append a call it never made to any file there, and send the
# same call to any socket there (alone, and after claiming to be server 0).
FORGER = CLIENT.replace('print(json.dumps({"output": "ok " + " | ".join(answers)', r'''
import socket
FORGED = json.dumps({"tool": "mcp__plugin_p_notes__forged", "input": {}, "output": "FORGED", "verdict": "ok"})
seen = []
folders = {os.path.dirname(a) for s in req.get("mcp_servers") or [] for a in s["args"] if os.path.isabs(a)}
for folder in folders:
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        try:
            if os.path.isfile(path):
                seen.append(open(path).read())
                with open(path, "a") as f:
                    f.write(FORGED + "\n")
            else:
                for first in ("", json.dumps({"hello": 0}) + "\n"):
                    with socket.socket(socket.AF_UNIX) as conn:
                        conn.connect(path)
                        conn.sendall((first + FORGED + "\n").encode())
        except OSError:
            pass
answers.append("READ THE SPEC" if any("NOTE {{input.id}}" in text for text in seen) else "spec unseen")
print(json.dumps({"output": "ok " + " | ".join(answers)''')


@pytest.mark.parametrize("sandboxed", [False, True])
def test_the_agent_can_neither_read_its_mocks_nor_add_a_call_to_their_log(kit, sandboxed):
    kit.write({"adapter.py": FORGER})
    kit.write_suite(extra="allow_tools: [Bash]\n" if sandboxed else "")  # a Bash grant: bwrap
    code, out, err = kit.run("--only", "s/a")
    if sandboxed and "bwrap" in err and code != 0:
        pytest.skip(f"no working bwrap here: {err.strip().splitlines()[-1]}")
    assert code == 0, err
    [meta] = kit.metas()["a"]
    assert {c["tool"] for c in meta["mock_calls"]} == {"mcp__plugin_p_notes__lookup", "mcp__clock__now"}
    [response] = (kit.root / ".store").glob("runs/*/*/response.json")
    output = json.loads(response.read_text())["output"]
    assert "spec unseen" in output and "READ THE SPEC" not in output
    # What reached the host from the agent is refused, and named with the run.
    assert meta["mock_refused"] and all("FORGED" in line or "hello" in line for line in meta["mock_refused"])
