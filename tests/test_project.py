"""Project-wide rules: layout, import boundaries, lint, pins."""

from __future__ import annotations

import importlib
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_folder_is_listed_in_pyproject() -> None:
    cfg = _pyproject()["tool"]["setuptools"]
    listed = set(cfg["packages"])
    found = {"gpuprof.ui", "gpuprof.resources"}
    for init in (ROOT / "gpuprof").rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT)
        found.add(".".join(rel.parts))
    for init in (ROOT / "ui").rglob("__init__.py"):
        found.add(".".join(("gpuprof", *init.parent.relative_to(ROOT).parts)))
    assert found == listed, "pyproject [tool.setuptools] packages is out of step with the folders"


@pytest.mark.slow
def test_core_never_imports_qt_or_pyqtgraph() -> None:
    """Import every core module in a fresh interpreter; Qt must stay out of sys.modules."""
    import gpuprof

    names = [
        m.name
        for m in pkgutil.walk_packages(gpuprof.__path__, "gpuprof.")
        if not m.name.startswith(("gpuprof.ui", "gpuprof.resources"))
    ]
    assert "gpuprof.telemetry.model" in names
    code = (
        "import importlib, sys\n"
        f"for n in {names!r}:\n"
        "    importlib.import_module(n)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'torch'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core modules pulled in: {out.stdout.strip()}"


def test_pyside6_pin_excludes_the_crashing_release() -> None:
    deps = _pyproject()["project"]["dependencies"]
    pyside = next(d for d in deps if d.lower().startswith("pyside6"))
    assert "<6.12" in pyside
    import PySide6
    from packaging.version import Version

    assert Version(PySide6.__version__) < Version("6.12"), (
        "installed PySide6 6.12 crashes pyqtgraph"
    )


def test_dev_extra_pins_the_cpu_torch_wheel_but_bench_extra_does_not() -> None:
    extras = _pyproject()["project"]["optional-dependencies"]
    assert "torch==2.13.0" in extras["dev"]
    assert not any("==" in d for d in extras["bench"] if d.startswith("torch"))
    assert not any(d.startswith("torch") for d in _pyproject()["project"]["dependencies"])


@pytest.mark.skipif(
    shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists(),
    reason="ruff not installed",
)
def test_ruff_passes_including_banned_imports() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    out = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:]


def test_ruff_format_is_clean() -> None:
    """The whole tree is in ``ruff format`` style (adopted in one commit of its own)."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff not installed")
    out = subprocess.run(
        [ruff, "format", "--check", "--no-cache", str(ROOT)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout[-4000:]


_PROBE = "import PySide6\nfrom PySide6.QtCore import QObject\nimport pyqtgraph\nimport pynvml\n"


def _banned_in(rel_path: str) -> set[str]:
    """The modules the project's own ruff config bans in ``_PROBE`` placed at ``rel_path``.

    The probe goes through stdin with ``--stdin-filename``, so ruff applies the config it finds
    for that path (pyproject.toml, gpuprof/.ruff.toml, ui/.ruff.toml and their per-file ignores)
    and nothing is written into the source tree. No ``--select``: the rule must be selected by
    the config too.
    """
    import json
    import re

    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff not installed")
    out = subprocess.run(
        [ruff, "check", "--no-cache", "--output-format", "json", "--stdin-filename", rel_path, "-"],
        input=_PROBE,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode in (0, 1), out.stderr
    banned = set()
    for diagnostic in json.loads(out.stdout):
        if diagnostic["code"] == "TID251":
            banned.add(re.match(r"`([^`]+)` is banned", diagnostic["message"]).group(1))
    return banned


def test_banned_api_rule_catches_qt_in_core_and_nvml_in_ui() -> None:
    """The configured lint rule works: the core may not import Qt, pyqtgraph or pynvml (except
    telemetry/nvml/source.py), and the UI may not import pynvml."""
    assert _banned_in("gpuprof/_lint_probe.py") == {"PySide6", "pyqtgraph", "pynvml"}
    assert _banned_in("gpuprof/telemetry/_lint_probe.py") == {"PySide6", "pyqtgraph", "pynvml"}
    assert _banned_in("gpuprof/telemetry/nvml/source.py") == set()
    assert _banned_in("ui/_lint_probe.py") == {"pynvml"}
    assert not list(ROOT.rglob("_lint_probe*.py"))


def test_python_m_gpuprof_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gpuprof", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    import gpuprof

    assert out.stdout.strip() == f"gpuprof {gpuprof.__version__}"


def test_importing_every_core_module_works() -> None:
    import gpuprof

    for m in pkgutil.walk_packages(gpuprof.__path__, "gpuprof."):
        if m.name.startswith("gpuprof.ui"):
            continue
        importlib.import_module(m.name)


@pytest.mark.slow
def test_mypy_strict_passes_on_the_core_and_the_ui() -> None:
    assert _pyproject()["tool"]["mypy"]["files"] == ["gpuprof", "ui"]
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.skip("mypy not installed")
    out = subprocess.run([mypy], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-4000:]
