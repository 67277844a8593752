"""The docs in the repository: linked from README, every relative link resolving, in sync with schemas/, and
their examples work."""

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
        assert (ROOT / name).read_text(encoding="utf-8") == build(), (
            f"{name} is out of date with schemas/ and the check types: run python docs/gen_reference.py")


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
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), f"README links {target}, which is not in the repository"


# The pages a reader follows links between: a link that lands nowhere is a dead end for them.
PAGES = ["README.md", "CONTRIBUTING.md",
         *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans (links there are not links)."""
    return re.sub(r"`[^`\n]*`", "", _FENCE.sub("", text))


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: the rendered text lower-cased, punctuation dropped,
    each space a hyphen (github-slugger's rule; runs of hyphens are kept)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link renders as its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").strip().lower()
    return "".join(ch for ch in text if ch.isalnum() or ch in " -_").replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"^#{1,6}\s+(.*?)(?:\s+#+)?\s*$", line)
        if heading:
            slug = github_slug(heading.group(1))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def relative_links(page: str) -> list[str]:
    targets = _LINK.findall(_prose((ROOT / page).read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.IGNORECASE)]


def test_the_slugs_are_githubs():
    assert github_slug("Codex (`codex`)") == "codex-codex"
    assert github_slug("The sequential decision (`run --until-decided`, `adaptive`)") == \
        "the-sequential-decision-run---until-decided-adaptive"
    assert github_slug("`--format skill-creator`") == "--format-skill-creator"
    assert github_slug("What did my edit do? History, `compare` and `bless`") == \
        "what-did-my-edit-do-history-compare-and-bless"
    assert github_slug("agentskills.io, plus `checks` (native)") == "agentskillsio-plus-checks-native"


@pytest.mark.parametrize("page", PAGES)
def test_every_relative_link_resolves(page):
    """A file link names a file of the repository; a #anchor names a heading of that page."""
    assert (ROOT / page).exists(), f"{page} is missing"
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        file = (ROOT / page).parent / path if path else ROOT / page
        if not file.exists():
            shown = file.relative_to(ROOT) if file.is_relative_to(ROOT) else file
            broken.append(f"{target}: no file {shown}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading with the anchor #{anchor} in {file.relative_to(ROOT)}")
    assert broken == [], f"{page} links to what is not there: {broken}"


def test_the_link_checker_sees_a_broken_file_and_a_broken_anchor(tmp_path):
    (tmp_path / "a.md").write_text("# Top\n\n## `x` (y)\n\n```\n## not a heading\n```\n")
    assert anchors(tmp_path / "a.md") == {"top", "x-y"}
    text = "[ok](a.md#x-y) [bad](b.md) `[code](c.md)` ![img](p.png) [web](https://x.org/a)"
    assert _LINK.findall(_prose(text)) == ["a.md#x-y", "b.md", "p.png", "https://x.org/a"]


def _sh_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, re.DOTALL)]


def test_the_two_commands_open_the_readme_and_the_test_command_is_what_ci_runs():
    """The first screen's two commands, unchanged; CI runs the very test command the README gives."""
    assert re.findall(r"^## .*", README, re.MULTILINE)[0] == "## Two commands"
    install, tests = _sh_blocks(README.split("## Two commands", 1)[1])[:2]
    assert install == ("python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
                       "skill-eval run configs/demo.yaml")
    marker = "# The README's test command (keep the two in step):\n"
    ci_test, e2e = (ROOT / ".ci" / "run").read_text().split(marker, 1)[1].split("\n", 1)
    assert tests == "python3 -m venv .venv && . .venv/bin/activate && " + ci_test
    assert "python -m pytest -q -n auto -m e2e" in e2e.splitlines()  # and then the e2e tier
    assert tests in _sh_blocks((ROOT / "CONTRIBUTING.md").read_text())


def test_the_readmes_first_screen_is_for_users():
    """Between the two commands and the next section: what to open and try, and one pointer to
    CONTRIBUTING.md; how the test install works (editable modes, finders, workers, process
    counts) is contributor material and lives there."""
    first = README.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    prose = re.sub(r"```.*?```", "", first, flags=re.DOTALL)
    for word in ("`compat` mode (the checkout", "finder", "19 ms", "Python processes", "bytecode"):
        assert word not in prose, f"README's first screen explains {word!r}: move it to CONTRIBUTING.md"
    assert "[CONTRIBUTING.md](CONTRIBUTING.md)" in prose


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


# The golden key tests stay byte for byte as they are (issue 57); their docstring's citation is
# the one left, and says the same as docs/incremental.md.
_UNTOUCHABLE = {"tests/test_hashing.py"}
_CITES_DESIGN = re.compile(r"DESIGN(?:\.md)?\s*(?:§|section)")
_CITES_DOC = re.compile(r"(?<![\"'/])\bdocs/([\w-]+\.md)(?:#([\w-]+))?")


def _sources() -> list[Path]:
    found = [ROOT / "pyproject.toml", ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    for folder, pattern in (("skill_eval", "*.py"), ("tests", "*.py"), ("benchmarks", "*.py"),
                            ("docs", "*.md")):
        found += sorted((ROOT / folder).rglob(pattern))
    return [p for p in found if p.relative_to(ROOT).as_posix() not in _UNTOUCHABLE]


def test_the_repository_cites_only_what_it_holds():
    """No citation of a design file outside the repository; every docs/<page>.md#<heading> a
    module, test or benchmark cites is a page and a heading of docs/."""
    outside, broken = [], []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix()
        outside += [f"{rel}: {m.group(0)}" for m in _CITES_DESIGN.finditer(text)]
        if path.suffix != ".py":
            continue
        for page, anchor in _CITES_DOC.findall(text):
            if not (ROOT / "docs" / page).is_file():
                broken.append(f"{rel}: docs/{page}")
            elif anchor and anchor not in anchors(ROOT / "docs" / page):
                broken.append(f"{rel}: docs/{page}#{anchor}")
    assert outside == [], "cite the docs/ page that holds the fact instead"
    assert broken == []
