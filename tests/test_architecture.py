"""The package's shape: layers along the data flow, no import cycle, nothing below the CLI prints.

The layer rules themselves are import-linter contracts in pyproject.toml; this runs them, and adds
what a contract cannot say: no cycle anywhere (function-level imports included, since grimp reads
every import statement), and no ``print`` outside the CLI.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "skill_eval"

grimp = pytest.importorskip("grimp", reason="import-linter (and grimp) come with the test extra")


def _cycles(graph) -> list[list[str]]:  # noqa: ANN001 - grimp's ImportGraph
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_import_linter_contracts_hold():
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0, \
        "an import breaks a layer contract: run `lint-imports` for the chain"


def test_no_import_cycle_even_through_function_level_imports():
    graph = grimp.build_graph("skill_eval")
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_cycle():
    class Graph:
        modules = {"a", "b", "c", "d"}
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

        def find_modules_directly_imported_by(self, m: str) -> set[str]:
            return self.edges[m]

    assert _cycles(Graph()) == [["a", "b", "c"]]


def test_few_modules_directly_in_the_package():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= 12, loose


def _prints(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"]


@pytest.mark.slow
def test_nothing_below_the_cli_prints():
    # Builtin adapters are separate processes whose stdout is the protocol: they are exempt.
    exempt = (PACKAGE / "cli", PACKAGE / "run" / "adapters")
    offenders = [f"{p.relative_to(ROOT)}:{line}" for p in sorted(PACKAGE.rglob("*.py"))
                 if not p.is_relative_to(exempt[0]) and not p.is_relative_to(exempt[1])
                 for line in _prints(p)]
    assert offenders == []


def test_layers_are_subpackages_named_in_the_contract():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c["layers"] for c in config["contracts"] if c["type"] == "layers")
    # "a | b" is one floor of two independent packages.
    named = sorted(part.strip() for layer in layers for part in layer.split("|"))
    packages = [f"skill_eval.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")]
    modules = [f"skill_eval.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"]
    assert named == sorted(packages + modules), \
        "every subpackage and top-level module of skill_eval is a layer in the contract"


def test_every_floor_says_what_it_owns():
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        floor = init.parent.relative_to(ROOT)
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), \
            f"{floor}/__init__.py has no docstring saying what the floor owns and who imports it"


def test_no_module_over_400_lines():
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in sorted(PACKAGE.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400]
    assert long == [], "split these along a seam that has a name"


def _functions_over(limit: int, root: Path) -> list[str]:
    """Functions (methods, nested ones) under ``root`` longer than ``limit`` lines, decorators aside."""
    long = []
    for p in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                if n > limit:
                    long.append(f"{p.relative_to(root.parent)}:{node.lineno} {node.name}: {n} lines")
    return long


def test_no_function_over_80_lines_and_no_cli_function_over_60():
    assert _functions_over(80, PACKAGE) + _functions_over(60, PACKAGE / "cli") == [], \
        "split these into named steps (the CLI only parses, prints and maps outcomes to exit codes)"


def test_the_function_length_check_finds_a_long_function(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    body = "".join(f"        x{i} = {i}\n" for i in range(60))
    (pkg / "m.py").write_text(f"def short():\n    return 1\n\n\nclass C:\n    def long(self):\n{body}")
    assert _functions_over(60, pkg) == ["pkg/m.py:6 long: 61 lines"]
    assert _functions_over(61, pkg) == []


def _folders_over(limit: int, package: Path) -> list[str]:
    """Folders of ``package`` holding more than ``limit`` modules side by side (__init__.py counts)."""
    counts = {d: len(list(d.glob("*.py"))) for d in {p.parent for p in package.rglob("*.py")}
              if "__pycache__" not in d.parts}
    return sorted(f"{d.relative_to(package.parent)}: {n} modules" for d, n in counts.items() if n > limit)


def test_no_folder_has_more_than_15_modules_at_one_level():
    assert _folders_over(15, PACKAGE) == [], \
        "group these into subpackages, one per question their modules answer (docs/architecture.md)"


def test_the_module_count_finds_a_crowded_folder(tmp_path):
    crowded = tmp_path / "pkg" / "floor"
    crowded.mkdir(parents=True)
    for i in range(16):
        (crowded / f"m{i}.py").write_text("")
    assert _folders_over(15, tmp_path / "pkg") == ["pkg/floor: 16 modules"]
    (crowded / "m0.py").unlink()
    assert _folders_over(15, tmp_path / "pkg") == []


def test_every_subpackage_says_what_it_owns():
    for init in sorted(PACKAGE.rglob("__init__.py")):
        folder = init.parent.relative_to(ROOT)
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), \
            f"{folder}/__init__.py has no docstring saying what it owns and who may import it"


def test_review_folders_are_layers_in_its_contract():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    review = next(c for c in config["contracts"] if c.get("containers") == ["skill_eval.review"])
    named = sorted(part.strip() for layer in review["layers"] for part in layer.split("|"))
    review_dir = PACKAGE / "review"
    present = [p.parent.name for p in review_dir.glob("*/__init__.py")]
    present += [p.stem for p in review_dir.glob("*.py") if p.stem != "__init__"]
    assert named == sorted(present), "every folder and module of review/ is a layer in its contract"


_RENAMES = {("os", "replace"), ("os", "rename"), ("os", "renames"), ("shutil", "move")}


def _renames(source: str) -> list[int]:
    """Lines that put a file in place by a rename: os.replace/rename/renames, shutil.move, and
    a Path's ``.rename(target)`` or ``.replace(target)`` (one argument: str.replace takes two)."""
    out = []
    for n in ast.walk(ast.parse(source)):
        if not isinstance(n, ast.Call) or not isinstance(n.func, ast.Attribute):
            continue
        owner = n.func.value.id if isinstance(n.func.value, ast.Name) else None
        if (owner, n.func.attr) in _RENAMES or (
                n.func.attr in ("rename", "replace") and len(n.args) == 1 and not n.keywords):
            out.append(n.lineno)
    return out


def test_every_rename_into_place_goes_through_fs():
    # fs/atomic.py is the one writer that renames into place (write_atomic, rename_into_place).
    offenders = [f"{p.relative_to(ROOT)}:{line}" for p in sorted(PACKAGE.rglob("*.py"))
                 if not p.is_relative_to(PACKAGE / "fs")
                 for line in _renames(p.read_text(encoding="utf-8"))]
    assert offenders == [], "write through skill_eval.fs.atomic (write_atomic, rename_into_place)"


def test_the_rename_finder_finds_renames_and_not_string_replaces():
    source = ("import os, shutil\nos.replace(a, b)\np.rename(q)\np.replace(q)\nshutil.move(a, b)\n"
              "s.replace('a', 'b')\ndataclasses.replace(x, y=1)\n")
    assert _renames(source) == [2, 3, 4, 5]
