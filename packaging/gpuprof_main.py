"""PyInstaller entry point: the frozen ``gpuprof`` executable runs the normal CLI."""

from __future__ import annotations

import multiprocessing
import sys


def _run() -> int:
    # Benchmarks start worker processes (torch.distributed); a frozen child must not rerun main.
    multiprocessing.freeze_support()
    from gpuprof.cli import main

    return main()


if __name__ == "__main__":
    sys.exit(_run())
