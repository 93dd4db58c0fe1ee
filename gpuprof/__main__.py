"""``python -m gpuprof``."""

from __future__ import annotations

import sys

from gpuprof.cli import main

if __name__ == "__main__":
    sys.exit(main())
