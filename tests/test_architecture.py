"""The shape DESIGN.md asks for, checked on the import graph: the layers of the whole tree (an
import runs down, or across within a layer, never up), no cycle between packages, no cycles in
the UI, the UI does not reach into the CLI, the core reaches the UI only through the entry point,
and every module keeps the line budget (tests/line_budget.toml).

Every import counts that runs: a function-local one as much as one at the top (a lazy import
is a dependency all the same). Only ``if TYPE_CHECKING:`` blocks are left out."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
#: The line budget (issue 25): no module of gpuprof/ or ui/ has more than MAX_LINES; one over
#: LISTED_ABOVE is listed in tests/line_budget.toml with a one-line reason.
MAX_LINES = 700
LISTED_ABOVE = 500
BUDGET_FILE = ROOT / "tests" / "line_budget.toml"


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "ui":
        parts = ["gpuprof", "ui", *parts[1:]]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    files = [*ROOT.joinpath("gpuprof").rglob("*.py"), *ROOT.joinpath("ui").rglob("*.py")]
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


#: The layers, top first. A part is a package under gpuprof/ (``gpuprof.telemetry``), the UI, or a
#: module at the package root (``gpuprof.cli``); a part imports parts of its own layer or of the
#: layers below. The root modules not named here are the leaves (errors, i18n, units, fileio,
#: jsonin, redact, ...): they import only each other.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("entry", frozenset({"gpuprof.__main__", "gpuprof.cli", "gpuprof.commands", "gpuprof.ui"})),
    ("report", frozenset({"gpuprof.report"})),
    (
        "features",
        frozenset(
            {
                "gpuprof.bench",
                "gpuprof.check",
                "gpuprof.exporter",
                "gpuprof.profile",
                "gpuprof.recommend",
            }
        ),
    ),
    # The health checks read telemetry; the check, job profiles and reports read them.
    ("health", frozenset({"gpuprof.health"})),
    ("sources", frozenset({"gpuprof.catalog", "gpuprof.fleet", "gpuprof.telemetry"})),
)
LEAVES = "leaves"
#: Imports that run up a layer, each with its reason. Keep this short: an entry here is a
#: decision, not a way round the test.
UPWARD_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("gpuprof", "gpuprof.profile"): (
        "the package's face hands on the user's API, gpuprof.track and gpuprof.flops_per_token "
        "(issue 13), imported on first use (PEP 562) and never by gpuprof itself"
    ),
}


def _part(module: str) -> str:
    """``gpuprof.telemetry.nvml.source`` -> ``gpuprof.telemetry``; the root stays ``gpuprof``."""
    return ".".join(module.split(".")[:2])


def _layer(part: str) -> int:
    """0 for the top layer; the leaves are below every named layer."""
    for depth, (_, parts) in enumerate(LAYERS):
        if part in parts:
            return depth
    return len(LAYERS)


def _part_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Which part imports which (the package root ``gpuprof`` as a target is left out: every
    ``from gpuprof import x`` names it, and it imports nothing at import time)."""
    parts: dict[str, set[str]] = {}
    for m, deps in graph.items():
        mine = parts.setdefault(_part(m), set())
        mine.update(_part(d) for d in deps if d != "gpuprof" and _part(d) != _part(m))
    return parts


def _upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(module, imported module) pairs that run up a layer, the listed exceptions left out."""
    return {
        (m, dep)
        for m, deps in graph.items()
        for dep in deps
        if dep != "gpuprof"
        and _layer(_part(dep)) < _layer(_part(m))
        and (_part(m), _part(dep)) not in UPWARD_EXCEPTIONS
    }


def test_every_part_of_the_core_is_placed_or_a_leaf(graph) -> None:
    """A new package must be given a layer; a root module that imports a package is no leaf."""
    packages = {_part(m) for m, p in _modules().items() if p.name == "__init__.py"}
    named = set().union(*(parts for _, parts in LAYERS))
    assert packages - named - {"gpuprof"} == set()
    parts = _part_graph(graph)
    not_leaves = {
        (part, dep)
        for part, deps in parts.items()
        if _layer(part) == len(LAYERS) and part != "gpuprof"
        for dep in deps
        if _layer(dep) != len(LAYERS)
    }
    assert not_leaves == set()


def test_imports_run_down_the_layers(graph) -> None:
    assert _upward(graph) == set()


def test_the_upward_exceptions_are_still_needed(graph) -> None:
    parts = _part_graph(graph)
    assert {pair for pair in UPWARD_EXCEPTIONS if pair[1] not in parts.get(pair[0], set())} == set()


def test_no_cycle_between_the_parts(graph) -> None:
    """Packages of one layer may import each other one way only (check -> bench, never back)."""
    parts = _part_graph(graph)
    exempt = {a for a, _ in UPWARD_EXCEPTIONS}
    assert (
        _cycles({p: deps - exempt for p, deps in parts.items() if p not in exempt}, "gpuprof") == []
    )


def test_the_core_has_no_module_cycles(graph) -> None:
    """Within a package too, modules do not import each other round (function-local imports
    count); a module that needs a fact of its caller is handed it (``golden_rows(result,
    planned_runs)``)."""
    core = {
        m: {d for d in deps if not d.startswith("gpuprof.ui") and d != "gpuprof"}
        for m, deps in graph.items()
        if not m.startswith("gpuprof.ui")
    }
    assert _cycles(core, "gpuprof") == []


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
    planted["gpuprof.ui.health.tab"].add("gpuprof.ui.shell.app")
    planted["gpuprof.report.build"] = {"gpuprof.ui.report.pdf"}
    assert any("gpuprof.ui.health.tab" in c for c in _cycles(planted, "gpuprof.ui"))
    assert "gpuprof.ui.report.pdf" in planted["gpuprof.report.build"]
    assert any(
        dep.startswith("gpuprof.ui")
        for m, deps in planted.items()
        if not m.startswith("gpuprof.ui") and m != "gpuprof.cli"
        for dep in deps
    )


def test_the_layer_checks_see_planted_faults(graph) -> None:
    """What issue 25 found, planted back: telemetry importing the exporter's API and the profile
    layer, and a check <-> report cycle through a function-local import."""
    planted = {k: set(v) for k, v in graph.items()}
    planted["gpuprof.telemetry.remote"].add("gpuprof.exporter.api")
    planted["gpuprof.telemetry.recover"].add("gpuprof.profile.storage")
    planted["gpuprof.check.run"].add("gpuprof.report.check")
    assert {
        ("gpuprof.telemetry.remote", "gpuprof.exporter.api"),
        ("gpuprof.telemetry.recover", "gpuprof.profile.storage"),
        ("gpuprof.check.run", "gpuprof.report.check"),
    } <= _upward(planted)
    planted["gpuprof.bench.results"].add("gpuprof.check.compare")  # same layer, but a cycle
    cycles = _cycles(_part_graph(planted), "gpuprof")
    assert any({"gpuprof.bench", "gpuprof.check"} <= set(c) for c in cycles)


def _line_counts() -> dict[str, int]:
    return {
        p.relative_to(ROOT).as_posix(): len(p.read_text("utf-8").splitlines())
        for p in _modules().values()
    }


def _budget_reasons() -> dict[str, str]:
    reasons = tomllib.loads(BUDGET_FILE.read_text("utf-8"))["reasons"]
    assert isinstance(reasons, dict)
    return {str(k): str(v) for k, v in reasons.items()}


def _budget_faults(counts: dict[str, int], reasons: dict[str, str]) -> dict[str, str]:
    """What breaks the budget, path -> why: over MAX_LINES; over LISTED_ABOVE with no reason;
    a reason for a module that is gone or back under LISTED_ABOVE (stale); a reason that is
    not one line."""
    faults: dict[str, str] = {}
    for path, n in counts.items():
        if n > MAX_LINES:
            faults[path] = f"{n} lines, over {MAX_LINES}: split it along its seams"
        elif n > LISTED_ABOVE and path not in reasons:
            faults[path] = f"{n} lines, over {LISTED_ABOVE}: list it in {BUDGET_FILE.name}"
    for path, why in reasons.items():
        n = counts.get(path)
        if n is None:
            faults[path] = f"listed in {BUDGET_FILE.name} but no such module"
        elif n <= LISTED_ABOVE:
            faults[path] = f"{n} lines, not over {LISTED_ABOVE}: a stale entry, delete it"
        elif not why.strip() or "\n" in why or len(why) > 200:
            faults[path] = "the reason must be one line (200 characters at most)"
    return faults


def test_every_module_keeps_the_line_budget() -> None:
    assert _budget_faults(_line_counts(), _budget_reasons()) == {}


def test_the_line_budget_sees_planted_faults() -> None:
    counts = {"a.py": MAX_LINES + 1, "b.py": LISTED_ABOVE + 1, "c.py": LISTED_ABOVE, "d.py": 600}
    reasons = {"a.py": "one unit", "c.py": "was long", "d.py": "two\nlines", "gone.py": "moved"}
    assert set(_budget_faults(counts, reasons)) == {"a.py", "b.py", "c.py", "d.py", "gone.py"}
    assert _budget_faults({"d.py": 600}, {"d.py": "one unit"}) == {}


# -- the window is a shell: features reach it through ui/shell/features.py -----------------------------
def _feature_modules(graph) -> set[str]:
    """The modules ui/shell/features.py takes its features from (beside the context itself)."""
    return graph["gpuprof.ui.shell.features"] - {"gpuprof.ui.shell.context"}


def test_the_window_and_the_menus_import_no_feature(graph) -> None:
    """A new feature is a module plus one line in ui/shell/features.py: neither the window nor the
    menus module knows one (issue 25)."""
    features = _feature_modules(graph)
    assert {"gpuprof.ui.report.dialog", "gpuprof.ui.check.tab", "gpuprof.ui.fleet.tab"} <= features
    shell = ("gpuprof.ui.shell.main_window", "gpuprof.ui.shell.menus")
    assert {(m, dep) for m in shell for dep in graph[m] & features} == set()


def _assigns_on_a_window(path: Path) -> list[str]:
    """``window.x = …`` / ``setattr(window, …)`` in ``path``, where ``window`` is a name or
    attribute called ``window``/``main_window``/``_window``, or a ``.window()`` call."""

    def is_window(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in {"window", "main_window", "mw"}
        if isinstance(node, ast.Attribute):
            return node.attr in {"window", "_window", "main_window"}
        if isinstance(node, ast.Call):
            return isinstance(node.func, ast.Attribute) and node.func.attr == "window"
        return False

    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and is_window(target.value):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(target)}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and is_window(node.args[0])
        ):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_ui_module_sets_attributes_on_the_window() -> None:
    """Features keep their state (dialogs, actions) themselves; the window's attributes are set
    in main_window.py alone (issue 25: menus.py used to set 15, the report dialog two more)."""
    found = [
        line
        for path in sorted(ROOT.joinpath("ui").rglob("*.py"))
        if path.name != "main_window.py"
        for line in _assigns_on_a_window(path)
    ]
    assert found == []


def test_the_window_checks_see_planted_faults(graph, tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def f(window, tab):\n"
        "    window.report_dialog = 1\n"
        "    tab.window().x_action = 2\n"
        "    setattr(self._window, 'jobs', 3)\n"
        "    tab.title = 'fine'\n",
        "utf-8",
    )
    assert len(_assigns_on_a_window(planted)) == 3
    faulty = {m: set(deps) for m, deps in graph.items()}
    faulty["gpuprof.ui.shell.menus"].add("gpuprof.ui.fleet.tab")
    assert ("gpuprof.ui.shell.menus", "gpuprof.ui.fleet.tab") in {
        (m, dep)
        for m in ("gpuprof.ui.shell.main_window", "gpuprof.ui.shell.menus")
        for dep in faulty[m] & _feature_modules(faulty)
    }


# -- ui/ is packages: the shell and the packages of its tabs and features (issue 25) -------------
#: The top of the shell: the app, the window and its menus, and the feature list. The rest of
#: ui/shell/ (context, settings, state, theme, workers, widgets, png, heap, ...) are the helpers
#: every package may use.
UI_SHELL_TOP = frozenset(
    f"gpuprof.ui.shell.{m}" for m in ("app", "main_window", "menus", "features")
)
#: The window's own tabs, which main_window.py (and menus.py: the Telemetry tab's actions) build;
#: every other package is a feature, reached only through ui/shell/features.py.
UI_WINDOW_TABS = frozenset({"telemetry", "health"})
#: Imports from one ui package into another (beside the shell's helpers), each with its reason.
UI_CROSS_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("gpuprof.ui.profile.status", "gpuprof.ui.telemetry.plot.ticks"): (
        "a profiled job's steps are drawn as ticks on the Telemetry plots (RecordingTicks)"
    ),
}


def _ui_package(module: str) -> str:
    """``gpuprof.ui.telemetry.plot.ticks`` -> ``telemetry``; ``gpuprof.ui`` itself -> ``""``."""
    parts = module.split(".")
    return parts[2] if len(parts) >= 3 and parts[:2] == ["gpuprof", "ui"] else ""


def _ui_package_faults(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Imports that break the ui's package rules: a tab or feature package imports another one
    (unlisted) or the shell's top (its screenshot module, an entry point, may import the app);
    the shell imports a feature package other than through features.py."""
    bad: set[tuple[str, str]] = set()
    for m, deps in graph.items():
        mine = _ui_package(m)
        if not mine:
            continue
        for dep in deps:
            theirs = _ui_package(dep)
            if not theirs or theirs == mine:
                continue
            if mine == "shell":
                window = m in {"gpuprof.ui.shell.main_window", "gpuprof.ui.shell.menus"}
                if m != "gpuprof.ui.shell.features" and not (window and theirs in UI_WINDOW_TABS):
                    bad.add((m, dep))
            elif theirs == "shell":
                if dep in UI_SHELL_TOP and not m.endswith(".screenshot"):
                    bad.add((m, dep))
            elif (m, dep) not in UI_CROSS_EXCEPTIONS:
                bad.add((m, dep))
    return bad


def test_every_ui_module_is_in_a_package() -> None:
    """ui/ holds packages along its seams (shell/, telemetry/, bench/, ...), not flat modules."""
    assert [p.name for p in ROOT.joinpath("ui").glob("*.py")] == ["__init__.py"]


def test_the_ui_packages_keep_to_their_lanes(graph) -> None:
    assert _ui_package_faults(graph) == set()


def test_the_ui_cross_exceptions_are_still_needed(graph) -> None:
    assert {pair for pair in UI_CROSS_EXCEPTIONS if pair[1] not in graph[pair[0]]} == set()


def test_the_ui_package_checks_see_planted_faults(graph) -> None:
    planted = {m: set(deps) for m, deps in graph.items()}
    planted["gpuprof.ui.bench.tab"].add("gpuprof.ui.recommend.model")  # tab -> tab
    planted["gpuprof.ui.check.tab"].add("gpuprof.ui.shell.main_window")  # up to the window
    planted["gpuprof.ui.shell.main_window"].add("gpuprof.ui.fleet.tab")  # around features.py
    planted["gpuprof.ui.shell.theme"].add("gpuprof.ui.telemetry.tab")  # a helper knows a tab
    planted["gpuprof.ui.health.screenshot"].add("gpuprof.ui.shell.app")  # allowed: entry point
    assert _ui_package_faults(planted) - _ui_package_faults(graph) == {
        ("gpuprof.ui.bench.tab", "gpuprof.ui.recommend.model"),
        ("gpuprof.ui.check.tab", "gpuprof.ui.shell.main_window"),
        ("gpuprof.ui.shell.main_window", "gpuprof.ui.fleet.tab"),
        ("gpuprof.ui.shell.theme", "gpuprof.ui.telemetry.tab"),
    }
