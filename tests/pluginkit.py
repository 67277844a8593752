"""A throw-away ``claude plugin eval`` plugin with a suite over it, run by a protocol-v1 command
adapter that logs every request (``requests.jsonl``) and the workspace it started in.

    kit = PluginKit.create(tmp_path, {"a": {"prompt.md": "---\\nmax_turns: 2\\n---\\nGo.\\n"}})
    kit.run("--scaffold")           # skill-eval run, in-process: (exit code, stdout, stderr)
    kit.requests()                  # every request the adapter got, with "listing" added
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_eval.cli.main import main

GRADER = '---\ntype: regex\npattern: "ok"\n---\n'
ADAPTER = r'''import json, os, sys
req = json.loads(sys.stdin.read())
req["listing"] = sorted(os.path.relpath(os.path.join(d, f), ".") for d, _, fs in os.walk(".") for f in fs
                        if not f.startswith("requests"))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "requests.jsonl"), "a") as f:
    f.write(json.dumps(req) + "\n")
if req.get("settings", {}).get("timeout_seconds") == 1:  # a case's own 1 s limit: outlive it
    import time
    time.sleep(10)
print(json.dumps({"output": "ok", "events": [], "usage": {}}))
'''


@dataclass
class PluginKit:
    root: Path

    @classmethod
    def create(cls, tmp_path: Path, cases: dict[str, dict[str, str]], extra: str = "") -> PluginKit:
        kit = cls(tmp_path)
        kit.write({".claude-plugin/plugin.json": '{"name": "p"}',
                   "skills/s/SKILL.md": "---\nname: s\ndescription: S things.\n---\nDo s.\n",
                   "adapter.py": ADAPTER})
        for case, files in cases.items():
            files = {"graders/g.md": GRADER, **files}
            kit.write({f"evals/{case}/{rel}": text for rel, text in files.items()})
        kit.write_suite(extra)
        return kit

    def write(self, files: dict[str, str]) -> None:
        for rel, text in files.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text)

    def write_suite(self, extra: str = "", adapter: str = "", arms: str = "[with_skill]") -> None:
        adapter = adapter or f"{{command: [{json.dumps(sys.executable)}, adapter.py]}}"
        (self.root / "suite.yaml").write_text(
            f"suite: p\nskills_dir: skills\nskills: ['*']\nadapter: {adapter}\nvariants: {arms}\n"
            f"iterations: 1\njobs: 1\nstore: .store\nresults: results\n{extra}")

    @property
    def suite(self) -> Path:
        return self.root / "suite.yaml"

    def cli(self, *args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
        return code, out.getvalue(), err.getvalue()

    def run(self, *args: str) -> tuple[int, str, str]:
        return self.cli("run", str(self.suite), *args)

    def status(self, *args: str) -> tuple[int, str, str]:
        return self.cli("status", str(self.suite), *args)

    def requests(self) -> list[dict[str, Any]]:
        log = self.root / "requests.jsonl"
        return [json.loads(ln) for ln in log.read_text().splitlines()] if log.is_file() else []

    def reset(self) -> None:
        (self.root / "requests.jsonl").unlink(missing_ok=True)

    def metas(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for p in sorted((self.root / ".store").glob("runs/*/*/meta.json")):
            meta = json.loads(p.read_text())
            out.setdefault(meta["case"], []).append(meta)
        return out

    def errors(self) -> list[dict[str, Any]]:
        return [json.loads(p.read_text()) for p in sorted((self.root / ".store").glob("errors/*.json"))]
