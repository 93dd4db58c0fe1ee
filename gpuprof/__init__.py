"""gpuprof: watch what a GPU does, measure what it can do, decide which cloud machine to rent."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
