"""Where gpuprof keeps its files (platformdirs): sessions, results database, user catalogs."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = ["data_dir", "config_dir", "results_db_path", "user_catalog_dir"]

_APP = "gpuprof"


def data_dir() -> Path:
    """User data directory; ``GPUPROF_DATA_DIR`` overrides it (tests, portable installs)."""
    override = os.environ.get("GPUPROF_DATA_DIR")
    path = Path(override) if override else Path(platformdirs.user_data_dir(_APP, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """User config directory; ``GPUPROF_CONFIG_DIR`` overrides it."""
    override = os.environ.get("GPUPROF_CONFIG_DIR")
    path = Path(override) if override else Path(platformdirs.user_config_dir(_APP, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def results_db_path() -> Path:
    """The benchmark results database (SQLite)."""
    return data_dir() / "results.sqlite"


def user_catalog_dir() -> Path:
    """Overlay catalogs imported by the user (negotiated prices, private clouds)."""
    path = data_dir() / "catalog"
    path.mkdir(parents=True, exist_ok=True)
    return path
