"""Errors the user can act on. The CLI prints them in one line and exits 2."""

from __future__ import annotations

__all__ = ["GpuprofError", "InputError", "OutputError"]


class GpuprofError(Exception):
    """Base for errors gpuprof reports to the user without a traceback."""


class InputError(GpuprofError):
    """Bad input: a broken file, a wrong flag value. Names what and where."""


class OutputError(GpuprofError):
    """A file could not be written (a full disk, a missing folder, a size limit). Names it;
    what stood at that path before is left as it was."""
