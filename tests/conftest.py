"""Test set-up: Qt offscreen, a private data folder, and the ``gpu`` marker."""

from __future__ import annotations

import os
import shutil
import signal
from typing import TYPE_CHECKING

import pytest

# Set before anything imports Qt: the tests never need a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
# English whatever the developer's locale: tests assert English texts (tests/test_i18n.py
# switches languages itself).
os.environ["GPUPROF_LANG"] = "en"
# Ctrl-C as a terminal delivers it: a shell that starts the suite in the background without job
# control (`… &` in a script, nohup) ignores SIGINT, and an ignored SIGINT is inherited by every
# child, so the tests of Ctrl-C (in-process and in the gpuprof children) would see nothing.
# A handler, unlike SIG_IGN, is reset to the default in an exec'd child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

if TYPE_CHECKING:
    from gpuprof.catalog.instances import Catalog

pytest_plugins = ["tests.fakes.fixtures", "tests.ui_fixtures", "tests.prometheus_fixture"]


@pytest.fixture(autouse=True)
def _private_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep every test away from the user's real data and config folders."""
    base = tmp_path_factory.mktemp("gpuprof-home")
    monkeypatch.setenv("GPUPROF_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("GPUPROF_CONFIG_DIR", str(base / "config"))


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    """The shipped catalog, loaded once a module (the serving tests rank on it)."""
    from gpuprof.catalog.instances import load_catalog

    return load_catalog()


def _cuda_available() -> bool:
    # An NVIDIA GPU (nvidia-smi) or an AMD one (amd-smi; ROCm torch answers torch.cuda too).
    if shutil.which("nvidia-smi") is None and shutil.which("amd-smi") is None:
        return False
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items or _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a real NVIDIA GPU with CUDA")
    for item in gpu_items:
        item.add_marker(skip)
