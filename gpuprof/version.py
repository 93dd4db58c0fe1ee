"""gpuprof's version, a leaf every layer may import (the package's ``__init__`` sits above the
profile API it hands out, so a lower module importing ``gpuprof`` itself would point upward)."""

__version__ = "0.1.0"
