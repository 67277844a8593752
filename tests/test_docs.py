"""The docs in the repository: linked from README, in sync with schemas/, and their examples work."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skill_eval.run.protocol import parse_response

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _generator():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "docs" / "gen_reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["docs/protocol.md", "docs/suite.md", "docs/checks.md"])
def test_readme_links_each_doc(page):
    assert f"]({page})" in README


def test_reference_pages_are_what_the_schemas_say():
    gen = _generator()
    for name, build in gen.PAGES.items():
        assert (ROOT / "docs" / name).read_text(encoding="utf-8") == build(), (
            f"docs/{name} is out of date with schemas/: run python docs/gen_reference.py")


def test_the_reference_pages_cover_every_suite_key_and_check_type():
    suite = json.loads((ROOT / "schemas" / "suite.schema.json").read_text())
    evals = json.loads((ROOT / "schemas" / "evals.schema.json").read_text())
    suite_page = (ROOT / "docs" / "suite.md").read_text()
    checks_page = (ROOT / "docs" / "checks.md").read_text()
    assert all(f"| `{key}`" in suite_page for key in suite["properties"])
    for kind in evals["$defs"]["check"]["properties"]["type"]["enum"]:
        assert f"## `{kind}`" in checks_page
        assert evals["$defs"][kind].get("description"), f"{kind} has no pass rule in the schema"


def test_the_generator_notices_drift(tmp_path, monkeypatch):
    gen = _generator()
    docs = tmp_path / "docs"
    docs.mkdir()
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    (docs / "suite.md").write_text(gen.suite_page())
    (docs / "checks.md").write_text(gen.checks_page().replace("## `regex`", "## `regexp`"))
    assert gen.main(["--check"]) == 1
    assert gen.main([]) == 0 and gen.main(["--check"]) == 0


def test_readme_names_no_file_that_is_not_in_the_repository():
    assert "DESIGN §" not in README
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), f"README links {target}, which is not in the repository"


def _fenced(page: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", (ROOT / "docs" / page).read_text(), re.DOTALL)


REQUEST = {"protocol_version": 1, "mode": "with_skill", "skill": {"name": "s", "path": "skills/s"},
           "prompt": "hi there", "files": [{"path": "inputs/a.txt", "sha256": "0" * 64}], "workspace": "/tmp"}


def test_the_python_adapter_in_protocol_md_speaks_protocol_v1(tmp_path):
    [script] = [block for block in _fenced("protocol.md", "python") if "json.dump" in block]
    (tmp_path / "adapter.py").write_text(script)
    done = subprocess.run([sys.executable, "adapter.py"], cwd=tmp_path, input=json.dumps(REQUEST),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    response = parse_response(done.stdout.encode(), "adapter.py")
    assert "hi there" in response.output and "inputs/a.txt" in response.output
    assert [(e.type, e.name) for e in response.events] == [("skill_loaded", "s")]


def test_the_shell_adapter_in_protocol_md_speaks_protocol_v1(tmp_path):
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed: the shell example in docs/protocol.md needs it")
    [script] = [block for block in _fenced("protocol.md", "sh") if "jq" in block]
    (tmp_path / "adapter.sh").write_text(script)
    done = subprocess.run(["sh", "adapter.sh"], cwd=tmp_path, input=json.dumps(REQUEST),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert parse_response(done.stdout.encode(), "adapter.sh").output == "HI THERE"
