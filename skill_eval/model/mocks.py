"""A ``claude plugin eval`` case's mocked MCP servers (FORMAT.md §5), read from the suite's
``mocks/<server>/<tool>.md`` and the case's own ``mocks/``, the case's files overriding the
suite's file by file.

Each server is served to the agent by a stand-in (run/mocks/server.py) under the name plugin eval
gives it, as checked with the real CLI (docs/dialects.md): a server the plugin declares in its MCP
configuration ("shadow") is ``plugin_<plugin>_<server>``, so its tools are
``mcp__plugin_<plugin>_<server>__<tool>``, and exists only where the plugin is loaded (the
with-skill arm); a server the plugin does not declare ("standalone") is ``<server>``, in both arms.
A tool with no mock file is not served; ``_tools.json`` (a saved ``tools/list`` answer) gives a
mocked tool its real description and schema, else it has none and a permissive schema.

``type: agent`` mocks and ``_server.md`` (one agent mock for the tools its ``tools:`` lists; a
``<tool>.md`` for the same tool wins) are played by the suite's judge (model/mockagent.py); their
recordings in ``mocks/.replay/<server>/`` beside the mock that answers are replayed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from skill_eval.errors import InvalidInput
from skill_eval.fs.confined import Unreadable, confined_bytes
from skill_eval.fs.readonce import ReadOnce, quiet
from skill_eval.intake.yamlpos import loads_yaml
from skill_eval.model.mockagent import MAX_RECORDING_BYTES, RECORDING, agent_body, mock_digest
from skill_eval.model.mockrules import rule_problem
from skill_eval.model.plugins.layout import plugin_name

Report = Callable[[str], None]
EXTRA = "mcp"  # the optional extra that serves mocks: pip install 'skill-eval[mcp]'
KEYS = ("type", "expect", "error", "abort_when", "tools")
SERVER_MD = "_server.md"
REPLAY = ".replay"
PERMISSIVE = {"type": "object", "additionalProperties": True}
MAX_FIXTURE = 4 * 1024 * 1024  # plugin eval's cap on one fixture file


@dataclass(frozen=True)
class MockTool:
    name: str
    body: str
    error: bool = False
    expect: tuple[tuple[str, Any], ...] = ()
    source: str = ""  # the file, relative to the eval folder (case files: <case>/mocks/...)
    fixtures: tuple[tuple[str, str], ...] = ()  # "fixtures/<name>" -> text, beside the mock file
    kind: str = "fixed"  # or "agent": the suite's judge plays the server
    abort_when: str | None = None
    digest: str = ""  # agent: the mock file's part of a call's identity (replays)
    replays: tuple[tuple[str, str], ...] = ()  # agent: recording file name -> text (mocks/.replay/)


@dataclass(frozen=True)
class MockServer:
    name: str
    declared: bool  # the plugin declares it: served as plugin_<plugin>_<name>, with-skill arm only
    tools: tuple[MockTool, ...]
    listed: tuple[tuple[str, str], ...] = ()  # tool -> its _tools.json entry (JSON text)

    def registered(self, plugin: str) -> str:
        return f"plugin_{plugin}_{self.name}" if self.declared else self.name

    def tool_entry(self, tool: MockTool) -> dict[str, Any]:
        """What ``tools/list`` answers for a tool: its saved entry's description and schema."""
        saved = json.loads(dict(self.listed).get(tool.name, "{}"))
        return {"name": tool.name, "description": str(saved.get("description") or ""),
                "inputSchema": saved.get("inputSchema") if isinstance(saved.get("inputSchema"), dict)
                else dict(PERMISSIVE)}


@dataclass(frozen=True)
class Mocks:
    plugin: str
    servers: tuple[MockServer, ...]
    files: tuple[tuple[str, str], ...]  # every file the servers answer from: rel -> sha256
    # The eval folder, where recordings are adopted (never a key: the same suite elsewhere).
    root: str = field(default="", compare=False, hash=False)

    def served(self, with_plugin: bool) -> tuple[MockServer, ...]:
        """The servers a run gets: a declared one only where the plugin (the skill) is loaded."""
        return tuple(s for s in self.servers if s.tools and (with_plugin or not s.declared))

    def agent_sources(self, with_plugin: bool = True) -> list[str]:
        """The agent mock files the served servers answer from (the judge plays them)."""
        return sorted({t.source for s in self.served(with_plugin) for t in s.tools if t.kind == "agent"})

    def tool_names(self, with_plugin: bool) -> list[str]:
        return [f"mcp__{s.registered(self.plugin)}__{t.name}"
                for s in self.served(with_plugin) for t in s.tools]

    def spec(self, server: MockServer) -> dict[str, Any]:
        """What run/mocks/server.py serves for one server (JSON)."""
        return {"server": server.name, "registered": server.registered(self.plugin),
                "tools": [{**server.tool_entry(t), "body": t.body, "error": t.error,
                           "expect": [list(e) for e in t.expect], "fixtures": dict(t.fixtures),
                           "kind": t.kind, "abort_when": t.abort_when, "digest": t.digest,
                           "replays": dict(t.replays),
                           "replay_dir": str(Path(self.root) / replay_dir(t.source, server.name))}
                          for t in server.tools]}

    def key_material(self) -> dict[str, str]:
        """One entry per file (so status names the mock file that changed), and the names the
        servers are registered under (the plugin's name and MCP configuration decide them)."""
        return {"mocks " + rel: digest for rel, digest in self.files} | {
            "mock_servers": ",".join(sorted(s.registered(self.plugin) for s in self.servers))}


def replay_dir(source: str, server: str) -> str:
    """Where a mock's recordings are replayed from: ``.replay/<server>/`` beside the ``mocks/``
    folder that holds it (relative to the eval folder, as ``source`` is)."""
    return f"{Path(source).parent.parent.as_posix()}/{REPLAY}/{server}"


def mcp_installed() -> bool:
    """Whether the MCP SDK that serves mocks (run/mocks/server.py) is installed."""
    try:
        return importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):
        return False


def _manifests(root: Path) -> tuple[Path, Path]:
    return root / ".claude-plugin" / "plugin.json", root / "plugin.json"


def plugin_files(root: Path) -> tuple[Path, ...]:
    """Every plugin file plugin_name and declared_servers read or look for (existing or not):
    the reader's inputs outside the eval folder (EvalSet.inputs)."""
    out = [*_manifests(root), root / ".mcp.json"]
    for manifest in _manifests(root):
        data = _json(manifest)
        listed = data.get("mcpServers") if isinstance(data, dict) else None
        if isinstance(listed, str):
            out.append(root / listed)
    return tuple(dict.fromkeys(out))


def declared_servers(root: Path) -> set[str]:
    """Server names in the plugin's MCP configuration (``.mcp.json``, plugin.json's ``mcpServers``)."""
    found: set[str] = set()
    manifest = next((m for m in _manifests(root) if m.is_file()), None)
    sources: list[Any] = [_json(root / ".mcp.json")]
    listed = _json(manifest).get("mcpServers") if manifest and isinstance(_json(manifest), dict) else None
    sources.append(_json(root / listed) if isinstance(listed, str) else listed)
    for data in sources:
        if isinstance(data, dict):
            servers = data.get("mcpServers", data)
            found |= {str(k) for k in servers} if isinstance(servers, dict) else set()
    return found


def _json(path: Path) -> Any:
    """A plugin's JSON file, or None when it is missing, is not JSON, or is a FIFO or device
    (never waited on: the reader refuses it, plugin_eval.py)."""
    try:
        return json.loads(confined_bytes(path))
    except (Unreadable, ValueError):
        return None


def _front(text: str, display: str, report: Report) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        return {}, text
    head, sep, body = text[3:].partition("\n---")
    if not sep:
        report(f"{display}: frontmatter is not closed: add a '---' line after it")
        return {}, text
    try:
        data = loads_yaml(head, display).data
    except InvalidInput as exc:
        report(f"{display}: {exc.problems[0].message}")
        return {}, body
    if data is not None and not isinstance(data, dict):
        report(f"{display}: frontmatter must be a mapping of keys")
        return {}, body
    return data or {}, body.split("\n", 1)[1] if "\n" in body else ""


def _tool(path: Path, text: str, rel: str, reads: ReadOnce, report: Report,
          name: str | None = None) -> MockTool | None:
    front, body = _front(text, rel, report)
    for key in front:
        if key not in KEYS:
            report(f"{rel}: unknown key '{key}' (a mock takes {', '.join(KEYS)}); remove it")
    kind = front.get("type", "fixed")
    if kind not in ("fixed", "agent"):
        report(f"{rel}: type {kind!r}: a mock's type is fixed or agent")
        return None
    if "tools" in front and path.name != SERVER_MD:
        report(f"{rel}: tools: belongs in {SERVER_MD} (a <tool>.md answers the tool it is named after)")
    if kind == "fixed" and "abort_when" in front:
        report(f"{rel}: abort_when: needs type: agent; a fixed mock guards its input with expect:")
    if kind == "agent" and "error" in front:
        report(f"{rel}: error: applies to type: fixed mocks only")
    if kind == "agent" and not agent_body(body):
        report(f"{rel}: an agent mock needs a description of the server it plays as its body")
    expect = front.get("expect") or {}
    if not isinstance(expect, dict):
        report(f"{rel}: expect: must map dotted input paths to rules")
        expect = {}
    rules: list[tuple[str, Any]] = []
    for key, rule in expect.items():
        if (why := rule_problem(rule)) is not None:
            report(f"{rel}: expect.{key}: {why}")
        else:  # a list of literals kept as a tuple: a case's settings stay hashable
            rules.append((str(key), tuple(rule) if isinstance(rule, list) else rule))
    if not isinstance(front.get("error", False), bool):
        report(f"{rel}: error: must be true or false")
    fixtures = reads.files(path.parent / "fixtures", MAX_FIXTURE, quiet)
    files = tuple((f"fixtures/{name}", text) for name, text, _ in fixtures)
    if kind == "agent":
        when = front.get("abort_when")
        return MockTool(name or path.stem, agent_body(body), False, tuple(rules), rel, files, "agent",
                        str(when) if when is not None and str(when).strip() else None,
                        mock_digest(text), _replays(path.parent.parent / REPLAY / path.parent.name,
                                                    name or path.stem))
    return MockTool(path.stem, body, front.get("error") is True, tuple(rules), rel, files)


def _replays(folder: Path, tool: str) -> tuple[tuple[str, str], ...]:
    """The recordings of ``tool`` in a ``.replay/<server>/`` folder (plugin eval's names)."""
    if not folder.is_dir():
        return ()
    return tuple((p.name, p.read_text(encoding="utf-8", errors="replace")) for p in sorted(folder.iterdir())
                 if RECORDING.match(p.name) and p.name.startswith(tool + "-") and p.is_file()
                 and p.stat().st_size <= MAX_RECORDING_BYTES)


def _server_tools(text: str, rel: str, report: Report) -> list[str]:
    """The tools a ``_server.md`` answers (its ``tools:``), checked as plugin eval checks them."""
    front, _ = _front(text, rel, report)
    tools = front.get("tools") or []
    if front.get("type") != "agent":
        report(f"{rel}: only type: agent is meaningful here (one agent answering several tools)")
        return []
    if not isinstance(tools, list) or not tools or not all(isinstance(t, str) for t in tools):
        report(f"{rel}: an agent answering several tools needs tools: [...] (tool names)")
        return []
    if front.get("expect") and len(tools) > 1:
        report(f"{rel}: expect: here would guard all {len(tools)} tools it answers; put it on "
               "the tool it is meant for, as <tool>.md")
    return list(tools)


def read_mocks(eval_dir: Path, case_folder: Path, plugin_root: Path, report: Report,
               reads: ReadOnce | None = None) -> Mocks | None:
    """The case's mocked servers (suite mocks overridden file by file by its own), or None.
    ``reads``: the suite's, so that a suite-wide mock is read once for all its cases."""
    reads = reads if reads is not None else ReadOnce(eval_dir)
    roots = [eval_dir / "mocks", case_folder / "mocks"]
    if not any(r.is_dir() for r in roots):
        return None
    chosen: dict[str, dict[str, Path]] = {}  # server -> file name -> path (the case's last)
    for root in roots:
        for server in sorted(p for p in root.glob("*") if p.is_dir() and not p.name.startswith(".")):
            for file in sorted(server.glob("*")):
                if not file.is_dir() and (file.suffix == ".md" or file.name == "_tools.json"):
                    chosen.setdefault(server.name, {})[file.name] = file
    declared = declared_servers(plugin_root)
    servers: list[MockServer] = []
    used: dict[str, str] = {}
    for name, files in sorted(chosen.items()):
        tools: list[MockTool] = []
        listed: dict[str, str] = {}
        for fname, path in sorted(files.items()):
            named = frozenset(f[:-3] for f in files if f.endswith(".md")) if fname == SERVER_MD else None
            found, saved, read = reads.once(("file", path, named),
                                            partial(_mock_file, path, eval_dir, named, reads), report)
            tools += found
            listed |= saved
            used.update(read)
        for folder in sorted({p.parent / "fixtures" for p in files.values()}):
            # A fixture refused: named once per case, not per tool.
            reads.files(folder, MAX_FIXTURE, lambda m: report(f"{m}; the agent would be told there "
                                                             "is no such fixture"))
        for tool in tools:  # the recordings an agent mock replays are inputs of the run too
            for fname, text in tool.replays:
                used[f"{replay_dir(tool.source, name)}/{fname}"] = \
                    hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        names = {t.name for t in tools}
        servers.append(MockServer(name, name in declared, tuple(tools),
                                  tuple(sorted((k, v) for k, v in listed.items() if k in names))))
    return Mocks(plugin_name(plugin_root), tuple(servers), tuple(sorted(used.items())),
                 str(eval_dir.resolve()))


def _mock_file(path: Path, eval_dir: Path, named: frozenset[str] | None, reads: ReadOnce,
               report: Report) -> tuple[list[MockTool], dict[str, str], dict[str, str]]:
    """(tools, _tools.json entries, files read -> sha256) of one file of a server's folder;
    ``named``: for a ``_server.md``, the tools a ``<tool>.md`` beside it answers instead."""
    rel = path.relative_to(eval_dir).as_posix()
    text = reads.text(path, report)
    if text is None:
        return [], {}, {}
    used = {rel: reads.digest(path)}
    if named is not None:
        found = [_tool(path, text, rel, reads, report, t) for t in _server_tools(text, rel, report)
                 if t not in named]
        return [t for t in found if t is not None], {}, used
    if path.name == "_tools.json":
        return [], _listed(text, rel, report), used
    tool = _tool(path, text, rel, reads, report)
    if tool is None:
        return [], {}, used
    folder = path.parent / "fixtures"
    for name, _, digest in reads.files(folder, MAX_FIXTURE, quiet):
        used[(folder / name).relative_to(eval_dir).as_posix()] = digest
    return [tool], {}, used


def _listed(text: str, rel: str, report: Report) -> dict[str, str]:
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        report(f"{rel}: must be a saved tools/list answer: "
               '{"tools": [{"name", "description", "inputSchema"}]}')
        return {}
    return {str(t["name"]): json.dumps(t, sort_keys=True)
            for t in tools if isinstance(t, dict) and t.get("name")}
