"""The shape DESIGN.md asks for, checked on the import graph: no cycles in the UI, the UI does
not reach into the CLI, the core reaches the UI only through the entry point, and no file grows
past about 600 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The most lines a module of gpuprof/ or ui/ may have (issue 10: "about 600").
MAX_LINES = 620


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "ui":
        parts = ["gpuprof", "ui", *parts[1:]]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    files = [*ROOT.joinpath("gpuprof").rglob("*.py"), *ROOT.joinpath("ui").glob("*.py")]
    return {_module_name(p): p for p in files}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(name: str, path: Path) -> set[str]:
    """Every module ``name`` imports at run time (function-level imports included,
    ``if TYPE_CHECKING:`` blocks excluded), resolved to absolute names."""
    tree = ast.parse(path.read_text("utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: {m for m in _imports(name, path) if m in mods} for name, path in mods.items()}


def _cycles(graph: dict[str, set[str]], prefix: str) -> list[list[str]]:
    """Strongly connected components of more than one module among ``prefix`` modules."""
    nodes = [n for n in graph if n.startswith(prefix)]
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if not w.startswith(prefix):
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for n in nodes:
        if n not in index:
            strong(n)
    return out


def test_the_ui_has_no_import_cycles(graph) -> None:
    assert _cycles(graph, "gpuprof.ui") == []


def test_the_ui_does_not_import_the_cli(graph) -> None:
    bad = {
        (m, dep)
        for m, deps in graph.items()
        if m.startswith("gpuprof.ui")
        for dep in deps
        if dep == "gpuprof.cli" or dep.startswith("gpuprof.commands")
    }
    assert bad == set()


def test_only_the_entry_point_imports_the_ui(graph) -> None:
    """The core gets the Qt PDF renderer and the app's screenshots injected (report.render)."""
    bad = {
        (m, dep)
        for m, deps in graph.items()
        if not m.startswith("gpuprof.ui") and m != "gpuprof.cli"
        for dep in deps
        if dep.startswith("gpuprof.ui")
    }
    assert bad == set()


def test_the_checks_see_a_planted_cycle_and_a_planted_import(graph) -> None:
    planted = {k: set(v) for k, v in graph.items()}
    planted["gpuprof.ui.health_tab"].add("gpuprof.ui.app")
    planted["gpuprof.report.build"] = {"gpuprof.ui.report_pdf"}
    assert any("gpuprof.ui.health_tab" in c for c in _cycles(planted, "gpuprof.ui"))
    assert "gpuprof.ui.report_pdf" in planted["gpuprof.report.build"]
    assert any(
        dep.startswith("gpuprof.ui")
        for m, deps in planted.items()
        if not m.startswith("gpuprof.ui") and m != "gpuprof.cli"
        for dep in deps
    )


def test_no_module_is_over_about_600_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules().values()
        if (n := len(p.read_text("utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
